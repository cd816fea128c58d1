"""English texts issue 37 found wrong, checked where they are made: one wording for an exhausted
wall in every style, counted phrases in the singular for one, the backup's account of a
restore."""

from __future__ import annotations

from bot.entry.hu.examples import example_ctx
from bot.entry.screens import label
from bot.view.i18n import LANGS, catalog, translator
from bot.view.render import hands_count, plural
from db.backup import Restored, describe
from scoring.variant import Variant, all_variants

RUNNING = ("Running totals over {n} hand", "Running totals over {n} hands")


def test_every_style_says_wall_exhausted(made_up_style: Variant) -> None:
    """The wizard's button and the lines name an exhausted wall the same in every style (not
    "Exhausted wall" in one and "Wall exhausted" in another)."""
    for variant in all_variants().values():
        assert label(example_ctx(variant, "en"), "exhausted").casefold() == "wall exhausted", \
            variant.name


def test_a_counted_phrase_is_singular_for_one_and_chinese_has_one_form() -> None:
    t = translator("en")
    assert [plural(t, n, RUNNING) for n in (0, 1, 2)] == [
        "Running totals over 0 hands", "Running totals over 1 hand", "Running totals over 2 hands"]
    assert hands_count(t, 1) == "1 hand"
    for lang in LANGS[:2]:
        one, many = (catalog(lang)[m] for m in RUNNING)
        assert one == many, lang  # no plural in Chinese: the same words for one and many
        expected = "1 局累计得分" if lang == "zh-Hans" else "1 局累計得分"
        assert plural(translator(lang), 1, RUNNING) == expected


def test_the_restore_account_counts_in_the_singular_for_one() -> None:
    line = describe(Restored("sqlite:///x", "0001", "0001", 1, 1, 2, 0.5))
    assert line.startswith("restored 1 chat, 1 session, 2 hands into sqlite:///x"), line
