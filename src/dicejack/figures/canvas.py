"""The matplotlib ground every figure of :mod:`dicejack.figures` is drawn on: importing it,
its default style, fixed-size canvases, reproducible PNG bytes, and fast ticks and short texts.

With :mod:`dicejack.figures`, the only module that imports matplotlib, and only on first
drawing (importing it is cheap), never through pyplot: drawing sets no global backend and
registers no figures, each figure gets its own Agg canvas (:func:`new_figure`). Drawing runs
under matplotlib's default style (:func:`default_style`: a user's matplotlibrc cannot change the
pictures), axes are placed in inches (:func:`axes_in_inches`: no tight-layout passes, which
measure every text several times), ticks and short texts are drawn as a few collections instead
of hundreds of artists (:func:`flat_ticks`, :func:`text_collection`: ticks cost most of
matplotlib's time on the report's figures), and PNGs are written without the matplotlib version
in their metadata (:func:`png_bytes`, :func:`save_png`), so the same numbers give the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from dicejack import formats

__all__ = [
    "CLASS_COLORS",
    "REPORT_DPI",
    "PNG_METADATA",
    "mpl",
    "default_style",
    "new_figure",
    "png_bytes",
    "save_png",
    "FIGURE_FORMATS",
    "check_formats",
    "figure_bytes",
    "save_figure",
    "axes_in_inches",
    "glyph_outline",
    "text_collection",
    "flat_ticks",
    "power_of_ten",
]

#: Colours of compare.STATE_CLASSES in the disagreement maps (PNG and SVG alike).
CLASS_COLORS = ("#b7e1a1", "#f0f0f0", "#636363", "#bdbdbd", "#fdd835", "#fb8c00", "#d32f2f")

#: Resolution of the report's PNGs.
REPORT_DPI = 100
#: PNG metadata: none, so that the bytes depend only on the picture (not on the matplotlib version).
PNG_METADATA: dict[str, Any] = {"Software": None}
#: The formats a figure can be written in: PNG for pages, SVG and PDF for papers (vector).
FIGURE_FORMATS = ("png", "svg", "pdf")
#: Metadata per format: none that varies between runs, machines or matplotlib versions (SVG's
#: element ids are salted by a fixed string in :func:`figure_bytes`, not at random).
_METADATA: dict[str, dict[str, Any]] = {
    "png": PNG_METADATA,
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}


# ------------------------------------------------------------------------------ matplotlib
@functools.cache
def mpl() -> SimpleNamespace:
    """The matplotlib pieces used here, imported once, without pyplot (no global backend)."""
    import matplotlib
    import matplotlib.style
    from matplotlib import colors, markers, patches, ticker
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.figure import Figure
    from matplotlib.textpath import TextPath

    return SimpleNamespace(
        mpl=matplotlib, style=matplotlib.style, colors=colors, markers=markers, patches=patches,
        ticker=ticker, Canvas=FigureCanvasAgg, Figure=Figure, LineCollection=LineCollection,
        PathCollection=PathCollection, TextPath=TextPath,
        cmap=matplotlib.colormaps.__getitem__,
    )


@contextlib.contextmanager
def default_style() -> Iterator[SimpleNamespace]:
    """matplotlib's default style for the duration (restored after): the same picture whatever
    the user's matplotlibrc says."""
    m = mpl()
    with m.style.context("default"):
        yield m


def new_figure(m: SimpleNamespace, width: float, height: float) -> Any:
    """A figure of `width` x `height` inches on its own Agg canvas."""
    fig = m.Figure(figsize=(width, height), dpi=REPORT_DPI)
    m.Canvas(fig)
    return fig


def png_bytes(fig: Any, dpi: int = REPORT_DPI, pil_kwargs: dict[str, Any] | None = None) -> bytes:
    """The figure as PNG bytes with no metadata that varies between machines or versions."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata=dict(PNG_METADATA), pil_kwargs=pil_kwargs)
    return buffer.getvalue()


def save_png(fig: Any, path: Path) -> None:
    """Write the figure to `path` as a PNG (atomically), drawn in matplotlib's default style."""
    with default_style():
        data = png_bytes(fig)
    formats.write_atomic(path, data)


def check_formats(names: Sequence[str]) -> tuple[str, ...]:
    """Figure formats as given (e.g. ``("png", "svg")``), lower-cased, each of
    :data:`FIGURE_FORMATS` and none twice, in :data:`FIGURE_FORMATS`' order; ValueError names a
    bad one."""
    given = [str(n).strip().lower().lstrip(".") for n in names]
    bad = [n for n in given if n not in FIGURE_FORMATS]
    if bad:
        raise ValueError(f"unknown figure format {bad[0]!r}; choose from "
                         f"{', '.join(FIGURE_FORMATS)}")
    if not given:
        raise ValueError("no figure format given")
    return tuple(f for f in FIGURE_FORMATS if f in given)


