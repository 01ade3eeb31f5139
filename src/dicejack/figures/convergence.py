"""The convergence report's figures: the curves of the metrics against games played (one curve
per :class:`Series`, e.g. one per M, with its 95% band over seeds) and the heatmaps of the optimal
and learned tables (one seed's, and the share over seeds). Each figure has a builder returning the
matplotlib Figure (:func:`curves_figure`, :func:`optimal_figure`, :func:`learned_figure`,
:func:`seeds_figure`) and a writer (``plot_*``); :func:`plot_figures` writes a report's whole set.
Drawn on :mod:`dicejack.figures.canvas` (matplotlib on first drawing, fixed layouts, same bytes for
the same numbers).
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from dicejack import formats
from dicejack.compare.learned import Learned
from dicejack.compare.metrics import STATE_CLASSES, state_classes
from dicejack.compare.truth import Truth
from dicejack.figures.canvas import (
    CLASS_COLORS,
    axes_in_inches,
    check_formats,
    default_style,
    flat_ticks,
    mpl,
    new_figure,
    power_of_ten,
    save_figure,
    text_collection,
)
from dicejack.formats.numbers import stated
from dicejack.games.handout_rules import Game

__all__ = [
    "Band",
    "Series",
    "Panel",
    "LearnedFigure",
    "CURVE_FIGURES",
    "CURVE_STYLES",
    "curves_figure",
    "optimal_figure",
    "learned_figure",
    "seeds_figure",
    "curves_csv",
    "plot_curves",
    "plot_optimal",
    "plot_learned",
    "plot_seeds",
    "plot_figures",
]


#: (mean, low, high) of one metric per checkpoint: a curve and its 95% band.
Band = tuple[np.ndarray, np.ndarray, np.ndarray]

#: Line styles of the curves: the first ten series solid in tab10's colours, the next ten dashed
#: in the same colours, and so on (every series stays distinguishable).
CURVE_STYLES = ("-", "--", ":", "-.")


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
    #: With logy, for a metric that reaches 0 (regret, exploitability): a log axis down to the
    #: decade of the smallest positive mean, linear below it, so 0 stays on the plot.
    zero: bool = False
    #: The range a band is cut at, drawn and in the CSV (the default: a share or a
    #: probability; a payoff or a gain of another game says its own).
    band: tuple[float, float] = (0.0, 1.0)


def _zero_axis_range(series: Sequence[Series], metric: str) -> tuple[float, float, bool]:
    """The y range of a `zero` panel, spent on the data: (bottom, top, reaches_zero).

    bottom: a little under the smallest positive mean drawn (or the smallest positive band end,
    when it is not far below); top: a little over the highest mean or band end. reaches_zero:
    some mean is 0, so the axis must show 0 (linear from 0 to `bottom`, a tenth of a decade)."""
    means = np.concatenate([np.asarray(s.bands[metric][0], dtype=float) for s in series])
    ends = np.concatenate([np.asarray(s.bands[metric][k], dtype=float)
                           for s in series for k in (1, 2)])
    finite = means[np.isfinite(means)]
    positive = finite[finite > 0]
    if positive.size == 0:
        return 1e-3, 1e-2, True
    low = float(positive.min())
    near = ends[np.isfinite(ends) & (ends > low / 10) & (ends < low)]
    bottom = float(min(low, near.min() if near.size else low)) / 1.3
    high = np.concatenate([positive, ends[np.isfinite(ends) & (ends > 0)]])
    top = float(high.max()) * 1.3
    return bottom, max(top, bottom * 10), bool((finite == 0).any())


def _zero_axis(m: SimpleNamespace, ax: Any, series: Sequence[Series], metric: str) -> None:
    """A log y axis for a metric that can reach 0 (regret, exploitability), its height spent on
    the data: from just under the smallest positive value to just over the highest; when some
    mean is 0, a short linear stretch down to 0 (symlog) keeps it on the plot."""
    bottom, top, zero = _zero_axis_range(series, metric)
    if zero:  # 0, then the log ticks over the data (none crowding 0)
        ax.set_yscale("symlog", linthresh=bottom, linscale=0.3)
        ticks = m.ticker.LogLocator(subs=(1.0, 2.0, 5.0)).tick_values(bottom, top)
        ax.yaxis.set_major_locator(m.ticker.FixedLocator(
            [0.0, *(v for v in ticks if bottom * 1.5 <= v <= top)]))
        ax.set_ylim(0, top)
    else:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(m.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.set_ylim(bottom, top)
    ax.yaxis.set_major_formatter(m.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(m.ticker.NullFormatter())


@dataclass(frozen=True, eq=False)
class LearnedFigure:
    """Learned tables to draw with :func:`plot_learned`: its file name in the figures folder,
    the title of its policy panel and its caption in the report."""

    name: str
    title: str
    caption: str
    tables: Learned
    #: Every seed's tables (the first is `tables`' run): with two or more, a second figure
    #: beside it (``<name>_seeds.png``, :func:`seeds_figure`) shows them averaged over seeds.
    runs: tuple[Learned, ...] = ()
    #: The caption of that figure in the report.
    seeds_caption: str = ""


# ------------------------------------------------------------------------------ heatmap parts
def _state_axes(ax: Any, low: int, title: str) -> None:
    """Title, axis labels and ticks of an LxL state heatmap (rows X, columns Y), drawn after
    its image."""
    m = mpl()
    ax.set_title(title, fontsize=10, parse_math=False)
    ax.set_xlabel("Y (opponent's score)")
    ax.set_ylabel("X (mover's score)")
    states = m.ticker.FixedLocator(np.arange(0, low, 1 if low <= 20 else 5))
    ax.xaxis.set_major_locator(states)  # not set_xticks: it builds a Tick per position
    ax.yaxis.set_major_locator(states)
    flat_ticks(m, ax, labelsize=7)


def _class_image(ax: Any, codes: np.ndarray, legend: Sequence[int]) -> Any:
    """compare.state_classes codes in CLASS_COLORS, with a legend of the classes `legend`."""
    m = mpl()
    cmap = m.colors.ListedColormap(list(CLASS_COLORS))
    norm = m.colors.BoundaryNorm(np.arange(-0.5, len(CLASS_COLORS) + 0.5), cmap.N)
    image = ax.imshow(codes, cmap=cmap, norm=norm, interpolation="nearest")
    ax.legend(
        handles=[m.patches.Patch(color=CLASS_COLORS[c], label=STATE_CLASSES[c])
                 for c in legend],
        loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
    )
    return image


def _cell_numbers(ax: Any, labels: np.ndarray, dark: np.ndarray, fontsize: float = 6) -> None:
    """A label in the middle of each cell of an LxL heatmap ('' for none), white on dark cells
    and black on light ones (one artist: see :func:`~dicejack.figures.canvas.text_collection`)."""
    cells = [(x, y) for (x, y), text in np.ndenumerate(labels) if text]
    if cells:
        m = mpl()
        ax.add_collection(text_collection(
            m, [labels[c] for c in cells], [(y, x) for x, y in cells], ax.transData,
            ["white" if dark[c] else "black" for c in cells], size=fontsize,
        ), autolim=False)


def _policy_image(ax: Any, cax: Any, best: np.ndarray, k: int,
                  ties: np.ndarray | None = None) -> None:
    """Best J per state (0 = no data, 1..K dice), numbered when the board is small; `ties`
    marks states where several J are optimal with a '*'. The colour bar goes into `cax`."""
    m = mpl()
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
    m = mpl()
    cmap = m.cmap("viridis").with_extremes(bad="#d9d9d9")
    im = ax.imshow(np.ma.masked_less(p, 0), cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    bar = ax.figure.colorbar(im, cax=cax)
    bar.set_label("win probability" + (" (grey: no data)" if (p < 0).any() else ""))


# Fixed heatmap layout, inches: margins, the square map, its colour bar, the gaps that hold the
# colour bar's labels and the next map's y label.
_MAP_SIDE, _MAP_LEFT, _MAP_BOTTOM, _MAP_TOP = 3.6, 0.65, 0.6, 0.4
_BAR_PAD, _BAR_WIDTH, _BAR_GAP, _BAR_TAIL = 0.12, 0.18, 1.3, 1.0


#: Most characters on one line of a heatmap's title (10 pt, centred over a map with the left
#: margin on either side); a longer title (a learner with many parameters) wraps.
_TITLE_CHARS = 60
#: Height of one more title line, inches.
_TITLE_LINE = 0.18


def _wrap_title(title: str) -> str:
    """`title` wrapped at :data:`_TITLE_CHARS` (never cut: a long word stays whole)."""
    return textwrap.fill(title, _TITLE_CHARS, break_long_words=False, break_on_hyphens=False)


def _heatmap_row(m: SimpleNamespace, bars: Sequence[bool], tail: float,
                 title_lines: int = 1) -> tuple[Any, list, list]:
    """A figure of square heatmap axes side by side, each followed by a colour-bar axes where
    `bars` says so, and `tail` inches on the right (e.g. for a legend), with room above for
    titles of `title_lines` lines; returns (figure, map axes, colour-bar axes or None)."""
    widths = []  # of each map with what follows it: its colour bar and labels, or a gap
    for i, bar in enumerate(bars):
        last = i == len(bars) - 1
        labels = (_BAR_TAIL + tail if last else _BAR_GAP) if bar else (tail if last else 0.8)
        widths.append(_MAP_SIDE + (_BAR_PAD + _BAR_WIDTH if bar else 0.0) + labels)
    width = _MAP_LEFT + sum(widths)
    fig = new_figure(m, width, _MAP_BOTTOM + _MAP_SIDE + _MAP_TOP
                     + _TITLE_LINE * (max(title_lines, 1) - 1))
    maps, caxes = [], []
    left = _MAP_LEFT
    for bar, w in zip(bars, widths, strict=True):
        maps.append(axes_in_inches(fig, left, _MAP_BOTTOM, _MAP_SIDE, _MAP_SIDE))
        caxes.append(axes_in_inches(fig, left + _MAP_SIDE + _BAR_PAD, _MAP_BOTTOM, _BAR_WIDTH,
                                    _MAP_SIDE) if bar else None)
        left += w
    return fig, maps, caxes


# ------------------------------------------------------------------------------ the report
# Curves layout, inches: panel height, right and bottom margins, the room left of each panel
# beyond its tick labels and y label, and the least panel width.
_CURVE_W, _CURVE_H = 4.6, 3.8
_CURVE_RIGHT, _CURVE_BOTTOM, _CURVE_PAD = 0.15, 0.55, 0.12


#: Most series whose legend sits inside the first panel; more go in columns below the panels
#: (inside, they would cover the curves and run off the canvas).
_LEGEND_INSIDE = 8


def _legend_below(series: Sequence[Series], width: float) -> tuple[int, float]:
    """(columns, height in inches) of a legend of `series` in columns under the panels."""
    label = max(len(s.label) for s in series) * 0.075 + 0.6  # inches per column, 8 pt
    columns = max(1, min(len(series), int((width - 0.3) // label)))
    return columns, math.ceil(len(series) / columns) * 0.19 + 0.2


def _place_panels(axes: Sequence[Any], width: float, height: float, bottom: float,
                  top: float) -> None:
    """Place the panels side by side, each with room on its left for its tick labels and y label
    exactly as drawn (:func:`~dicejack.figures.canvas.flat_ticks` set each y axis' label pad to
    its tick labels' width), so that no label is cut at the figure's edge or runs into the panel
    before it; the panels share the width that is left."""
    lefts = []
    for ax in axes:
        label = ax.yaxis.label
        line = label.get_fontsize() * 1.25 if label.get_text() else 0.0  # points
        lefts.append((ax.yaxis.labelpad + line) / 72 + _CURVE_PAD)
    panel = (width - sum(lefts) - _CURVE_RIGHT) / len(axes)
    x = 0.0
    for ax, left in zip(axes, lefts, strict=True):
        x += left
        ax.set_position((x / width, bottom / height, panel / width,
                         (_CURVE_H - _CURVE_BOTTOM - top) / height))
        x += panel


def curves_figure(
    games: Sequence[int],
    series: Sequence[Series],
    panels: Sequence[Panel],
    *,
    suptitle: str = "",
    xlabel: str = "games played (NGAMES)",
) -> Any:
    """A matplotlib Figure: one panel per :class:`Panel`, one curve per :class:`Series` with its
    95% band over seeds (cut at the panel's `band` range), against the game counts `games` (log
    scale, labelled `xlabel`); the legend on the first
    panel (under the panels, in columns, beyond :data:`_LEGEND_INSIDE` series). Series take
    tab10's colours in turn, and :data:`CURVE_STYLES` after every ten. :func:`plot_curves`
    writes it."""
    with default_style() as m:
        n = len(panels)
        width = _CURVE_W * n
        top = 0.65 if suptitle else 0.35
        below = len(series) > _LEGEND_INSIDE
        columns, legend = _legend_below(series, width) if below else (1, 0.0)
        height = _CURVE_H + legend
        fig = new_figure(m, width, height)
        axes = fig.subplots(1, n, squeeze=False)[0]
        colors = m.cmap("tab10").colors
        x = np.array(games, dtype=float)
        for p, (ax, panel) in enumerate(zip(axes, panels, strict=True)):
            for c, s in enumerate(series):
                mean, lo, hi = s.bands[panel.metric]
                color = colors[c % len(colors)]
                style = CURVE_STYLES[(c // len(colors)) % len(CURVE_STYLES)]
                ax.plot(x, mean, marker="o", ms=3, color=color, linestyle=style, label=s.label)
                band = np.isfinite(lo) & np.isfinite(hi)
                if band.any():  # cut at the metric's range (a share: [0, 1])
                    ax.fill_between(x, np.clip(np.where(band, lo, mean), *panel.band),
                                    np.clip(np.where(band, hi, mean), *panel.band),
                                    color=color, alpha=0.2, linewidth=0)
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(m.ticker.FuncFormatter(power_of_ten))
            if panel.logy and panel.zero:
                _zero_axis(m, ax, series, panel.metric)
            elif panel.logy:
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(m.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(m.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.yaxis.set_minor_formatter(m.ticker.NullFormatter())
            if panel.ylim is not None:
                ax.set_ylim(*panel.ylim)
            if panel.hline is not None:
                ax.axhline(panel.hline, color="0.4", linestyle="--", linewidth=1)
            ax.set_title(panel.title, fontsize=10, parse_math=False)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(panel.ylabel)
            if p == 0 and not below:
                ax.legend(fontsize=8, loc="best")
            flat_ticks(m, ax, grid_alpha=0.3)
        _place_panels(axes, width, height, _CURVE_BOTTOM + legend, top)
        if below:
            handles, labels = axes[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="lower center", ncols=columns, fontsize=8,
                       frameon=False, bbox_to_anchor=(0.5, 0.08 / height))
        if suptitle:
            fig.suptitle(suptitle, fontsize=11, y=1 - 0.12 / height, va="top", parse_math=False)
    return fig


def curves_csv(games: Sequence[int], series: Sequence[Series], panels: Sequence[Panel]) -> str:
    """The numbers a curves figure draws, as CSV (header ``series,metric,games,mean,low,high``,
    one row per curve, panel and game count; the band's ends as drawn, cut at the panel's
    `band` range ([0, 1] unless it says another), empty
    where there is no band; numbers at 12 significant digits,
    :func:`dicejack.formats.numbers.stated`), to redraw the figure elsewhere."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series", "metric", "games", "mean", "low", "high"])

    def text(v: float) -> str:
        return repr(stated(v)) if math.isfinite(v) else ""

    for panel in panels:
        for s in series:
            mean, lo, hi = (np.asarray(b, dtype=float) for b in s.bands[panel.metric])
            for i, g in enumerate(games):
                band = math.isfinite(lo[i]) and math.isfinite(hi[i])
                least, most = panel.band
                w.writerow([s.label, panel.metric, int(g), text(mean[i]),
                            text(min(max(lo[i], least), most)) if band else "",
                            text(min(max(hi[i], least), most)) if band else ""])
    return buf.getvalue()


