"""Draw the tile keyboard as a phone shows it (message text above, inline buttons below, 360 pt
wide at 2×), to look at it and to list labels too wide for their button. Not a test: a tool.

    .venv/bin/python -m tests.bot.keyboard_png OUT.png [VARIANT] [LANG]

Text in Noto Sans CJK (the noto-cjk-sans-otc package the charts use); symbols it lacks from
DejaVu Sans, and the Unicode mahjong tiles (🀇…) from Symbola where it is installed (Debian's
fonts-symbola); without it they show as boxes, as on a phone without a font for them (the
notation line under them reads the same hand).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import noto_cjk_sans_otc
from PIL import Image, ImageDraw, ImageFont

from bot.entry.keyboard import KeySpec, keys_screen, new_state, press_key
from bot.plumbing.callbacks import Act
from bot.view.i18n import translator

SCALE = 2
WIDTH = 360 * SCALE  # a phone's width in points
PAD = 8 * SCALE
ROW_H = 40 * SCALE
GAP = 4 * SCALE
TEXT_PT = 15 * SCALE
BUTTON_PT = 14 * SCALE
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SYMBOLA = "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"  # Debian's fonts-symbola


def _fonts(cjk: str, size: int) -> tuple[ImageFont.FreeTypeFont, ...]:
    extra = [ImageFont.truetype(f, size) for f in (DEJAVU, SYMBOLA) if Path(f).exists()]
    return (ImageFont.truetype(cjk, size), *extra)


def _has(font: ImageFont.FreeTypeFont, ch: str) -> bool:
    """The font draws `ch` itself, not its missing-glyph box."""
    missing = bytes(font.getmask("\U0010fffd"))
    return ch.isspace() or bytes(font.getmask(ch)) != missing


def _width(text: str, fonts: tuple[ImageFont.FreeTypeFont, ...]) -> float:
    return sum(next((f for f in fonts if _has(f, ch)), fonts[0]).getlength(ch) for ch in text)


def _draw(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str,
          fonts: tuple[ImageFont.FreeTypeFont, ...], fill: tuple[int, int, int]) -> None:
    x, y = xy
    for ch in text:
        font = next((f for f in fonts if _has(f, ch)), fonts[0])
        draw.text((x, y), ch, font=font, fill=fill)
        x += font.getlength(ch)


def render(variant: str, lang: str, cjk: str, out: Path) -> list[str]:
    spec = KeySpec(variant)
    state = new_state()
    for key in ("1m", Act.CHOW, "5p", Act.PUNG, "7s", "8s"):  # 123m (1m, Chow) 555p (5p, Pung)
        press_key(state, spec, key) if isinstance(key, Act) else press_key(
            state, spec, Act.KEY_TILE, key)
    if spec.indicator:
        press_key(state, spec, Act.TURNED)
        press_key(state, spec, Act.KEY_TILE, "4m")
    view = keys_screen(state, spec, translator(lang), lambda act, *a: ":".join(["k", act.code, *a]),
                       translator(lang)("Tiles of {seat}", seat="S Bob"))
    text = re.sub(r"<[^>]+>", "", view.text).replace("&lt;", "<").replace("&gt;", ">")
    tfonts, bfonts = _fonts(cjk, TEXT_PT), _fonts(cjk, BUTTON_PT)
    lines: list[str] = []
    for para in text.split("\n"):  # wrap by width
        line = ""
        for ch in para:
            if _width(line + ch, tfonts) > WIDTH - 4 * PAD:
                lines.append(line)
                line = ""
            line += ch
        lines.append(line)
    text_h = len(lines) * int(TEXT_PT * 1.4) + 2 * PAD
    height = text_h + len(view.rows) * (ROW_H + GAP) + 2 * PAD
    img = Image.new("RGB", (WIDTH, height), (222, 230, 238))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((PAD, PAD, WIDTH - PAD, text_h), 12 * SCALE, fill=(255, 255, 255))
    for i, line in enumerate(lines):
        _draw(draw, (2 * PAD, 1.5 * PAD + i * TEXT_PT * 1.4), line, tfonts, (20, 20, 20))
    too_wide = []
    y = text_h + GAP
    for row in view.rows:
        w = (WIDTH - 2 * PAD - GAP * (len(row) - 1)) / len(row)
        for j, b in enumerate(row):
            x = PAD + j * (w + GAP)
            colour = {"primary": (80, 140, 220), "success": (90, 170, 100),
                      "danger": (210, 90, 90)}.get(b.style or "", (120, 150, 175))
            draw.rounded_rectangle((x, y, x + w, y + ROW_H), 8 * SCALE, fill=colour)
            tw = _width(b.text, bfonts)
            if tw > w - 6 * SCALE:
                too_wide.append(b.text)
            _draw(draw, (x + max((w - tw) / 2, 2), y + (ROW_H - BUTTON_PT) / 2 - 2), b.text,
                  bfonts, (255, 255, 255))
        y += ROW_H + GAP
    img.save(out)
    return too_wide


if __name__ == "__main__":
    args = sys.argv[1:]
    wide = render(args[1] if len(args) > 1 else "hainan", args[2] if len(args) > 2 else "zh-Hans",
                  str(noto_cjk_sans_otc.FONT_PATH), Path(args[0]))
    print("labels too wide:", wide or "none")
