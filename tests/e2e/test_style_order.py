"""Every list of the styles a player sees follows the registry's order (`ORDER` in
scoring/variants/__init__.py, any other style after those): /new's buttons, /help and the
greeting's codes, the bot's command menu, and the page's list (tests/web/test_api.py)."""

from __future__ import annotations

from scoring.variant import Variant, all_variants, in_lang
from scoring.variants import ORDER
from tests.fake_telegram import FakeTelegram

from .table import Table


def expected() -> list[Variant]:
    """ORDER, then the styles it does not name (the made-up one) by name: written out here
    rather than read from `listed()`, so the test checks that function too."""
    known = all_variants()
    return [known[n] for n in ORDER] + [v for n, v in sorted(known.items()) if n not in ORDER]


async def test_new_offers_the_styles_in_the_registrys_order(made_up_style: Variant, bot: object,
                                                             table: Table) -> None:
    alice = table.players[0]
    styles = expected()
    assert styles[-1] is made_up_style and len(styles) == len(ORDER) + 1
    asking = await table.say(alice, "/new")
    assert asking.button_labels == [in_lang(v.title, "en") for v in styles]


async def test_help_names_the_styles_in_the_registrys_order(made_up_style: Variant, bot: object,
                                                            table: Table) -> None:
    text = (await table.say(table.players[0], "/help")).text
    assert ", ".join(v.name for v in expected()) in text, text[:400]


async def test_the_command_menu_names_the_styles_in_the_registrys_order(bot: object,
                                                                         tg: FakeTelegram) -> None:
    menus = [r.params for r in tg.requests_for("setMyCommands")]
    assert menus, "the bot sets its command menu at start"
    names = "|".join(v.name for v in expected())
    for params in menus:
        assert any(names in c["description"] for c in params["commands"]), params


def test_order_names_every_registered_style_once() -> None:
    """A style added in its folder takes its place in ORDER (the one line outside its folder)."""
    assert len(set(ORDER)) == len(ORDER)
    assert set(ORDER) == set(all_variants())
