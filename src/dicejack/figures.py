"""Every figure dicejack draws, and the only module that imports matplotlib.

Owns drawing, not deciding what to draw from: callers pass numbers and tables. For the convergence
report, :func:`plot_figures` draws the curves of the metrics against games played (one curve per
:class:`Series`, e.g. one per M, with its 95% band over seeds) and the heatmaps of the optimal and
learned tables; each figure has a builder returning the matplotlib Figure (:func:`curves_figure`,
:func:`optimal_figure`, :func:`learned_figure`) and a writer (``plot_*``). For grading,
:class:`SubmissionHeatmaps` draws one figure per submission (built once, only its data changes):
where its policy differs from the optimal one, and where its estimate sits among the reference
runs.

All heatmaps share one orientation: rows X (the mover's score), columns Y (the opponent's),
<0,0> top left.

How it stays fast and reproducible: matplotlib is imported on first drawing (importing this
module is cheap) and never through pyplot, so drawing sets no global backend and registers no
figures: each figure gets its own Agg canvas. Drawing runs under matplotlib's default style (a
user's matplotlibrc cannot change the pictures), every layout is fixed in inches (no
tight-layout passes, which measure every text several times), ticks and the per-cell numbers of
a small heatmap are drawn as a few collections instead of hundreds of artists (ticks cost most
of matplotlib's time on these figures), and PNGs are written without the matplotlib version in
their metadata, so the same numbers give the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from dicejack import compare, formats
from dicejack.compare import Learned, Truth
from dicejack.game import Game

__all__ = [
    "CLASS_COLORS",
    "Band",
    "Series",
    "Panel",
    "LearnedFigure",
    "REPORT_DPI",
    "PNG_METADATA",
    "CURVE_FIGURES",
    "CURVE_STYLES",
    "curves_figure",
    "optimal_figure",
    "learned_figure",
    "plot_curves",
    "plot_optimal",
    "plot_learned",
    "plot_figures",
    "SubmissionHeatmaps",
]

#: Colours of compare.STATE_CLASSES in the disagreement maps.
CLASS_COLORS = ("#b7e1a1", "#f0f0f0", "#636363", "#bdbdbd", "#fdd835", "#fb8c00", "#d32f2f")

#: (mean, low, high) of one metric per checkpoint: a curve and its 95% band.
Band = tuple[np.ndarray, np.ndarray, np.ndarray]

#: Line styles of the curves: the first ten series solid in tab10's colours, the next ten dashed
#: in the same colours, and so on (every series stays distinguishable).
CURVE_STYLES = ("-", "--", ":", "-.")

#: Resolution of the report's PNGs.
REPORT_DPI = 100
#: PNG metadata: none, so that the bytes depend only on the picture (not on the matplotlib version).
PNG_METADATA: dict[str, Any] = {"Software": None}


@dataclass(frozen=True, eq=False)
class Series:
    """One curve on every convergence panel: its legend label (e.g. "M = 100", or a learner's
    name) and, per metric name, its (mean, low, high) per game count."""

    label: str
    bands: Mapping[str, Band]


@dataclass(frozen=True)
class Panel:
    """One panel of a curves figure: the metric drawn, title, y label and axis options."""

    metric: str
    title: str
    ylabel: str
    logy: bool = False
    ylim: tuple[float, float] | None = None
    hline: float | None = None


@dataclass(frozen=True, eq=False)
class LearnedFigure:
    """Learned tables to draw with :func:`plot_learned`: its file name in the figures folder,
    the title of its policy panel and its caption in the report."""

    name: str
    title: str
    caption: str
    tables: Learned


# ------------------------------------------------------------------------------ matplotlib
@functools.cache
def _mpl() -> SimpleNamespace:
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
def _style() -> Iterator[SimpleNamespace]:
    """matplotlib's default style for the duration (restored after): the same picture whatever
    the user's matplotlibrc says."""
    m = _mpl()
    with m.style.context("default"):
        yield m


def _figure(m: SimpleNamespace, width: float, height: float) -> Any:
    """A figure of `width` x `height` inches on its own Agg canvas."""
    fig = m.Figure(figsize=(width, height), dpi=REPORT_DPI)
    m.Canvas(fig)
    return fig


