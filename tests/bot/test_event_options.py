"""The forms offer only the options a style has (`Variant.lacks`): the made-up style's kong has
no "Robbed" switch and its win no 杠上花, in the chat's wizard and on the page, while a style
that robs kongs keeps the switch (tests/scoring/test_event_options.py: the records)."""

from __future__ import annotations

from typing import Any

from bot.entry.wizard.flow import new_draft
from bot.web.page import hand_form
from scoring.variant import Variant

from .test_wizard import find, labels, make_ctx, self_draw, tap


def test_the_wizard_offers_no_robbed_kong_where_nobody_robs(made_up_style: Variant) -> None:
    ctx, d = make_ctx("toy"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    shown = labels(d, ctx)
    assert "▫️ Added kong" in shown, shown
    assert not [x for x in shown if "Robbed" in x], shown
    ctx, d = make_ctx("hainan"), new_draft()  # the near miss: a style that robs keeps it
    tap(d, ctx, find(d, ctx, "Kong"))
    assert "▫️ Robbed" in labels(d, ctx)


def test_the_wizard_offers_no_option_the_style_leaves_off(made_up_style: Variant) -> None:
    ctx, d = make_ctx("toy"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, find(d, ctx, "East"))
    tap(d, ctx, find(d, ctx, "Added kong"))
    tap(d, ctx, find(d, ctx, "✔ Add"))
    self_draw(d, ctx, "Alice")
    shown = labels(d, ctx)
    assert not [x for x in shown if "kong replacement" in x or "杠上" in x], shown


def _names(fields: list[dict[str, Any]]) -> set[str]:
    return {f["name"] for f in fields}


def test_the_page_offers_only_the_options_a_style_has(made_up_style: Variant) -> None:
    form = hand_form(make_ctx("toy"))
    kong = next(e for e in form["extras"] if e["type"] == "kong")
    assert "robbed" not in _names(kong["fields"]) and "kind" in _names(kong["fields"])
    assert "after_kong" not in _names(form["event"])
    hainan = hand_form(make_ctx("hainan"))
    assert "robbed" in _names(next(e for e in hainan["extras"] if e["type"] == "kong")["fields"])
    assert "after_kong" in _names(hainan["event"])