def optimal_figure(t: Truth) -> Any:
    """A matplotlib Figure: heatmaps of the optimal policy (lowest optimal J) and of P*."""
    with default_style() as m:
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
    with default_style() as m:
        low = t.game.low
        title = _wrap_title(title)
        fig, (policy, p, classes), (policy_bar, p_bar, _) = _heatmap_row(
            m, (True, True, False), 2.2, title.count("\n") + 1)
        _policy_image(policy, policy_bar, learned.best, t.game.n_dice)
        _state_axes(policy, low, title)
        _probability_image(p, p_bar, learned.probability)
        _state_axes(p, low, "Learned estimate of the win probability")
        codes = state_classes(t, learned)
        _class_image(classes, codes, np.unique(codes).tolist())
        _state_axes(classes, low, "Learned vs optimal policy")
    return fig


def seeds_figure(t: Truth, runs: Sequence[Learned]) -> Any:
    """A matplotlib Figure: a series' learned tables over all its seeds, per state: the share of
    seeds whose learned J is optimal (grey: unreachable or lost states, where any J is as good)
    and the mean learned estimate of the win probability (over the seeds with an estimate
    there; grey where none has one). One seed's map shows that run; this one shows which states
    a learner gets right reliably."""
    if not runs:
        raise ValueError("no seeds to average")
    with default_style() as m:
        low = t.game.low
        n = len(runs)
        agree = np.mean([state_classes(t, r) == 0 for r in runs], axis=0)
        agree = np.where(t.lost | ~t.reachable, np.nan, agree)
        counts = np.sum([r.has_estimate for r in runs], axis=0)
        total = np.sum([np.where(r.has_estimate, r.probability, 0.0) for r in runs], axis=0)
        mean_p = np.where(counts > 0, total / np.maximum(counts, 1), -1.0)
        fig, (share, p), (share_bar, p_bar) = _heatmap_row(m, (True, True), 0.0)
        cmap = m.cmap("RdYlGn").with_extremes(bad="#d9d9d9")
        im = share.imshow(np.ma.masked_invalid(agree), cmap=cmap, vmin=0, vmax=1,
                          interpolation="nearest")
        bar = fig.colorbar(im, cax=share_bar)
        bar.set_label("share of seeds (grey: unreachable or lost)")
        _state_axes(share, low, f"Learned J optimal, share of {n} seeds")
        _probability_image(p, p_bar, mean_p)
        _state_axes(p, low, f"Learned estimate, mean over {n} seeds")
    return fig