def _png(fig: Any, dpi: int = REPORT_DPI, pil_kwargs: dict[str, Any] | None = None) -> bytes:
    """The figure as PNG bytes with no metadata that varies between machines or versions."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata=dict(PNG_METADATA), pil_kwargs=pil_kwargs)
    return buffer.getvalue()


def _save(fig: Any, path: Path) -> None:
    """Write the figure to `path` as a PNG (atomically), drawn in matplotlib's default style."""
    with _style():
        data = _png(fig)
    formats.write_atomic(path, data)


def _axes_in_inches(fig: Any, left: float, bottom: float, width: float, height: float) -> Any:
    """An axes placed in inches from the figure's bottom-left corner (fixed layout)."""
    w, h = fig.get_size_inches()
    return fig.add_axes((left / w, bottom / h, width / w, height / h))


# ------------------------------------------------------------------------------ heatmap parts
@functools.lru_cache(maxsize=512)
def _glyph(text: str, size: float) -> tuple[Any, tuple[float, float, float, float]]:
    """The outline of `text` at font size `size` (points, matplotlib's default font) and its box
    (x0, y0, x1, y1) from the outline's points (exact enough to align by, and fast)."""
    path = _mpl().TextPath((0, 0), text, size=size)
    v = path.vertices
    return path, (float(v[:, 0].min()), float(v[:, 1].min()), float(v[:, 0].max()),
                  float(v[:, 1].max()))


