"""A session of each other variant at a group table, entered only by tapping the wizard's
buttons, end to end over HTTP. Expected scores are worked out by hand from
docs/rules/<variant>.md, so a wrong score that the command line repeats still fails; Guiyang's
hands 2 and 3 are that page's worked examples, read from it."""

from __future__ import annotations

from typing import Any

from db import Store
from scoring import get_variant
from tests.worked_examples import rules_example

from .table import Table, cli_deltas


class Entry:
    """One /hand wizard message, driven by one player. No tap may end in an alert."""

    def __init__(self, table: Table, user: dict[str, Any], message_id: int) -> None:
        self.table, self.user, self.mid = table, user, message_id

    @classmethod
    async def open(cls, table: Table, user: dict[str, Any]) -> Entry:
        msg = await table.say(user, "/hand")
        assert msg.buttons, msg.text
        return cls(table, user, msg.message_id)

    @property
    def text(self) -> str:
        return self.table.message(self.mid).text

    @property
    def labels(self) -> list[str]:
        return self.table.message(self.mid).button_labels

    def _ok(self, answer: dict, what: str) -> None:
        assert not answer.get("show_alert"), (
            f"{what} ended in an alert: {answer.get('text')!r}\nscreen:\n{self.text}\n{self.labels}")

    async def tap(self, *labels: str) -> None:
        for label in labels:
            self._ok(await self.table.tap(self.user, self.mid, label), repr(label))

    async def row(self, anchor: str, label: str, times: int = 1) -> None:
        """`label` (+, −, ✎) in the row of `anchor` (a counter, a seat's map entry)."""
        for _ in range(times):
            self._ok(await self.table.tap_in_row(self.user, self.mid, anchor, label),
                     f"{label!r} by {anchor!r}")

    async def under(self, anchor: str, label: str) -> None:
        """`label` in the row under `anchor` (a seat picker under its field's name)."""
        self._ok(await self.table.tap_in_row(self.user, self.mid, anchor, label, below=True),
                 f"{label!r} under {anchor!r}")

    async def self_draw(self, who: str) -> None:
        """The Self-draw button beside the winner's name."""
        await self.row(who, "Self-draw")

    async def confirm(self, hand_no: int) -> str:
        """Confirm the whole hand the screen shows (the form of its last event shows the
        payments); returns the text it was confirmed from."""
        preview = self.text
        assert "Payments" in preview and "✔ Confirm" in self.labels, preview
        await self.tap("Confirm")
        assert f"Hand {hand_no} recorded" in self.text, self.text
        assert not self.labels
        return preview


async def stored_hands(table: Table, store: Store, per_hand: list[list[int]]) -> list[Any]:
    """The session's hands: each worth `per_hand` by the command line, and their sum the
    store's totals."""
    session = await store.running_session(table.chat_id)
    hands = sorted(await store.history(session.id, limit=50), key=lambda h: h.seq)
    assert [h.seq for h in hands] == list(range(1, len(per_hand) + 1))
    by_cli = [cli_deltas(h.record) for h in hands]
    assert by_cli == per_hand
    assert [h.outcome["deltas"] for h in hands] == per_hand
    expected = [sum(d[s] for d in per_hand) for s in range(4)]
    assert list(await store.totals(session.id)) == expected
    return hands


