"""Driving the real bot through the fake Bot API like four people at a table would."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.models import StoredMessage

TIMEOUT = 15.0


class Table:
    """A group chat with players; every call waits until the bot has finished answering."""

    def __init__(self, tg: FakeTelegram, chat: dict[str, Any], players: list[dict[str, Any]]):
        self.tg, self.chat, self.players = tg, chat, players

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    def _mine(self, r: Any) -> bool:
        """A request to this chat that went through (429s and retries are not the answer)."""
        return str(r.params.get("chat_id")) == str(self.chat_id) and r.ok

    async def say(self, user: dict[str, Any], text: str, *,
                  method: str = "sendMessage") -> StoredMessage:
        """A user types a message; returns what the bot sent in answer."""
        await self.tg.send_message(self.chat, user, text)
        req = await self.tg.wait_for_request(method, TIMEOUT, where=self._mine)
        return self.tg.message(self.chat_id, req.result["message_id"])

    async def tap(self, user: dict[str, Any], message: StoredMessage | int, label: str) -> dict:
        """A user presses the button labelled `label`; returns the callback answer."""
        mid = message if isinstance(message, int) else message.message_id
        qid = await self.tg.press_button(self.chat_id, mid, user, label)
        return await self.answered(qid)

    async def tap_in_row(self, user: dict[str, Any], message: StoredMessage | int, anchor: str,
                         label: str, *, below: bool = False) -> dict:
        """Press `label` in the one row holding a button that starts with `anchor` (else contains
        it), or in the row right under that one (below=True): the "+" of one counter among
        several, or a seat under its field's name."""
        mid = message if isinstance(message, int) else message.message_id
        msg = self.message(mid)
        rows = msg.buttons
        at = [i for i, row in enumerate(rows) if any(b["text"].startswith(anchor) for b in row)]
        at = at or [i for i, row in enumerate(rows) if any(anchor in b["text"] for b in row)]
        assert len(at) == 1, f"{len(at)} rows hold {anchor!r}: {msg.button_labels}"
        row = rows[at[0] + 1] if below else rows[at[0]]
        found = [b for b in row if b["text"] == label] or [b for b in row if label in b["text"]]
        assert len(found) == 1, f"{len(found)} buttons {label!r} by {anchor!r}: {msg.button_labels}"
        qid = await self.tg.press(self.chat_id, mid, user, found[0]["callback_data"])
        return await self.answered(qid)

    async def press(self, user: dict[str, Any], message_id: int, data: str) -> dict:
        qid = await self.tg.press(self.chat_id, message_id, user, data, check=False)
        return await self.answered(qid)

    def key(self, mid: int, short: str) -> str:
        """The data of a tile keyboard's key on this wizard message by its short form ("t:5m" a
        tile, "2" Pair, "d" Done): the keys name the message's entry, as its buttons do."""
        entry = next(d.split(":")[1] for d in self.message(mid).callback_datas
                     if d.startswith(("h:", "k:")))
        return f"k:{entry}:{short}"

    async def answered(self, qid: str) -> dict:
        await self.tg.wait_for(lambda: qid in self.tg.callback_answers, TIMEOUT)
        return self.tg.callback_answers[qid]

    def message(self, mid: int) -> StoredMessage:
        return self.tg.message(self.chat_id, mid)

    async def seat_everyone(self, variant: str) -> StoredMessage:
        lobby = await self.say(self.players[0], f"/new {variant}")
        for p in self.players:
            answer = await self.tap(p, lobby, "Join")
            assert not answer.get("show_alert"), answer
        return self.message(lobby.message_id)


def cli_deltas(record: dict[str, Any]) -> list[int]:
    """What `python -m scoring score` says a stored record is worth."""
    proc = subprocess.run([sys.executable, "-m", "scoring", "score"], input=json.dumps(record),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)["deltas"]
