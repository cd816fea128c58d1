"""Charts of running balances as PNG bytes, ready to send as a Telegram photo.

Only `Figure` objects with an explicit Agg canvas: no pyplot, no global rcParams changes, so charts
can be drawn from worker threads. Player names are often Chinese, so text is set in Noto Sans CJK,
which ships with the package `noto-cjk-sans-otc` (a dependency: no system font is needed or
looked for), with DejaVu Sans (shipped with matplotlib) after it for any glyph it lacks.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping, Sequence
from functools import lru_cache

import noto_cjk_sans_otc
from matplotlib import colormaps, font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import MaxNLocator

CJK_FAMILY = "Noto Sans CJK SC"  # one face of the shipped collection; it has 繁體 glyphs too
FALLBACK_FONT = "DejaVu Sans"  # ships with matplotlib

SIZE_INCHES = (8.0, 4.5)
DPI = 100


# Charts are drawn in worker threads; addfont registers the collection face by face, so a
# second chart could see the file's first face but not yet our family.
_REGISTERING = threading.Lock()


@lru_cache(maxsize=1)
def cjk_font_family() -> str:
    """The CJK family charts use, registered from the shipped font file on first use."""
    path = str(noto_cjk_sans_otc.FONT_PATH)
    with _REGISTERING:
        manager = font_manager.fontManager
        if not any(font.fname == path for font in manager.ttflist):
            manager.addfont(path)
        if not any(font.name == CJK_FAMILY for font in manager.ttflist):
            raise RuntimeError(f"{path} holds no {CJK_FAMILY}")
    return CJK_FAMILY


def _font(size: float | None = None) -> FontProperties:
    return FontProperties(family=[cjk_font_family(), FALLBACK_FONT], size=size)


def build_balance_figure(
    series: Mapping[str, Sequence[int]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    level_breaks: Sequence[int] = (),
    x: Sequence[int] | None = None,
) -> Figure:
    """One line per player over hand numbers; dashed verticals where a level ended.

    `series[name][k]` is the balance after hand k, so item 0 is the start (0, or the balance at the
    start of a level); `level_breaks` are hand numbers after which a level ended. A long session
    comes downsampled: then `x[k]` is the hand number of `series[name][k]`.
    """
    figure = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()

    palette = colormaps["tab10" if len(series) <= 10 else "tab20"]
    lines = []
    for index, (name, balances) in enumerate(series.items()):
        xs = range(len(balances)) if x is None else list(x)
        lines += axes.plot(xs, list(balances), label=name, color=palette(index % palette.N),
                           linewidth=1.8, marker="o" if len(balances) <= 30 else None,
                           markersize=3)
    for hand in level_breaks:
        axes.axvline(hand, color="grey", linestyle="--", linewidth=1)
    axes.axhline(0, color="black", linewidth=0.6)

    # names and titles are text: "$\\frac$" is a player's name, not mathematics to typeset
    axes.set_title(title, fontproperties=_font(13), parse_math=False)
    axes.set_xlabel(x_label, fontproperties=_font(), parse_math=False)
    axes.set_ylabel(y_label, fontproperties=_font(), parse_math=False)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.tick_params(labelfontfamily=_font().get_family())
    axes.grid(True, alpha=0.3)
    if series:  # the legend sits outside on the right so lines are never hidden
        # labels given with their lines: a name starting with "_" is shown, not skipped
        legend = axes.legend(lines, list(series), loc="upper left", bbox_to_anchor=(1.01, 1),
                             borderaxespad=0, prop=_font(9),
                             ncols=1 if len(series) <= 12 else 2, frameon=False)
        for text in legend.get_texts():
            text.set_parse_math(False)
    return figure


def render_balance_chart(
    series: Mapping[str, Sequence[int]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    level_breaks: Sequence[int] = (),
    x: Sequence[int] | None = None,
) -> bytes:
    """The chart of `build_balance_figure` as PNG bytes."""
    figure = build_balance_figure(series, title=title, x_label=x_label, y_label=y_label,
                                  level_breaks=level_breaks, x=x)
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png")
    finally:
        figure.clear()  # no pyplot manager holds it: dropping references frees it
    return buffer.getvalue()