def plot_curves(path: Path, games: Sequence[int], series: Sequence[Series],
                panels: Sequence[Panel], *, suptitle: str = "",
                fmts: Sequence[str] = ("png",), xlabel: str = "games played (NGAMES)") -> None:
    """Write :func:`curves_figure` to `path` in each format of `fmts` (the suffix per format)
    and the numbers it draws beside it (:func:`curves_csv`, `path` with suffix .csv)."""
    save_figure(curves_figure(games, series, panels, suptitle=suptitle, xlabel=xlabel), path,
                fmts)
    formats.write_atomic(path.with_suffix(".csv"), curves_csv(games, series, panels))


def plot_optimal(t: Truth, path: Path, fmts: Sequence[str] = ("png",)) -> None:
    """Write :func:`optimal_figure` to `path` in each format of `fmts`."""
    save_figure(optimal_figure(t), path, fmts)


def plot_learned(t: Truth, learned: Learned, title: str, path: Path,
                 fmts: Sequence[str] = ("png",)) -> None:
    """Write :func:`learned_figure` to `path` in each format of `fmts`."""
    save_figure(learned_figure(t, learned, title), path, fmts)


def plot_seeds(t: Truth, runs: Sequence[Learned], path: Path,
               fmts: Sequence[str] = ("png",)) -> None:
    """Write :func:`seeds_figure` to `path` in each format of `fmts`."""
    save_figure(seeds_figure(t, runs), path, fmts)


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
              logy=True, zero=True),
        Panel("weighted_regret", "regret weighted by optimal visits", "weighted P* - Q*",
              logy=True, zero=True),
        Panel("score_vs_optimal", "learned greedy vs optimal (both seats)",
              "score (0.5 = optimal)", hline=0.5),
        Panel("exploitability", "exploitability (best response, both seats)",
              "beyond the game's value", logy=True, zero=True),
    ), "Cost of the learned policy"),
)