def figure_bytes(fig: Any, fmt: str) -> bytes:
    """The figure in format `fmt` (:data:`FIGURE_FORMATS`) with no metadata that varies between
    runs, machines or versions, drawn in matplotlib's default style (the same numbers, the same
    bytes)."""
    if fmt == "png":
        with default_style():
            return png_bytes(fig)
    if fmt not in FIGURE_FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}")
    m = mpl()
    buffer = io.BytesIO()
    with default_style(), m.mpl.rc_context({"svg.hashsalt": "dicejack", "pdf.compression": 6}):
        fig.savefig(buffer, format=fmt, dpi=REPORT_DPI, metadata=dict(_METADATA[fmt]))
    return buffer.getvalue()


def save_figure(fig: Any, path: Path, fmts: Sequence[str] = ("png",)) -> list[Path]:
    """Write the figure to `path` in each format of `fmts` (the suffix replaced per format;
    atomically); returns the paths written."""
    written = []
    for fmt in fmts:
        target = path.with_suffix("." + fmt)
        formats.write_atomic(target, figure_bytes(fig, fmt))
        written.append(target)
    return written


def axes_in_inches(fig: Any, left: float, bottom: float, width: float, height: float) -> Any:
    """An axes placed in inches from the figure's bottom-left corner (fixed layout)."""
    w, h = fig.get_size_inches()
    return fig.add_axes((left / w, bottom / h, width / w, height / h))


# ------------------------------------------------------------------------------ ticks and texts
@functools.lru_cache(maxsize=512)
def glyph_outline(text: str, size: float) -> tuple[Any, tuple[float, float, float, float]]:
    """The outline of `text` at font size `size` (points, matplotlib's default font) and its box
    (x0, y0, x1, y1) from the outline's points (exact enough to align by, and fast)."""
    path = mpl().TextPath((0, 0), text, size=size)
    v = path.vertices
    return path, (float(v[:, 0].min()), float(v[:, 1].min()), float(v[:, 0].max()),
                  float(v[:, 1].max()))


def text_collection(m: SimpleNamespace, texts: Sequence[str], offsets: Any, transform: Any,
                    colors: Any, *, size: float, ha: str = "center", va: str = "center",
                    shift: tuple[float, float] = (0.0, 0.0)) -> Any:
    """Short texts as ONE artist: a collection of their glyph outlines, text i anchored at
    offsets[i] (in `transform`'s coordinates), aligned by `ha` (left/center/right) and `va`
    (bottom/center/top) and moved by `shift` points.

    matplotlib draws every text (and every tick, which holds one) as its own artist with its own
    layout; a state heatmap has hundreds of them (cell numbers, tick labels), which cost more
    than all the rest of the figure. The outlines are the same letters in the same font."""
    paths = []
    made: dict[str, Any] = {}
    for text in texts:
        if text not in made:
            path, (x0, y0, x1, y1) = glyph_outline(text, size)
            dx = {"left": x0, "center": (x0 + x1) / 2, "right": x1}[ha]
            dy = {"bottom": y0, "center": (y0 + y1) / 2, "top": y1}[va]
            made[text] = path.transformed(
                m.mpl.transforms.Affine2D().translate(shift[0] - dx, shift[1] - dy))
        paths.append(made[text])
    # sizes=[1] scales the paths' points to pixels; they sit at their offsets
    glyphs = m.PathCollection(paths, sizes=[1.0], offsets=offsets, offset_transform=transform,
                              facecolors=colors, edgecolors="none", linewidths=0)
    glyphs.set_transform(m.mpl.transforms.IdentityTransform())
    return glyphs


def flat_ticks(m: SimpleNamespace, ax: Any, *, labelsize: float | None = None,
               grid_alpha: float | None = None) -> None:
    """Draw the ticks of `ax` (bottom x axis, left y axis) as a few artists: per axis, the marks
    as one line of markers, the labels as one collection of glyph outlines
    (:func:`text_collection`) and, with `grid_alpha`, the major grid lines as one line
    collection.

    matplotlib builds every tick from five artists (marks, labels, grid line), each laid out on
    its own; on these figures the ticks cost more than everything else drawn. The ticks here
    are matplotlib's own: its locators' positions and its formatters' labels at the final
    limits, with the default sizes, pads and colours. Call it once the axes' content, limits,
    scales, locators and formatters are final; the limits are frozen where they are."""
    ax.set_xlim(ax.get_xlim())
    ax.set_ylim(ax.get_ylim())
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        _flat_axis_ticks(m, ax, name, axis, labelsize, grid_alpha)


