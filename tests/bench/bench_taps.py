"""The taps target of issue 12, held as a test: `taps.py`'s typical hands all store the hand
they name, an ordinary hand takes at most 4 taps after /hand (a discard win at most 5), and
the median stays at 4 or below."""

from __future__ import annotations

import statistics

from .taps import measure, report


async def test_typical_hands_take_few_taps() -> None:
    results = await measure()
    print(report(results))
    for hand, taps in results:
        if hand.ordinary:
            limit = 5 if hand.events[0]["by"] == "discard" else 4
            assert taps <= limit, (hand.variant, hand.name, taps)
    assert statistics.median(n for _, n in results) <= 4