def plot_figures(
    folder: Path,
    t: Truth,
    games: Sequence[int],
    series: Sequence[Series],
    learned: Sequence[LearnedFigure],
    fmts: Sequence[str] = ("png",),
) -> list[tuple[str, str]]:
    """Every figure of a convergence report into `folder`, in each format of `fmts` (PNG
    always: the report shows it), each curves figure's numbers beside it as CSV; returns
    (caption, PNG path relative to the report) pairs, in the report's order.

    series: the curves of every panel of :data:`CURVE_FIGURES`, their bands given per game
    count in `games`; learned: the learned tables drawn, one figure each, and one over all
    seeds beside it when there are several.
    """
    fmts = check_formats(("png", *fmts))
    folder.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, str]] = []
    for name, caption, panels, suptitle in CURVE_FIGURES:
        plot_curves(folder / name, games, series, panels, suptitle=suptitle, fmts=fmts)
        figs.append((caption, f"figures/{name}"))
    plot_optimal(t, folder / "optimal.png", fmts)
    figs.append(("Optimal policy and P*", "figures/optimal.png"))
    for item in learned:
        plot_learned(t, item.tables, item.title, folder / item.name, fmts)
        figs.append((item.caption, f"figures/{item.name}"))
        if len(item.runs) > 1:
            name = f"{Path(item.name).stem}_seeds.png"
            plot_seeds(t, item.runs, folder / name, fmts)
            figs.append((item.seeds_caption or f"{item.caption}, over {len(item.runs)} seeds",
                         f"figures/{name}"))
    return figs
