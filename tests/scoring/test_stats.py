from __future__ import annotations

from scoring import score
from scoring.stats import ScoredHand, merge, player_stats


def hand(events: list[dict], seats: tuple[str, ...] = ("a", "b", "c", "d")) -> ScoredHand:
    """A whole Luzhou hand: the wins, then the wall runs out with everyone left ready (查叫
    moves nothing)."""
    won = {w["seat"] for e in events for w in e["winners"]}
    ready = {str(s): {} for s in range(4) if s not in won}
    end = [{"type": "exhausted", "ready": ready}] if len(won) < 3 else []
    record = {"variant": "luzhou", "events": [*events, *end]}
    return ScoredHand(record, score(record).to_dict(), seats)


def test_wins_self_draws_deal_ins_points_patterns() -> None:
    hands = [
        hand([{"type": "win", "by": "self_draw", "winners": [{"seat": 0, "pure": True}]},
              {"type": "win", "by": "discard", "from": 2,
               "winners": [{"seat": 1, "form": "all_pungs"}, {"seat": 3, "pure": True}]}]),
        hand([{"type": "win", "by": "discard", "from": 0, "winners": [{"seat": 2, "pure": True}]}]),
    ]
    stats = player_stats(hands)
    a, b, c = stats["a"]["luzhou"], stats["b"]["luzhou"], stats["c"]["luzhou"]
    assert (a.hands, a.wins, a.self_draws, a.dealt_in) == (2, 1, 1, 1)
    assert a.points == 30 - 5 and a.biggest_gain == 30
    assert (b.wins, b.self_draws, b.dealt_in, b.points) == (1, 0, 0, -10 + 5)
    assert c.dealt_in == 1 and c.points == -10 - 10 + 5
    assert a.top_patterns(1) == [("pure", 1)]
    assert a.self_draw_rate == 1.0 and b.self_draw_rate == 0.0
    total = sum(s["luzhou"].points for s in stats.values())
    assert total == 0


def test_merge_adds_variants() -> None:
    one = hand([{"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}])
    merged = merge([player_stats([one])["a"]["luzhou"], player_stats([one])["a"]["luzhou"]])
    assert (merged.hands, merged.wins, merged.points) == (2, 2, 12)
    assert merged.points_per_hand == 6