async def test_guiyang_session(bot: object, table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("guiyang")
    rules = await table.say(alice, "/rules")
    answer = await table.tap(alice, rules, "包鸡")  # not-ready seats pay their chickens
    assert not answer.get("show_alert"), answer
    assert "包鸡: not-ready seats pay their chickens: yes 🔄" in \
        table.message(rules.message_id).button_labels

    # 1 (rules example 1 with 包鸡): Bob's 闷豆, self-drawn 平胡; Carol ready; 5p flipped (翻鸡 6p).
    # Win 1 from each, 豆 2 from each, Bob's 鸡 2 from each, Carol's 1 from each; Dan is not
    # ready with one 幺鸡: 包鸡, he pays 1 to Bob and to Carol.
    h = await Entry.open(table, bob)
    await h.tap("Kong")
    await h.under("Seat", "South")
    await h.tap("concealed kong", "Add")
    await h.self_draw("South")
    await h.tap("More")
    await h.tap("Ready", "West", "More")
    await h.tap("Chickens", "Flipped tile", "5p")
    await h.tap("Bob")
    await h.row("Bob", "✎")
    await h.row("1 bamboo", "+")
    await h.row("flipped chicken", "+")
    await h.tap("Done", "Carol")
    await h.row("Carol", "✎")
    await h.row("flipped chicken", "+")
    await h.tap("Done", "Dan")
    await h.row("Dan", "✎")
    await h.row("1 bamboo", "+")
    await h.tap("Done")
    assert "1. Kong: South <b>&Bob concealed kong" in h.text, h.text
    await h.confirm(1)

    # 2 (rules example 2): Carol's 转弯豆, then 大对子 off Dan; Alice ready; 9s flipped, so 幺鸡 is
    # 金鸡 (3 each): Carol holds one, Alice two. Bob is not ready and holds no chicken.
    h = await Entry.open(table, alice)
    await h.tap("Kong")
    await h.under("Seat", "West")
    await h.tap("added kong", "Add")
    await h.tap("West Carol", "← North Dan", "all pungs", "More")
    await h.tap("Ready", "East", "More")
    await h.tap("Chickens", "Flipped tile", "9s", "Carol")
    await h.row("Carol", "✎")
    await h.row("1 bamboo", "+")
    await h.tap("Done", "Alice")
    await h.row("Alice", "✎")
    await h.row("1 bamboo", "+", times=2)
    await h.tap("Done")
    await h.confirm(2)

    # 3 (rules example 3): the wall runs out; Bob ready for 大对子, Carol (dealing) for 平胡.
    h = await Entry.open(table, carol)
    await h.tap("Wall exhausted", "Bob")
    await h.row("Bob", "✎")
    await h.tap("all pungs", "Done", "Carol")
    await h.tap("More")  # to see it listed before confirming
    assert "Wall exhausted: East not ready; South all pungs; West plain; North not ready" \
        in h.text, h.text
    await h.tap("Preview")
    await h.confirm(3)

    hands = await stored_hands(table, store, [[-6, 15, -1, -8], [12, -12, 17, -17],
                                              [-6, 10, 2, -6]])
    # hands 2 and 3 are the rules page's worked examples 2 and 3, entered by buttons: the same
    # events (read by the variant's own models, so defaults and key order do not count) and
    # the outcome the page gives (包鸡 changes neither: Bob, not ready, holds no chicken)
    guiyang = get_variant("guiyang")
    for hand, number in ((hands[1], 2), (hands[2], 3)):
        example = rules_example("guiyang", number)
        assert guiyang.read_events(hand.record["events"]) == \
            guiyang.read_events(example.record["events"])
        assert hand.outcome["deltas"] == example.outcome["deltas"]
    # the session and its hands keep every rule's value, defaults included
    full = {**get_variant("guiyang").resolved_rules({}), "bao_ji": True}
    assert hands[0].record["rules"] == full
    assert (await store.running_session(table.chat_id)).rules == full
    assert hands[0].record["events"] == [
        {"type": "kong", "seat": 1, "kind": "concealed"},
        {"type": "win", "by": "self_draw", "winners": [{"seat": 1}]},
        {"type": "ready", "seats": [2]},
        {"type": "chickens", "flipped": "5p", "seats": {
            "1": {"yaoji": 1, "fanji": 1}, "2": {"fanji": 1}, "3": {"yaoji": 1}}}]
    assert hands[1].record["events"][0] == {"type": "kong", "seat": 2, "kind": "added"}
    assert [h.record["dealer"] for h in hands] == [0, 1, 2]
    assert hands[2].outcome["next_dealer"] == 2  # an exhausted wall keeps the dealer

    standings = await table.say(dan, "/table")
    for line in ("East Alice: ±0", "South <b>&Bob: +13", "West Carol 🀄: +18", "North Dan: −31"):
        assert line in standings.text, standings.text


async def test_hainan_session(bot: object, table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("hainan")

    # 1: Bob self-draws 清一色 碰碰胡 with a dragon pung: P = 2·2, M = 2: 8 from each.
    h = await Entry.open(table, bob)
    await h.self_draw("South")
    await h.tap("all pungs", "pure suit")
    await h.row("dragon pung", "+")
    await h.confirm(1)

    # 2 (Bob deals): Dan's exposed kong off Alice's discard, 1 from each; Carol wins 混一色 off
    # Dan: 1 from Alice and Bob, 2 from Dan.
    h = await Entry.open(table, carol)
    await h.tap("Kong")
    await h.under("Seat", "North")
    await h.tap("exposed kong")  # now it asks From
    await h.under("From", "East")
    await h.tap("Add")
    assert "Kong: North Dan exposed kong ← East" in h.text, h.text
    await h.tap("West Carol", "← North Dan", "half flush")
    await h.confirm(2)

    # 3 (Carol deals): Dan wins 碰碰胡 off Bob, who fed him three melds (包牌): Bob pays all
    # three shares, 2 + 2 + (2 + 1).
    h = await Entry.open(table, dan)
    await h.tap("North Dan", "← South", "all pungs")
    await h.under("pays for all", "South")
    await h.confirm(3)

    # 4 (Dan deals): Carol's added kong is robbed by Alice with no other 番: Carol pays the
    # three shares, 1 + 1 + (1 + 1); the kong scores nothing. The deal passes from seat 3 to
    # seat 0: the South round begins.
    h = await Entry.open(table, alice)
    await h.tap("Kong")
    await h.under("Seat", "West")
    await h.tap("added kong", "Robbed", "Add")
    await h.tap("East Alice", "robbed kong")  # whose kong: the one marked robbed, Carol's
    assert "Robbed kong: East Alice ← West Carol" in h.text, h.text
    preview = await h.confirm(4)
    assert "Next dealer: East Alice" in preview

    hands = await stored_hands(table, store, [[-8, 24, -8, -8], [-2, -2, 3, 1], [0, -7, 0, 7],
                                              [4, 0, -4, 0]])
    assert hands[0].record["events"] == [{"type": "win", "by": "self_draw", "winners": [
        {"seat": 1, "all_pungs": True, "pure": True, "dragon_pungs": 1}]}]
    assert hands[1].record["events"][0] == {"type": "kong", "seat": 3, "kind": "exposed",
                                            "from": 0}
    assert hands[2].record["events"][0]["winners"] == [{"seat": 3, "all_pungs": True,
                                                        "liable": 1}]
    assert [h.record["dealer"] for h in hands] == [0, 1, 2, 3]
    assert (hands[3].outcome["next_dealer"], hands[3].outcome["next_round_wind"]) == (0, 1)

    standings = await table.say(carol, "/table")
    for line in ("East Alice 🀄: −6", "South <b>&Bob: +15", "West Carol: −9", "North Dan: ±0",
                 "Round wind: South"):
        assert line in standings.text, standings.text
    h = await Entry.open(table, alice)  # the next hand's screen says which round it is
    assert "Round wind: South" in h.text, h.text
    await h.tap("Cancel")


async def test_cixi_session(bot: object, table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("cixi")

    # 1: Bob's false win pays 24 to each; then Carol wins off Alice with one 龙 (V 14): Alice
    # pays 14, Bob and Dan 7.
    h = await Entry.open(table, carol)
    await h.tap("False win", "South", "Add")
    assert "False win: South <b>&Bob" in h.text, h.text
    await h.tap("West Carol", "← East")
    await h.row("joker", "+")
    preview = await h.confirm(1)
    assert "Points held: East 110 · South 21 · West 152 · North 117" in preview, preview

    # 2 (Bob deals, from the balances hand 1 left): Dan self-draws 对对胡 with two 龙:
    # L = 3, V = 18 from each.
    h = await Entry.open(table, dan)
    await h.self_draw("North")
    await h.row("joker", "+", times=2)
    await h.tap("all pungs")
    await h.confirm(2)

    # 3 (Carol deals): Alice self-draws 一龙推胡, 14 from each, but Bob holds only 3 and pays
    # them: he is at 0 and the level is over.
    h = await Entry.open(table, alice)
    await h.self_draw("East")
    await h.row("joker", "+")
    preview = await h.confirm(3)
    assert "This hand ends the level." in preview, preview
    assert "The level is over" in h.text, h.text

    # 4 (Dan deals, a new level: 100 each): Carol wins off Dan with two 龙, V 16: 16, 8, 8.
    h = await Entry.open(table, carol)
    await h.tap("West Carol", "← North")
    await h.row("joker", "+", times=2)
    await h.confirm(4)

    hands = await stored_hands(table, store, [[10, -79, 52, 17], [-18, -18, -18, 54],
                                              [31, -3, -14, -14], [-8, -8, 32, -16]])
    assert [h.record["balances"] for h in hands] == [
        [100, 100, 100, 100], [110, 21, 152, 117], [92, 3, 134, 171], [100, 100, 100, 100]]
    assert [h.outcome["level_over"] for h in hands] == [False, False, True, False]
    assert hands[0].record["events"] == [
        {"type": "false_win", "seat": 1},
        {"type": "win", "by": "discard", "from": 0, "winners": [{"seat": 2, "jokers": 1}]}]
    assert [h.record["dealer"] for h in hands] == [0, 1, 2, 3]

    standings = await table.say(bob, "/table")
    # Carol won off Dan's deal: the deal passes back to Alice, and the South round begins
    for line in ("East Alice 🀄: +15", "South <b>&Bob: −108", "West Carol: +52", "North Dan: +41",
                 "Level 2: East 92 · South 92 · West 132 · North 84",
                 "Levels won: East 0 · South 0 · West 0 · North 1"):
        assert line in standings.text, standings.text


async def test_feibao_session(bot: object, table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("feibao")

    # 1: Carol's concealed kong, 2 from each. Bob self-draws 平和 with 精 on the pair (宝掉头,
    # base 3), having thrown one 精 (飞宝 +1番), on a single wait (+1番): V = 3·2² = 12 from
    # each. Dan threw a 精 and did not win: his share doubles, 12 more. 精 held: Bob 2 正 + 1 副
    # = 5, 冲关 10; Alice one 副精, 1; each from each other seat (two holders: no 霸王).
    h = await Entry.open(table, alice)
    await h.tap("Kong")
    await h.under("Seat", "West")
    await h.tap("concealed kong", "Add")
    await h.self_draw("South")
    await h.tap("with jing", "jing on the pair", "single wait")
    await h.row("jing thrown", "+")
    await h.tap("More")
    await h.tap("Jing thrown", "North", "More")
    assert "Jing thrown: North Dan Count×1" in h.text, h.text
    await h.tap("Jing bonus", "Bob")
    await h.row("Bob", "✎")
    await h.row("正精", "+", times=2)
    await h.row("副精", "+")
    await h.tap("Done", "Alice")
    await h.row("Alice", "✎")
    await h.row("副精", "+")
    await h.tap("Done")
    await h.confirm(1)

    # 2 (Bob deals): Bob's exposed kong off Carol's discard, 1 from each. Dan adds a kong and
    # Alice robs it with 平和 without 精 (V 2): Dan pays 6·2; his robbed kong scores nothing.
    h = await Entry.open(table, bob)
    await h.tap("Kong")
    await h.under("Seat", "South")
    await h.tap("exposed kong")
    await h.under("From", "West")
    await h.tap("Add", "Kong")
    await h.under("Seat", "North")
    await h.tap("added kong", "Robbed", "Add")
    await h.tap("East Alice", "← North Dan (robbed kong)")  # Dan's kong was robbed
    await h.confirm(2)

    # 3 (Carol deals): Dan self-draws 碰对 with 精 (base 4); Alice fed him three melds (三凑承包)
    # and pays all three shares, 12.
    h = await Entry.open(table, carol)
    await h.self_draw("North")
    await h.tap("all pungs", "with jing")
    await h.row("Bob", "+")
    await h.row("Bob", "−")  # a slip, taken back: Bob fed nothing
    await h.row("Alice", "+", times=3)
    await h.confirm(3)

    hands = await stored_hands(table, store, [[-21, 75, -17, -37], [11, 3, -1, -13],
                                              [-12, 0, 0, 12]])
    assert hands[0].record["events"] == [
        {"type": "kong", "seat": 2, "kind": "concealed"},
        {"type": "win", "by": "self_draw", "winners": [
            {"seat": 1, "jing": True, "diaotou": True, "fei_bao": 1, "single_wait": True}]},
        {"type": "fei_bao", "seat": 3, "count": 1},
        {"type": "jing_bonus", "seats": {"0": {"fu": 1}, "1": {"zheng": 2, "fu": 1}}}]
    assert hands[1].record["events"][:2] == [
        {"type": "kong", "seat": 1, "kind": "exposed", "from": 2},
        {"type": "kong", "seat": 3, "kind": "added", "robbed": True}]
    assert hands[2].record["events"] == [{"type": "win", "by": "self_draw", "winners": [
        {"seat": 3, "form": "all_pungs", "jing": True, "fed": {"0": 3}}]}]

    standings = await table.say(dan, "/table")
    for line in ("East Alice: −22", "South <b>&Bob: +78", "West Carol: −18", "North Dan 🀄: −38"):
        assert line in standings.text, standings.text


async def test_a_session_keeps_the_rules_it_started_with(bot: object, table: Table,
                                                         store: Store) -> None:
    """Every rule's value is stored when a session starts, so later defaults never re-score
    it; a session stored before a change of defaults (migration 0002 wrote revision 1's values
    into it) keeps them when a rule is changed, and the chat's house rules for new sessions
    take only the change."""
    alice = table.players[0]
    await table.seat_everyone("hainan")
    session = await store.running_session(table.chat_id)
    assert session.rules == get_variant("hainan").resolved_rules({})
    revision_1 = {**session.rules, "self_draw_needs_fan": True,
                  "concealed_kong_keeps_menqing": True, "kongs_on_exhausted": "void"}
    await store.set_session_rules(session.id, revision_1)  # as migration 0002 leaves it
    rules = await table.say(alice, "/rules")
    assert "A self-draw needs a 番: yes 🔄" in rules.button_labels
    answer = await table.tap(alice, rules, "Dealer extra")  # 0 → 1
    assert not answer.get("show_alert"), answer
    session = await store.running_session(table.chat_id)
    assert session.rules == {**revision_1, "dealer_extra": 1}
    chat = await store.ensure_chat(table.chat_id)
    assert chat.house_rules["hainan"] == {"dealer_extra": 1}
    await table.say(alice, "/end")
    await table.say(alice, "/new hainan")
    fresh = await store.running_session(table.chat_id)
    assert fresh.id != session.id
    assert fresh.rules == get_variant("hainan").resolved_rules({"dealer_extra": 1})
    assert fresh.rules["kongs_on_exhausted"] == "pay"
