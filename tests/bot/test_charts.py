"""Balance charts: PNG bytes, the players in the legend, Chinese text without missing glyphs."""

from __future__ import annotations

import io
import warnings

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import imread

from bot.view import charts
from bot.view.charts import DPI, SIZE_INCHES, build_balance_figure, cjk_font_family, render_balance_chart

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SERIES = {"张三": [0, 5, -3, 10, 12], "李四": [0, -5, 3, 2, -4], "Bob": [0, 0, 0, -12, -8]}
LABELS = {"title": "慈溪 第一局", "x_label": "局数", "y_label": "分数"}


def missing_glyph_warnings(draw) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw()
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_render_returns_png_of_the_chart_size():
    png = render_balance_chart(SERIES, level_breaks=[2], **LABELS)
    assert png.startswith(PNG_SIGNATURE)
    height, width, _ = imread(io.BytesIO(png), format="png").shape
    assert (width, height) == (SIZE_INCHES[0] * DPI, SIZE_INCHES[1] * DPI)


def test_legend_names_the_players_and_lines_follow_the_series():
    figure = build_balance_figure(SERIES, level_breaks=[2, 4], **LABELS)
    (axes,) = figure.axes
    assert [t.get_text() for t in axes.get_legend().get_texts()] == list(SERIES)
    lines = {line.get_label(): line for line in axes.get_lines()}
    for name, balances in SERIES.items():
        assert list(lines[name].get_ydata()) == balances
        assert list(lines[name].get_xdata()) == list(range(len(balances)))
    breaks = [line for line in axes.get_lines() if line.get_linestyle() == "--"]
    assert sorted(line.get_xdata()[0] for line in breaks) == [2, 4]
    assert axes.get_title() == LABELS["title"]
    assert axes.get_xlabel() == LABELS["x_label"] and axes.get_ylabel() == LABELS["y_label"]


def test_many_players_and_empty_series_render():
    many = {f"玩家{i}": [0, i, -i] for i in range(16)}
    assert render_balance_chart(many, **LABELS).startswith(PNG_SIGNATURE)
    assert render_balance_chart({}, **LABELS).startswith(PNG_SIGNATURE)
    assert build_balance_figure({}, **LABELS).axes[0].get_legend() is None


def test_glyph_check_detects_a_font_without_chinese():
    """The check below means something: DejaVu Sans alone has no Chinese glyphs."""
    figure = Figure()
    FigureCanvasAgg(figure)
    figure.suptitle("张三", fontfamily="DejaVu Sans")
    assert missing_glyph_warnings(lambda: figure.savefig(io.BytesIO(), format="png"))


def test_chinese_renders_without_missing_glyphs():
    """With nothing but the package's dependencies: the shipped CJK font draws every glyph of
    Chinese names and labels, simplified and traditional (a missing one fails, never skips)."""
    assert cjk_font_family() == "Noto Sans CJK SC"
    series = {**SERIES, "陳大文": [0, 1, 2, 3, -6], "−13 ±0": [0, -13, 0, 0, 0]}
    labels = {"title": "慈溪冲级 · 第 4 局（慈谿衝級）", "x_label": "局數", "y_label": "颗 / 顆"}
    assert missing_glyph_warnings(lambda: render_balance_chart(series, level_breaks=[2],
                                                               **labels)) == []


def test_the_chart_font_is_the_shipped_file_not_a_system_font():
    import noto_cjk_sans_otc
    from matplotlib import font_manager

    chosen = font_manager.findfont(charts._font(), fallback_to_default=False)
    assert chosen == str(noto_cjk_sans_otc.FONT_PATH)


