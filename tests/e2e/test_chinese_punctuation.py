"""Chinese screens use Chinese punctuation: every text the bot sends or edits in a zh-Hans or
zh-Hant chat (messages, buttons, alerts), over the flows a table goes through, has no ASCII
`;` `,` `:` next to Chinese text and no `. ` after a Chinese character."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from tests.fake_telegram import FakeTelegram

from .table import Table

CJK = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
# ASCII ; , : right after or right before a Chinese character (one space between counts too), or
# an English full stop ending a Chinese sentence. Digits around them (1,000  12:30) are not
# Chinese, and markup is taken out first, so neither is flagged.
WRONG = re.compile(rf"(?<={CJK}) ?[;,:]|[;,:] ?(?={CJK})|(?<={CJK})\. ")
TAGS = re.compile(r"<[^>]+>")


def wrong_punctuation(text: str) -> list[str]:
    """The places in `text` (HTML or plain) where ASCII punctuation touches Chinese text."""
    plain = html.unescape(TAGS.sub("", text))
    return [plain[max(0, m.start() - 12):m.end() + 12] for m in WRONG.finditer(plain)]


def test_the_check_flags_ascii_punctuation_only_beside_chinese() -> None:
    assert wrong_punctuation("大对子; 北 清一色") and wrong_punctuation("清一色 ×1, 闺 ×1")
    assert wrong_punctuation("流局：东 平胡; 南 无鬼") and wrong_punctuation("没有胡. 再试")
    assert wrong_punctuation("作废:上一局")
    assert not wrong_punctuation('<a href="https://t.me/x">1,000 颗</a> 12:30 开始；东：+5。')
    assert not wrong_punctuation("Alice: +5, Bob: −5. 1. 流局")


def screens(tg: FakeTelegram, chat_id: int) -> list[str]:
    """Every text the bot showed in the chat: sent and edited messages, their buttons, and the
    answers to button presses."""
    out = []
    for r in tg.requests:
        if not r.ok:
            continue
        if r.method in ("sendMessage", "editMessageText") and str(r.params.get("chat_id")) == str(chat_id):
            out.append(r.params["text"])
        if r.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
            markup = r.params.get("reply_markup")
            if isinstance(markup, str):
                markup = json.loads(markup)
            for row in (markup or {}).get("inline_keyboard", []):
                out += [b["text"] for b in row]
        if r.method == "answerCallbackQuery" and r.params.get("text"):
            out.append(r.params["text"])
    return out


def players(tg: FakeTelegram, code: str, base: int) -> list[dict[str, Any]]:
    return [tg.user(base + i, name, f"p{base + i}", language_code=code)
            for i, name in enumerate(("小红", "阿明", "老王", "阿芳"))]


@pytest.mark.parametrize(("code", "w"), [
    ("zh-hans", {"pairs": "七对", "add": "添加", "ok": "确认", "dc": "点炮", "pungs": "大对子"}),
    ("zh-tw", {"pairs": "七對", "add": "加入", "ok": "確認", "dc": "點炮", "pungs": "大對子"}),
])
async def test_every_chinese_screen_uses_chinese_punctuation(bot: object, tg: FakeTelegram,
                                                             code: str, w: dict[str, str]) -> None:
    table = Table(tg, tg.group(f"标点 {code}"), players(tg, code, 600 if code == "zh-hans" else 700))
    a, b, c, d = table.players
    await table.say(a, "/help")
    lobby = await table.say(a, "/new luzhou")
    for p in table.players:
        await table.tap(p, lobby, "🙋")
    await table.say(a, "/rules")
    await table.say(a, "/stake 0.5")
    # win after win, by line and then by buttons: previews, the ready summary, the confirmation
    wiz = await table.say(a, "/hu 南 自摸 闺2 清一色")
    await table.tap(a, wiz, "西 老王")
    await table.tap(a, wiz, f"← 北 阿芳 {w['dc']}")
    await table.tap(a, wiz, w["pairs"])
    await table.tap(a, wiz, w["add"])
    await table.tap(a, wiz, "流局")
    await table.tap(a, wiz, w["ok"])
    two = await table.say(b, f"/hu 东 自摸 {w['pungs']} + 西 清一色 + 北 {w['pairs']}")
    if two.buttons:
        await table.tap(b, two, w["ok"])
    tiles = await table.say(c, "/hu 西 点炮 北 123m456m789m11p555p")
    if any(w["ok"] in x for x in tiles.button_labels):
        await table.tap(c, tiles, w["ok"])
    for command in ("/table", "/history", "/stats", "/settle", "/chart"):
        await table.say(d, command, method="sendPhoto" if command == "/chart" else "sendMessage")
    # refusals
    for wrong in ("/hu 南 自摸 清一涩", "/hu 南 自摸 123m456m789p11s555s", "/stake abc",
                  "/paid @nobody 5", "/new mahjong", "/undo 原因, 多余"):
        await table.say(a, wrong)
    await table.say(a, "/end")
    await table.say(a, "/settle")
    shown = screens(tg, table.chat_id)
    assert len(shown) > 30
    for text in shown:
        print(TAGS.sub("", text))  # the screens, to read with -s
    bad = {spot for text in shown for spot in wrong_punctuation(text)}
    assert not bad, sorted(bad)