def _glyphs(m: SimpleNamespace, texts: Sequence[str], offsets: Any, transform: Any,
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
            path, (x0, y0, x1, y1) = _glyph(text, size)
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


def _flat_ticks(m: SimpleNamespace, ax: Any, *, labelsize: float | None = None,
                grid_alpha: float | None = None) -> None:
    """Draw the ticks of `ax` (bottom x axis, left y axis) as a few artists: per axis, the marks
    as one line of markers, the labels as one collection of glyph outlines (:func:`_glyphs`)
    and, with `grid_alpha`, the major grid lines as one line collection.

    matplotlib builds every tick from five artists (marks, labels, grid line), each laid out on
    its own; on these figures the ticks cost more than everything else drawn. The ticks here
    are matplotlib's own: its locators' positions and its formatters' labels at the final
    limits, with the default sizes, pads and colours. Call it once the axes' content, limits,
    scales, locators and formatters are final; the limits are frozen where they are."""
    rc = m.mpl.rcParams
    ax.set_xlim(ax.get_xlim())
    ax.set_ylim(ax.get_ylim())
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        lo, hi = sorted(axis.get_view_interval())
        slack = (hi - lo) * 1e-10
        size = labelsize if labelsize is not None else m.mpl.font_manager.FontProperties(
            size=rc[f"{name}tick.labelsize"]).get_size_in_points()
        out = rc[f"{name}tick.direction"] == "out"
        color = rc[f"{name}tick.color"]
        along = ax.get_xaxis_transform() if name == "x" else ax.get_yaxis_transform()
        tall = wide = 0.0
        for which in ("major", "minor"):
            ticks = axis.major if which == "major" else axis.minor
            locs = np.asarray(ticks.locator(), dtype=float)
            if which == "minor":  # as matplotlib: no minor tick where a major one is
                major = np.asarray(axis.major.locator(), dtype=float)
                locs = locs[~np.isclose(locs[:, None], major[None, :]).any(axis=1)] if len(
                    major) else locs
            labels = ticks.formatter.format_ticks(locs) if len(locs) else []
            keep = (locs >= lo - slack) & (locs <= hi + slack)
            locs, labels = locs[keep], [t for t, k in zip(labels, keep, strict=True) if k]
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
            shown = [(i, t) for i, t in enumerate(labels) if t]
            if shown:
                text = (dict(ha="center", va="top", shift=(0.0, -away)) if name == "x" else
                        dict(ha="right", va="center", shift=(-away, 0.0)))
                glyphs = _glyphs(m, [t for _, t in shown],
                                 np.column_stack(xy)[[i for i, _ in shown]], along, color,
                                 size=size, **text)
                glyphs.set_clip_on(False)
                ax.add_collection(glyphs, autolim=False)
                boxes = [_glyph(t, size)[1] for _, t in shown]
                tall = max(tall, away + max(y1 - y0 for _, y0, _, y1 in boxes))
                wide = max(wide, away + max(x1 - x0 for x0, _, x1, _ in boxes))
            if which == "major" and grid_alpha is not None:
                ends = np.array([0.0, 1.0])
                segments = [np.column_stack((np.full(2, v), ends)) if name == "x" else
                            np.column_stack((ends, np.full(2, v))) for v in locs]
                ax.add_collection(m.LineCollection(
                    segments, transform=along, colors=rc["grid.color"], alpha=grid_alpha,
                    linewidths=rc["grid.linewidth"], linestyles=rc["grid.linestyle"],
                    zorder=1.5), autolim=False)
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


def _state_axes(ax: Any, low: int, title: str) -> None:
    """Title, axis labels and ticks of an LxL state heatmap (rows X, columns Y), drawn after
    its image."""
    m = _mpl()
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("Y (opponent's score)")
    ax.set_ylabel("X (mover's score)")
    states = m.ticker.FixedLocator(np.arange(0, low, 1 if low <= 20 else 5))
    ax.xaxis.set_major_locator(states)  # not set_xticks: it builds a Tick per position
    ax.yaxis.set_major_locator(states)
    _flat_ticks(m, ax, labelsize=7)


def _class_image(ax: Any, codes: np.ndarray, legend: Sequence[int]) -> Any:
    """compare.state_classes codes in CLASS_COLORS, with a legend of the classes `legend`."""
    m = _mpl()
    cmap = m.colors.ListedColormap(list(CLASS_COLORS))
    norm = m.colors.BoundaryNorm(np.arange(-0.5, len(CLASS_COLORS) + 0.5), cmap.N)
    image = ax.imshow(codes, cmap=cmap, norm=norm, interpolation="nearest")
    ax.legend(
        handles=[m.patches.Patch(color=CLASS_COLORS[c], label=compare.STATE_CLASSES[c])
                 for c in legend],
        loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
    )
    return image


def _cell_numbers(ax: Any, labels: np.ndarray, dark: np.ndarray, fontsize: float = 6) -> None:
    """A label in the middle of each cell of an LxL heatmap ('' for none), white on dark cells
    and black on light ones (one artist: see :func:`_glyphs`)."""
    cells = [(x, y) for (x, y), text in np.ndenumerate(labels) if text]
    if cells:
        m = _mpl()
        ax.add_collection(_glyphs(
            m, [labels[c] for c in cells], [(y, x) for x, y in cells], ax.transData,
            ["white" if dark[c] else "black" for c in cells], size=fontsize,
        ), autolim=False)


def _policy_image(ax: Any, cax: Any, best: np.ndarray, k: int,
                  ties: np.ndarray | None = None) -> None:
    """Best J per state (0 = no data, 1..K dice), numbered when the board is small; `ties`
    marks states where several J are optimal with a '*'. The colour bar goes into `cax`."""
    m = _mpl()
    low = best.shape[0]
    viridis = m.cmap("viridis")
    shades = [viridis(v) for v in np.linspace(0.2, 0.9, k)]
    cmap = m.colors.ListedColormap(["#d9d9d9", *shades])
    norm = m.colors.BoundaryNorm(np.arange(-0.5, k + 1.5), cmap.N)
    im = ax.imshow(best, cmap=cmap, norm=norm, interpolation="nearest")
    has_none = bool((best == 0).any())
    ticks = list(range(0 if has_none else 1, k + 1))
    bar = ax.figure.colorbar(im, cax=cax, ticks=ticks)
    if not has_none:
        bar.ax.set_ylim(0.5, k + 0.5)
    bar.ax.set_yticklabels(["no data" if j == 0 else Game.dice_label(j) for j in ticks],
                           fontsize=8)
    if low <= 20:
        rgb = cmap(np.clip(best, 0, k))[..., :3]
        dark = rgb @ np.array([0.299, 0.587, 0.114]) < 0.5
        star = np.zeros(best.shape, bool) if ties is None else np.asarray(ties, bool)
        labels = np.where(best > 0, best.astype(str), "")
        labels = np.where((best > 0) & star, np.char.add(labels, "*"), labels)
        _cell_numbers(ax, labels, dark)


def _probability_image(ax: Any, cax: Any, p: np.ndarray) -> None:
    """Win probability per state; -1 (no estimate) in grey. The colour bar goes into `cax`."""
    m = _mpl()
    cmap = m.cmap("viridis").with_extremes(bad="#d9d9d9")
    im = ax.imshow(np.ma.masked_less(p, 0), cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    bar = ax.figure.colorbar(im, cax=cax)
    bar.set_label("win probability" + (" (grey: no data)" if (p < 0).any() else ""))


# Fixed heatmap layout, inches: margins, the square map, its colour bar, the gaps that hold the
# colour bar's labels and the next map's y label.
_MAP_SIDE, _MAP_LEFT, _MAP_BOTTOM, _MAP_TOP = 3.6, 0.65, 0.6, 0.4
_BAR_PAD, _BAR_WIDTH, _BAR_GAP, _BAR_TAIL = 0.12, 0.18, 1.3, 1.0


def _heatmap_row(m: SimpleNamespace, bars: Sequence[bool], tail: float) -> tuple[Any, list, list]:
    """A figure of square heatmap axes side by side, each followed by a colour-bar axes where
    `bars` says so, and `tail` inches on the right (e.g. for a legend); returns (figure, map
    axes, colour-bar axes or None)."""
    widths = []  # of each map with what follows it: its colour bar and labels, or a gap
    for i, bar in enumerate(bars):
        last = i == len(bars) - 1
        labels = (_BAR_TAIL + tail if last else _BAR_GAP) if bar else (tail if last else 0.8)
        widths.append(_MAP_SIDE + (_BAR_PAD + _BAR_WIDTH if bar else 0.0) + labels)
    width = _MAP_LEFT + sum(widths)
    fig = _figure(m, width, _MAP_BOTTOM + _MAP_SIDE + _MAP_TOP)
    maps, caxes = [], []
    left = _MAP_LEFT
    for bar, w in zip(bars, widths, strict=True):
        maps.append(_axes_in_inches(fig, left, _MAP_BOTTOM, _MAP_SIDE, _MAP_SIDE))
        caxes.append(_axes_in_inches(fig, left + _MAP_SIDE + _BAR_PAD, _MAP_BOTTOM, _BAR_WIDTH,
                                     _MAP_SIDE) if bar else None)
        left += w
    return fig, maps, caxes


# ------------------------------------------------------------------------------ the report
_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076"
                             "\u2077\u2078\u2079")


def _power_of_ten(value: float, _pos: Any = None) -> str:
    """A log axis label: '10⁴' for 10^4, as matplotlib writes it but in plain text (its
    math-text engine costs a quarter of a second to start); other values as '%g'."""
    if value > 0:
        k = round(math.log10(value))
        if math.isclose(value, 10.0**k, rel_tol=1e-9):
            return "10" + str(k).translate(_SUPERSCRIPT)
    return f"{value:g}"


# Fixed curves layout, inches: panel size, margins, and the gap between panels.
_CURVE_W, _CURVE_H = 4.6, 3.8
_CURVE_LEFT, _CURVE_RIGHT, _CURVE_BOTTOM, _CURVE_GAP = 0.75, 0.15, 0.55, 0.85


def curves_figure(
    games: Sequence[int],
    series: Sequence[Series],
    panels: Sequence[Panel],
    *,
    suptitle: str = "",
) -> Any:
    """A matplotlib Figure: one panel per :class:`Panel`, one curve per :class:`Series` with its
    95% band over seeds, against the game counts `games` (log scale); the legend on the first
    panel. Series take tab10's colours in turn, and :data:`CURVE_STYLES` after every ten.
    :func:`plot_curves` writes it."""
    with _style() as m:
        n = len(panels)
        width = _CURVE_W * n
        top = 0.65 if suptitle else 0.35
        fig = _figure(m, width, _CURVE_H)
        axes = fig.subplots(1, n, squeeze=False)[0]
        panel_w = (width - _CURVE_LEFT - _CURVE_RIGHT - (n - 1) * _CURVE_GAP) / n
        fig.subplots_adjust(left=_CURVE_LEFT / width, right=1 - _CURVE_RIGHT / width,
                            bottom=_CURVE_BOTTOM / _CURVE_H, top=1 - top / _CURVE_H,
                            wspace=_CURVE_GAP / panel_w)
        colors = m.cmap("tab10").colors
        x = np.array(games, dtype=float)
        for p, (ax, panel) in enumerate(zip(axes, panels, strict=True)):
            for c, s in enumerate(series):
                mean, lo, hi = s.bands[panel.metric]
                color = colors[c % len(colors)]
                style = CURVE_STYLES[(c // len(colors)) % len(CURVE_STYLES)]
                ax.plot(x, mean, marker="o", ms=3, color=color, linestyle=style, label=s.label)
                band = np.isfinite(lo) & np.isfinite(hi)
                if band.any():  # every plotted metric lies in [0, 1]; so does its band
                    ax.fill_between(x, np.clip(np.where(band, lo, mean), 0, 1),
                                    np.clip(np.where(band, hi, mean), 0, 1),
                                    color=color, alpha=0.2, linewidth=0)
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(m.ticker.FuncFormatter(_power_of_ten))
            if panel.logy:
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(m.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(m.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.yaxis.set_minor_formatter(m.ticker.NullFormatter())
            if panel.ylim is not None:
                ax.set_ylim(*panel.ylim)
            if panel.hline is not None:
                ax.axhline(panel.hline, color="0.4", linestyle="--", linewidth=1)
            ax.set_title(panel.title, fontsize=10)
            ax.set_xlabel("games played (NGAMES)")
            ax.set_ylabel(panel.ylabel)
            if p == 0:
                ax.legend(fontsize=8, loc="best")
            _flat_ticks(m, ax, grid_alpha=0.3)
        if suptitle:
            fig.suptitle(suptitle, fontsize=11, y=1 - 0.12 / _CURVE_H, va="top")
    return fig


def optimal_figure(t: Truth) -> Any:
    """A matplotlib Figure: heatmaps of the optimal policy (lowest optimal J) and of P*."""
    with _style() as m:
        fig, (policy, p), (policy_bar, p_bar) = _heatmap_row(m, (True, True), 0.0)
        sol = t.solution
        low = t.game.low
        ties = sol.optimal[:, :, 1:].sum(axis=2) > 1
        note = " (* = several J optimal)" if ties.any() and low <= 20 else ""
        _policy_image(policy, policy_bar, sol.best, t.game.n_dice, ties)
        _state_axes(policy, low, f"Optimal policy: lowest optimal J{note}")
        _probability_image(p, p_bar, sol.p)
        _state_axes(p, low, "P*: win probability under optimal play")
    return fig


def learned_figure(t: Truth, learned: Learned, title: str) -> Any:
    """A matplotlib Figure: heatmaps of a learned policy (titled `title`) and its estimate, and
    where it disagrees with optimal play (marking unreachable, lost and near-tie states: the
    handout's caveats)."""
    with _style() as m:
        low = t.game.low
        fig, (policy, p, classes), (policy_bar, p_bar, _) = _heatmap_row(
            m, (True, True, False), 2.2)
        _policy_image(policy, policy_bar, learned.best, t.game.n_dice)
        _state_axes(policy, low, title)
        _probability_image(p, p_bar, learned.probability)
        _state_axes(p, low, "Learned estimate of the win probability")
        codes = compare.state_classes(t, learned)
        _class_image(classes, codes, np.unique(codes).tolist())
        _state_axes(classes, low, "Learned vs optimal policy")
    return fig


def plot_curves(path: Path, games: Sequence[int], series: Sequence[Series],
                panels: Sequence[Panel], *, suptitle: str = "") -> None:
    """Write :func:`curves_figure` to `path` (PNG)."""
    _save(curves_figure(games, series, panels, suptitle=suptitle), path)


def plot_optimal(t: Truth, path: Path) -> None:
    """Write :func:`optimal_figure` to `path` (PNG)."""
    _save(optimal_figure(t), path)


def plot_learned(t: Truth, learned: Learned, title: str, path: Path) -> None:
    """Write :func:`learned_figure` to `path` (PNG)."""
    _save(learned_figure(t, learned, title), path)


#: The panels of the report's three curves figures: (file name, caption, panels, suptitle).
CURVE_FIGURES: tuple[tuple[str, str, tuple[Panel, ...], str], ...] = (
    ("agreement.png", "Agreement with the optimal policy", tuple(
        Panel(metric, title, "agreement with optimal policy", ylim=(0, 1.02))
        for metric, title in (("agreement_all", "all states"),
                              ("agreement_onpath", "on-path states"),
                              ("agreement_decisive", "decisive states"))
    ), "Share of states where the learned best J is optimal (mean and 95% band over seeds)"),
    ("probability_error.png", "Probability error", (
        Panel("rmse_onpath", "estimate vs P* (on-path)", "RMSE", logy=True),
        Panel("rmse_q_onpath", "estimate vs Q*(s, learned J) (on-path)", "RMSE", logy=True),
    ), "Error of the learned win probability"),
    ("regret.png", "Regret and score against the optimal player", (
        Panel("regret_decisive", "regret on decisive states", "mean P* - Q*(s, learned J)",
              hline=0.0),
        Panel("weighted_regret", "regret weighted by optimal visits", "weighted P* - Q*",
              hline=0.0),
        Panel("score_vs_optimal", "learned greedy vs optimal (both seats)",
              "score (0.5 = optimal)", hline=0.5),
    ), "Cost of the learned policy"),
)


def plot_figures(
    folder: Path,
    t: Truth,
    games: Sequence[int],
    series: Sequence[Series],
    learned: Sequence[LearnedFigure],
) -> list[tuple[str, str]]:
    """Every figure of a convergence report into `folder`; returns (caption, path relative to
    the report) pairs, in the report's order.

    series: the curves of every panel of :data:`CURVE_FIGURES`, their bands given per game
    count in `games`; learned: the learned tables drawn, one figure each.
    """
    folder.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, str]] = []
    for name, caption, panels, suptitle in CURVE_FIGURES:
        plot_curves(folder / name, games, series, panels, suptitle=suptitle)
        figs.append((caption, f"figures/{name}"))
    plot_optimal(t, folder / "optimal.png")
    figs.append(("Optimal policy and P*", "figures/optimal.png"))
    for item in learned:
        plot_learned(t, item.tables, item.title, folder / item.name)
        figs.append((item.caption, f"figures/{item.name}"))
    return figs


# ------------------------------------------------------------------------------ grading
class SubmissionHeatmaps:
    """Two heatmaps per graded submission, side by side: its policy against the optimal one
    (compare.state_classes codes) and its estimate's normal score among the reference runs.

    The figure is built once and only its data and title change per submission (building a
    matplotlib figure costs more than rendering one)::

        with SubmissionHeatmaps(game) as maps:
            maps.draw(classes, scores, "alice.txt: 91.0 / 100, pass", Path("alice.png"))
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        with _style() as m:
            blank = np.zeros(game.shape)
            fig = m.Figure(figsize=(13, 4.8))
            m.Canvas(fig)
            axes = fig.subplots(1, 2)
            self._classes = _class_image(axes[0], blank, range(len(CLASS_COLORS)))
            _state_axes(axes[0], game.low, "Printed policy vs optimal")
            self._scores = axes[1].imshow(
                np.ma.masked_invalid(blank), cmap=m.cmap("RdBu_r").with_extremes(bad="#d9d9d9"),
                vmin=-2.5, vmax=2.5, interpolation="nearest",
            )
            bar = fig.colorbar(self._scores, ax=axes[1], fraction=0.046, pad=0.04)
            bar.set_label("estimate's normal score among reference runs")
            _state_axes(axes[1], game.low, "Estimate vs reference runs (red: higher, blue: lower)")
            self._title = fig.suptitle("", fontsize=11)
            fig.subplots_adjust(left=0.05, right=0.94, bottom=0.12, top=0.86, wspace=0.75)
        self._fig = fig

    def draw(self, classes: np.ndarray, scores: np.ndarray, title: str, path: Path) -> None:
        """Write one submission's heatmaps to `path` (PNG, atomically).

        classes: (L, L) compare.state_classes codes; scores: (L, L) normal scores of the
        estimates among the reference runs, NaN (grey) where there is not enough data.
        """
        for name, table in (("classes", classes), ("scores", scores)):
            if np.shape(table) != self.game.shape:
                raise ValueError(f"the {name} table is {np.shape(table)}, not {self.game.shape}")
        self._classes.set_data(classes)
        self._scores.set_data(np.ma.masked_invalid(scores))
        self._title.set_text(title)
        with _style():
            data = _png(self._fig, dpi=90, pil_kwargs={"compress_level": 3})
        formats.write_atomic(path, data)

    def close(self) -> None:
        """Release the figure (kept for callers; it is not registered anywhere global)."""
        self._fig.clear()

    def __enter__(self) -> SubmissionHeatmaps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
