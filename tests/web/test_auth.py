"""The Mini App's requests: initData signed as Telegram signs it, at most a day old, with the
chat's token as its start_param; then the chat's rules. Forged, expired, another chat's token,
another bot's token and a player of another table get 403 and change nothing; a seated player
books, and the chat is told with the wizard's confirmation."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.web.api import add_routes
from bot.web.auth import (
    FRESH_FOR,
    HEADER,
    Forbidden,
    Membership,
    Memberships,
    Unanswered,
    chat_of_token,
    chat_token,
    check_init_data,
    sign_init_data,
    telegram_authorize,
)
from db import Store
from scoring import get_variant

TOKEN = "123456:TEST-token"
GROUP, OTHER_GROUP = -1001, -1002
ALICE, BOB, CAROL, DAVE, EVE, ADMIN = 11, 12, 13, 14, 15, 16
SELF_DRAW = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]


def init_data(user_id: int, chat_id: int = GROUP, *, age: float = 0, token: str = TOKEN,
              start: str | None = None) -> str:
    fields = {"auth_date": str(int(time.time() - age)), "query_id": "AAH",
              "user": json.dumps({"id": user_id, "first_name": f"U{user_id}",
                                  "language_code": "en"}),
              "start_param": start if start is not None else chat_token(token, chat_id)}
    return sign_init_data(fields, token)


class Telegram:
    """getChatMember as the tests' Telegram answers it: who is in which chat, who asked, and
    whether it answers at all."""

    def __init__(self) -> None:
        self.status = {(GROUP, u): "member" for u in (ALICE, BOB, CAROL, DAVE, EVE)}
        self.status |= {(OTHER_GROUP, u): "member" for u in range(21, 25)}
        self.status[GROUP, ADMIN] = "administrator"
        self.asked: list[tuple[int, int]] = []
        self.down = False

    async def member_of(self, chat_id: int, user_id: int) -> Membership:
        self.asked.append((chat_id, user_id))
        if self.down:
            raise Unanswered("timed out")
        status = self.status.get((chat_id, user_id), "left")
        return Membership(member=status in ("member", "administrator", "restricted"),
                          admin=status == "administrator")


@pytest.fixture
def telegram() -> Telegram:
    return Telegram()


@pytest.fixture
async def setup(store: Store, telegram: Telegram) -> AsyncIterator[tuple[TestClient, list[Any]]]:
    rules = get_variant("guiyang").resolved_rules({})
    for chat in (GROUP, OTHER_GROUP):
        session = await store.start_session(chat, "guiyang", rules)
        first = ALICE if chat == GROUP else 21
        for seat in range(4):
            person = await store.upsert_user(first + seat, f"P{first + seat}")
            await store.seat_player(session.id, seat, person.id)
    told: list[Any] = []

    async def announce(caller: Any, lines: list[str], replaced: list[Any]) -> None:
        told.append((caller.chat_id, lines))

    app = web.Application()
    add_routes(app, store, telegram_authorize(store, TOKEN, telegram.member_of), announce)
    async with TestClient(TestServer(app)) as client:
        yield client, told


async def call(client: TestClient, path: str, data: str, body: dict[str, Any] | None = None) -> Any:
    return await client.post(f"/app/api/{path}", json=body or {}, headers={HEADER: data})


async def book(client: TestClient, data: str) -> int:
    shown = await call(client, "preview", data, {"events": SELF_DRAW})
    if shown.status != 200:
        return shown.status
    mark = (await shown.json())["mark"]
    return (await call(client, "confirm", data, {"events": SELF_DRAW, "mark": mark})).status


def test_check_init_data() -> None:
    good = init_data(ALICE)
    assert check_init_data(good, TOKEN)["start_param"] == chat_token(TOKEN, GROUP)
    with pytest.raises(Forbidden):
        check_init_data(good, "654321:other")
    with pytest.raises(Forbidden):
        check_init_data(good.replace("U11", "U12"), TOKEN)  # a field changed after signing
    with pytest.raises(Forbidden):
        check_init_data(init_data(ALICE, age=24 * 3600 + 5), TOKEN)
    assert chat_of_token(TOKEN, chat_token(TOKEN, GROUP)) == GROUP
    assert chat_of_token(TOKEN, chat_token(TOKEN, 42)) == 42
    with pytest.raises(Forbidden):
        chat_of_token(TOKEN, chat_token("654321:other", GROUP))
    with pytest.raises(Forbidden):
        chat_of_token(TOKEN, chat_token(TOKEN, GROUP).replace("m1001", "m1002"))


async def test_a_seated_player_books_and_the_chat_is_told(setup: Any, store: Store) -> None:
    client, told = setup
    assert await book(client, init_data(ALICE)) == 200
    session = await store.running_session(GROUP)
    assert await store.standing_hands(session.id) == 1
    assert told and told[0][0] == GROUP and "Hand 1 recorded" in told[0][1][0]
    # an admin who does not play books too
    assert await book(client, init_data(ADMIN)) == 200
    assert await store.standing_hands(session.id) == 2


@pytest.mark.parametrize("case", ["forged", "expired", "other_bot", "other_chat_token",
                                  "token_of_no_chat", "player_of_another_table", "no_header"])
async def test_refused_requests_change_nothing(setup: Any, store: Store, case: str) -> None:
    client, told = setup
    data = {
        "forged": init_data(ALICE).replace("U11", "Mallory"),
        "expired": init_data(ALICE, age=24 * 3600 + 60),
        "other_bot": init_data(ALICE, token="654321:other"),
        # Alice's real initData, opened from the other group's link: she does not play there
        "other_chat_token": init_data(ALICE, OTHER_GROUP),
        "token_of_no_chat": init_data(ALICE, start="m1001_AAAAAAAAAAAAAAAAAAAAAA"),
        "player_of_another_table": init_data(EVE),
        "no_header": "",
    }[case]
    before = {c: await store.totals((await store.running_session(c)).id)
              for c in (GROUP, OTHER_GROUP)}
    for path in ("state", "preview", "tiles"):
        assert (await call(client, path, data, {"events": SELF_DRAW})).status == 403
    assert await book(client, data) == 403
    for chat in (GROUP, OTHER_GROUP):
        session = await store.running_session(chat)
        assert await store.standing_hands(session.id) == 0
        assert await store.totals(session.id) == before[chat]
    assert not told


async def test_a_replayed_init_data_for_another_chat_is_refused(setup: Any, store: Store) -> None:
    """initData signed for the group, sent with the other group's token in its place: the
    start_param is signed, so changing it breaks the signature."""
    client, _ = setup
    signed = init_data(ALICE)
    data = signed.replace(chat_token(TOKEN, GROUP), chat_token(TOKEN, OTHER_GROUP))
    assert data != signed
    assert (await call(client, "state", data)).status == 403


async def test_received_by_the_payee_or_a_chat_admin(setup: Any, store: Store) -> None:
    """As the chat's button: a transfer counts when its payee says the money came, or a chat
    admin does; a seated player who is neither is refused and nothing is counted."""
    client, _ = setup
    await store.set_stake((await store.running_session(GROUP)).id, 100)
    assert await book(client, init_data(ALICE)) == 200  # Bob (seat 1) self-draws: all pay Bob
    settle = await (await call(client, "settle", init_data(CAROL))).json()
    bob = (await store.running_session(GROUP)).seats[1]
    rows = settle["transfers"]
    assert rows and all(r["payee"] == bob for r in rows)
    assert not any(r["may_confirm"] for r in rows)  # Carol pays; she is not the payee
    admin_view = await (await call(client, "settle", init_data(ADMIN))).json()
    assert all(r["may_confirm"] for r in admin_view["transfers"])
    first, second = rows[0], rows[1]
    body = {k: first[k] for k in ("payer", "payee", "cents")}
    assert (await call(client, "received", init_data(CAROL), body)).status == 403
    assert len((await (await call(client, "settle", init_data(BOB))).json())["transfers"]) == len(rows)
    assert (await call(client, "received", init_data(ADMIN), body)).status == 200
    body = {k: second[k] for k in ("payer", "payee", "cents")}
    after = await call(client, "received", init_data(BOB), body)
    assert after.status == 200
    assert len((await after.json())["transfers"]) == len(rows) - 2


async def test_a_player_removed_from_the_group_no_longer_books(setup: Any, store: Store,
                                                              telegram: Telegram) -> None:
    """Alice is seated; an admin removes her from the group: the page refuses her, reading or
    booking, and nothing is booked; Bob, still in it, books. Let back in (restricted: a member
    who may not write), she books again at once."""
    client, told = setup
    assert await book(client, init_data(ALICE)) == 200
    session = await store.running_session(GROUP)
    for status in ("kicked", "left"):
        telegram.status[GROUP, ALICE] = status
        assert await book(client, init_data(ALICE)) == 403
        refused = await call(client, "confirm", init_data(ALICE), {"events": SELF_DRAW, "mark": "x"})
        assert refused.status == 403 and (await refused.json())["code"] == "not_in_chat"
        assert "not a member of this chat" in (await refused.json())["error"]
        assert await store.standing_hands(session.id) == 1
    assert len(told) == 1
    assert await book(client, init_data(BOB)) == 200
    telegram.status[GROUP, ALICE] = "restricted"
    assert await book(client, init_data(ALICE)) == 200
    assert await store.standing_hands(session.id) == 3


async def test_booking_always_asks_telegram_reading_may_not(setup: Any, store: Store,
                                                            telegram: Telegram) -> None:
    """A write asks Telegram each time, so a removal counts at once for booking; reads within
    FRESH_FOR seconds of a "member" answer do not ask again; "not a member" is never kept."""
    client, _ = setup
    data = init_data(ALICE)
    for _ in range(5):
        assert (await call(client, "state", data)).status == 200
    assert telegram.asked.count((GROUP, ALICE)) == 1
    telegram.asked.clear()
    assert await book(client, data) == 200  # a preview (read), then Confirm (a write)
    assert telegram.asked == [(GROUP, ALICE)]
    telegram.status[GROUP, ALICE] = "kicked"
    assert await book(client, data) == 403  # the preview's cached answer, then Confirm asks
    assert (await call(client, "state", data)).status == 403  # that answer replaced the kept one
    telegram.status[GROUP, ALICE] = "member"
    assert (await call(client, "state", data)).status == 200  # "not a member" was not kept


async def test_memberships_keep_only_members_for_a_while() -> None:
    now = [0.0]
    asked: list[int] = []

    async def ask(chat_id: int, user_id: int) -> Membership:
        asked.append(user_id)
        return Membership(member=user_id != 2, admin=False)

    kept = Memberships(ask, clock=lambda: now[0])
    for _ in range(3):
        assert (await kept.of(GROUP, 1, fresh=False)).member
        assert not (await kept.of(GROUP, 2, fresh=False)).member
    assert asked == [1, 2, 2, 2]
    await kept.of(GROUP, 1, fresh=True)
    now[0] += FRESH_FOR
    await kept.of(GROUP, 1, fresh=False)
    assert asked == [1, 2, 2, 2, 1, 1]


async def test_telegram_not_answering_is_503_and_books_nothing(setup: Any, store: Store,
                                                               telegram: Telegram) -> None:
    client, told = setup
    shown = await call(client, "preview", init_data(ALICE), {"events": SELF_DRAW})
    mark = (await shown.json())["mark"]
    telegram.down = True
    resp = await call(client, "confirm", init_data(ALICE), {"events": SELF_DRAW, "mark": mark})
    assert resp.status == 503 and (await resp.json())["code"] == "unchecked"
    assert await store.standing_hands((await store.running_session(GROUP)).id) == 0 and not told