def test_first_charts_drawn_at_once_all_find_the_font(monkeypatch):
    """Charts are drawn in worker threads: two chats' first /chart at the same time. The shipped
    collection is registered face by face; a second thread that saw the file's first face but
    not yet the family failed the chart ("Something went wrong"), found by the fault run."""
    import threading
    from types import SimpleNamespace

    from matplotlib import font_manager

    first_face_in, release = threading.Event(), threading.Event()

    class SlowManager:  # registers the collection's faces one by one, like FontManager.addfont
        def __init__(self) -> None:
            self.ttflist: list[SimpleNamespace] = []

        def addfont(self, path: str) -> None:
            self.ttflist.append(SimpleNamespace(fname=path, name="Noto Sans CJK JP"))
            first_face_in.set()
            release.wait(10)
            self.ttflist.append(SimpleNamespace(fname=path, name=charts.CJK_FAMILY))

    monkeypatch.setattr(font_manager, "fontManager", SlowManager())
    cjk_font_family.cache_clear()
    results: list[object] = []

    def draw() -> None:
        try:
            results.append(cjk_font_family())
        except Exception as exc:  # the failure under test
            results.append(exc)

    try:
        first = threading.Thread(target=draw)
        first.start()
        assert first_face_in.wait(10)
        second = threading.Thread(target=draw)
        second.start()
        second.join(0.5)  # without the fix it fails at once; with it, it waits for the first
        release.set()
        first.join(10)
        second.join(10)
    finally:
        release.set()
        cjk_font_family.cache_clear()  # the real font manager again for the other tests
    assert results == [charts.CJK_FAMILY, charts.CJK_FAMILY], results


def test_chinese_draws_with_every_system_font_hidden(monkeypatch, tmp_path):
    """As in the image, which installs no font: matplotlib sees only its own fonts (no system
    font at all, CJK or not) and a chart with Chinese names still draws every glyph, from the
    package's file. The chart is kept in test-artefacts/ to look at."""
    from pathlib import Path

    import matplotlib
    import noto_cjk_sans_otc
    from matplotlib import font_manager

    own = matplotlib.get_data_path()
    manager = font_manager.fontManager
    monkeypatch.setattr(manager, "ttflist", [f for f in manager.ttflist if f.fname.startswith(own)])
    monkeypatch.setattr(manager, "afmlist", [f for f in manager.afmlist if f.fname.startswith(own)])
    # left: no font with Chinese glyphs (matplotlib's Last Resort maps every character to a box)
    assert not [f.fname for f in manager.ttflist if not f.name.startswith("Last Resort")
                and ord("张") in font_manager.get_font(f.fname).get_charmap()]
    font_manager.FontManager._findfont_cached.cache_clear()
    cjk_font_family.cache_clear()
    try:
        series = {"张三": [0, 5, -3, 10], "陳大文": [0, -5, 3, -2], "Bob": [0, 0, 0, -8]}
        labels = {"title": "贵阳 第 3 局（貴陽）", "x_label": "局數", "y_label": "分数"}
        chosen = font_manager.findfont(charts._font(), fallback_to_default=False)
        assert chosen == str(noto_cjk_sans_otc.FONT_PATH)
        drawn: list[bytes] = []
        assert missing_glyph_warnings(lambda: drawn.append(render_balance_chart(
            series, **labels))) == []
        out = Path(__file__).resolve().parents[2] / "test-artefacts"
        out.mkdir(exist_ok=True)
        (out / "chart-without-system-fonts.png").write_bytes(drawn[0])
    finally:
        monkeypatch.undo()  # the real font lists again, before the caches forget these
        font_manager.FontManager._findfont_cached.cache_clear()
        cjk_font_family.cache_clear()


def test_the_image_installs_no_font():
    """The charts' font comes with the package (noto-cjk-sans-otc), so the Dockerfile installs
    no system font package that nothing uses."""
    from pathlib import Path

    dockerfile = (Path(__file__).resolve().parents[2] / "deploy" / "Dockerfile").read_text()
    assert "fonts-" not in dockerfile and "apt-get install" not in dockerfile


def test_names_are_text_not_mathematics(tmp_path):
    """A player named `$\\frac$` (mathtext that cannot be typeset) or `_Eve` (a label the legend
    would skip) is drawn as written: the chart renders, and the legend names every player."""
    series = {"$\\frac$": [0, 5, -5], "_Eve": [0, -5, 5], "a $x^2$ b": [0, 0, 0], "李四": [0, 0, 0]}
    labels = {"title": "$\\frac$ night", "x_label": "hand", "y_label": "$points"}
    png = render_balance_chart(series, **labels)
    assert png.startswith(PNG_SIGNATURE)
    (tmp_path / "names.png").write_bytes(png)
    figure = build_balance_figure(series, **labels)
    (axes,) = figure.axes
    texts = axes.get_legend().get_texts()
    assert [t.get_text() for t in texts] == list(series)
    assert not any(t.get_parse_math() for t in texts)
    assert not axes.title.get_parse_math()