def _flat_axis_ticks(m: SimpleNamespace, ax: Any, name: str, axis: Any,
                     labelsize: float | None, grid_alpha: float | None) -> None:
    """:func:`flat_ticks` for one axis (`name` "x" or "y"): its major then minor ticks, the
    offset text, no locators left, the label pad clear of the tick labels."""
    rc = m.mpl.rcParams
    lo, hi = sorted(axis.get_view_interval())
    slack = (hi - lo) * 1e-10
    size = labelsize if labelsize is not None else m.mpl.font_manager.FontProperties(
        size=rc[f"{name}tick.labelsize"]).get_size_in_points()
    out = rc[f"{name}tick.direction"] == "out"
    color = rc[f"{name}tick.color"]
    along = ax.get_xaxis_transform() if name == "x" else ax.get_yaxis_transform()
    tall = wide = 0.0
    for which in ("major", "minor"):
        locs, labels = _tick_places(axis, which, lo - slack, hi + slack)
        if not len(locs):
            continue
        length = rc[f"{name}tick.{which}.size"]
        away = (length if out else 0.0) + rc[f"{name}tick.{which}.pad"]
        zeros = np.zeros(len(locs))
        xy = (locs, zeros) if name == "x" else (zeros, locs)
        marker = {("x", True): m.markers.TICKDOWN, ("x", False): m.markers.TICKUP,
                  ("y", True): m.markers.TICKLEFT, ("y", False): m.markers.TICKRIGHT}[
            name, out]
        ax.plot(*xy, transform=along, marker=marker, linestyle="none", color=color,
                markersize=length, markeredgewidth=rc[f"{name}tick.{which}.width"],
                clip_on=False, scalex=False, scaley=False, zorder=2.5)
        label_tall, label_wide = _tick_labels(m, ax, name, labels, xy, along, color, size, away)
        tall, wide = max(tall, label_tall), max(wide, label_wide)
        if which == "major" and grid_alpha is not None:
            _grid_lines(m, ax, name, locs, along, grid_alpha)
    offset = axis.get_major_formatter().get_offset()
    if offset:  # e.g. '1e-3' at the end of a ScalarFormatter axis, where matplotlib puts it
        at = (1.0, -tall / 72) if name == "x" else (0.0, 1.0)
        ax.annotate(offset, at, xycoords="axes fraction", fontsize=size, color=color,
                    ha="right" if name == "x" else "left", va="top" if name == "x" else
                    "bottom", xytext=(0, -4) if name == "x" else (0, 4),
                    textcoords="offset points", annotation_clip=False)
    axis.set_major_locator(m.ticker.NullLocator())
    axis.set_minor_locator(m.ticker.NullLocator())
    axis.labelpad = (tall if name == "x" else wide) + rc["axes.labelpad"]


def _tick_places(axis: Any, which: str, lo: float, hi: float) -> tuple[Any, list[str]]:
    """The `which` ("major" or "minor") tick positions of `axis` within [lo, hi] and their
    labels, as matplotlib's locator and formatter give them (no minor tick on a major one)."""
    ticks = axis.major if which == "major" else axis.minor
    locs = np.asarray(ticks.locator(), dtype=float)
    if which == "minor":  # as matplotlib: no minor tick where a major one is
        major = np.asarray(axis.major.locator(), dtype=float)
        locs = locs[~np.isclose(locs[:, None], major[None, :]).any(axis=1)] if len(
            major) else locs
    labels = ticks.formatter.format_ticks(locs) if len(locs) else []
    keep = (locs >= lo) & (locs <= hi)
    return locs[keep], [t for t, k in zip(labels, keep, strict=True) if k]


def _tick_labels(m: SimpleNamespace, ax: Any, name: str, labels: Sequence[str], xy: tuple,
                 along: Any, color: Any, size: float, away: float) -> tuple[float, float]:
    """Draw the non-empty tick labels as one glyph collection, `away` points off the axis;
    returns how tall and wide (points, with `away`) they reach (0, 0 when none)."""
    shown = [(i, t) for i, t in enumerate(labels) if t]
    if not shown:
        return 0.0, 0.0
    text = (dict(ha="center", va="top", shift=(0.0, -away)) if name == "x" else
            dict(ha="right", va="center", shift=(-away, 0.0)))
    glyphs = text_collection(m, [t for _, t in shown],
                             np.column_stack(xy)[[i for i, _ in shown]], along,
                             color, size=size, **text)
    glyphs.set_clip_on(False)
    ax.add_collection(glyphs, autolim=False)
    boxes = [glyph_outline(t, size)[1] for _, t in shown]
    return (away + max(y1 - y0 for _, y0, _, y1 in boxes),
            away + max(x1 - x0 for x0, _, x1, _ in boxes))


def _grid_lines(m: SimpleNamespace, ax: Any, name: str, locs: Any, along: Any,
                grid_alpha: float) -> None:
    """The major grid lines at `locs` as one line collection, under the content."""
    rc = m.mpl.rcParams
    ends = np.array([0.0, 1.0])
    segments = [np.column_stack((np.full(2, v), ends)) if name == "x" else
                np.column_stack((ends, np.full(2, v))) for v in locs]
    ax.add_collection(m.LineCollection(
        segments, transform=along, colors=rc["grid.color"], alpha=grid_alpha,
        linewidths=rc["grid.linewidth"], linestyles=rc["grid.linestyle"],
        zorder=1.5), autolim=False)


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076"
                             "\u2077\u2078\u2079")


def power_of_ten(value: float, _pos: Any = None) -> str:
    """A log axis label: '10⁴' for 10^4, as matplotlib writes it but in plain text (its
    math-text engine costs a quarter of a second to start); other values as '%g'."""
    if value > 0:
        k = round(math.log10(value))
        if math.isclose(value, 10.0**k, rel_tol=1e-9):
            return "10" + str(k).translate(_SUPERSCRIPT)
    return f"{value:g}"
