"""Every figure dicejack draws, and the only module that imports matplotlib.

Owns drawing, not deciding what to draw from: callers pass numbers and tables. For the convergence
report, :func:`plot_figures` draws the curves of the metrics against games played (one curve per
M, with its 95% band over seeds) and the heatmaps of the optimal and learned tables
(:func:`plot_optimal`, :func:`plot_learned`). For grading, :class:`SubmissionHeatmaps` draws one
figure per submission: where its policy differs from the optimal one, and where its estimate sits
among the reference runs.

All heatmaps share one orientation: rows X (the mover's score), columns Y (the opponent's),
<0,0> top left. matplotlib (Agg backend, no display) is imported on first drawing, so importing
this module is cheap.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dicejack import compare, formats
from dicejack.compare import Learned, Truth
from dicejack.game import Game

__all__ = [
    "CLASS_COLORS",
    "Band",
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


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ------------------------------------------------------------------------------ heatmap parts
def _state_axes(ax: Any, low: int, title: str) -> None:
    """Title, axis labels and ticks of an LxL state heatmap (rows X, columns Y)."""
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("Y (opponent's score)")
    ax.set_ylabel("X (mover's score)")
    step = 1 if low <= 20 else 5
    ax.set_xticks(range(0, low, step))
    ax.set_yticks(range(0, low, step))
    ax.tick_params(labelsize=7)


def _class_image(ax: Any, codes: np.ndarray, legend: Sequence[int]) -> Any:
    """compare.state_classes codes in CLASS_COLORS, with a legend of the classes `legend`."""
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    cmap = ListedColormap(list(CLASS_COLORS))
    norm = BoundaryNorm(np.arange(-0.5, len(CLASS_COLORS) + 0.5), cmap.N)
    image = ax.imshow(codes, cmap=cmap, norm=norm, interpolation="nearest")
    ax.legend(
        handles=[Patch(color=CLASS_COLORS[c], label=compare.STATE_CLASSES[c]) for c in legend],
        loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
    )
    return image


def _policy_image(ax: Any, fig: Any, best: np.ndarray, k: int,
                  ties: np.ndarray | None = None) -> None:
    """Best J per state (0 = no data, 1..K dice), numbered when the board is small; `ties`
    marks states where several J are optimal with a '*'."""
    from matplotlib.colors import BoundaryNorm, ListedColormap

    plt = _plt()
    low = best.shape[0]
    shades = [plt.get_cmap("viridis")(v) for v in np.linspace(0.2, 0.9, k)]
    cmap = ListedColormap(["#d9d9d9", *shades])
    norm = BoundaryNorm(np.arange(-0.5, k + 1.5), cmap.N)
    im = ax.imshow(best, cmap=cmap, norm=norm, interpolation="nearest")
    has_none = bool((best == 0).any())
    ticks = list(range(0 if has_none else 1, k + 1))
    bar = fig.colorbar(im, ax=ax, ticks=ticks, fraction=0.046, pad=0.03)
    if not has_none:
        bar.ax.set_ylim(0.5, k + 0.5)
    bar.ax.set_yticklabels(["no data" if j == 0 else Game.dice_label(j) for j in ticks],
                           fontsize=8)
    if low <= 20:
        for x in range(low):
            for y in range(low):
                j = int(best[x, y])
                if j > 0:
                    r, g, b, _ = cmap(j)
                    dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                    tie = ties is not None and bool(ties[x, y])
                    ax.text(y, x, f"{j}*" if tie else str(j), ha="center", va="center",
                            fontsize=6, color="white" if dark else "black")


def _probability_image(ax: Any, fig: Any, p: np.ndarray) -> None:
    """Win probability per state; -1 (no estimate) in grey."""
    plt = _plt()
    cmap = plt.get_cmap("viridis").with_extremes(bad="#d9d9d9")
    im = ax.imshow(np.ma.masked_less(p, 0), cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("win probability" + (" (grey: no data)" if (p < 0).any() else ""))


# ------------------------------------------------------------------------------ the report
def plot_curves(
    path: Path,
    games: Sequence[int],
    ms: Sequence[float],
    metric: Callable[[float, str], Band],
    panels: Sequence[tuple[str, str, str]],
    *,
    logy: Sequence[bool] = (),
    ylim: Sequence[tuple[float, float] | None] = (),
    hline: Sequence[float | None] = (),
    suptitle: str = "",
) -> None:
    """One panel per (metric, title, y label): one curve per M with its 95% band over seeds;
    metric(m, name) gives the (mean, low, high) per game count."""
    plt = _plt()
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), squeeze=False)
    colors = plt.get_cmap("tab10").colors
    x = np.array(games, dtype=float)
    for p, (name, title, ylabel) in enumerate(panels):
        ax = axes[0, p]
        for c, m in enumerate(ms):
            mean, lo, hi = metric(m, name)
            color = colors[c % len(colors)]
            ax.plot(x, mean, marker="o", ms=3, color=color, label=f"M = {m:g}")
            band = np.isfinite(lo) & np.isfinite(hi)
            if band.any():  # every plotted metric lies in [0, 1]; so does its band
                ax.fill_between(x, np.clip(np.where(band, lo, mean), 0, 1),
                                np.clip(np.where(band, hi, mean), 0, 1),
                                color=color, alpha=0.2, linewidth=0)
        ax.set_xscale("log")
        if p < len(logy) and logy[p]:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
        if p < len(ylim) and ylim[p] is not None:
            ax.set_ylim(*ylim[p])
        if p < len(hline) and hline[p] is not None:
            ax.axhline(hline[p], color="0.4", linestyle="--", linewidth=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("games played (NGAMES)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        if p == 0:
            ax.legend(fontsize=8, loc="best")
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_optimal(t: Truth, path: Path) -> None:
    """Heatmaps of the optimal policy (lowest optimal J) and of P*."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.4))
    sol = t.solution
    low = t.game.low
    ties = sol.optimal[:, :, 1:].sum(axis=2) > 1
    note = " (* = several J optimal)" if ties.any() and low <= 20 else ""
    _policy_image(axes[0], fig, sol.best, t.game.n_dice, ties)
    _state_axes(axes[0], low, f"Optimal policy: lowest optimal J{note}")
    _probability_image(axes[1], fig, sol.p)
    _state_axes(axes[1], low, "P*: win probability under optimal play")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_learned(t: Truth, learned: Learned, title: str, path: Path) -> None:
    """Heatmaps of a learned policy (titled `title`) and its estimate, and where it disagrees
    with optimal play (marking unreachable, lost and near-tie states: the handout's caveats)."""
    plt = _plt()
    low = t.game.low
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6))
    _policy_image(axes[0], fig, learned.best, t.game.n_dice)
    _state_axes(axes[0], low, title)
    _probability_image(axes[1], fig, learned.probability)
    _state_axes(axes[1], low, "Learned estimate of the win probability")
    codes = compare.state_classes(t, learned)
    _class_image(axes[2], codes, sorted(set(np.unique(codes).tolist())))
    _state_axes(axes[2], low, "Learned vs optimal policy")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_figures(
    folder: Path,
    t: Truth,
    games: Sequence[int],
    ms: Sequence[float],
    metric: Callable[[float, str], Band],
    learned: Mapping[float, tuple[int, Learned]],
) -> list[tuple[str, str]]:
    """Every figure of a convergence report into `folder`; returns (caption, path relative to
    the report) pairs, in the report's order.

    metric(m, name): (mean, low, high) of a metric per game count in `games`, over seeds.
    learned[m]: (seed, tables after the last game count) of the run drawn for each M.
    """
    folder.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, str]] = []
    plot_curves(folder / "agreement.png", games, ms, metric, [
        ("agreement_all", "all states", "agreement with optimal policy"),
        ("agreement_onpath", "on-path states", "agreement with optimal policy"),
        ("agreement_decisive", "decisive states", "agreement with optimal policy"),
    ], ylim=[(0, 1.02)] * 3, suptitle="Share of states where the learned best J is optimal "
        "(mean and 95% band over seeds)")
    figs.append(("Agreement with the optimal policy", "figures/agreement.png"))
    plot_curves(folder / "probability_error.png", games, ms, metric, [
        ("rmse_onpath", "estimate vs P* (on-path)", "RMSE"),
        ("rmse_q_onpath", "estimate vs Q*(s, learned J) (on-path)", "RMSE"),
    ], logy=[True, True], suptitle="Error of the learned win probability")
    figs.append(("Probability error", "figures/probability_error.png"))
    plot_curves(folder / "regret.png", games, ms, metric, [
        ("regret_decisive", "regret on decisive states", "mean P* - Q*(s, learned J)"),
        ("weighted_regret", "regret weighted by optimal visits", "weighted P* - Q*"),
        ("score_vs_optimal", "learned greedy vs optimal (both seats)", "score (0.5 = optimal)"),
    ], hline=[0.0, 0.0, 0.5], suptitle="Cost of the learned policy")
    figs.append(("Regret and score against the optimal player", "figures/regret.png"))
    plot_optimal(t, folder / "optimal.png")
    figs.append(("Optimal policy and P*", "figures/optimal.png"))
    for m in ms:
        seed, tables = learned[m]
        name = f"learned_m{m:g}.png"
        title = f"Learned policy, M = {m:g}, seed {seed}, {games[-1]:,} games"
        plot_learned(t, tables, title, folder / name)
        figs.append((f"Learned tables at the last checkpoint (M = {m:g}, first seed)",
                     f"figures/{name}"))
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
        plt = _plt()
        self.game = game
        self._plt = plt
        blank = np.zeros(game.shape)
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
        self._classes = _class_image(axes[0], blank, range(len(CLASS_COLORS)))
        _state_axes(axes[0], game.low, "Printed policy vs optimal")
        self._scores = axes[1].imshow(
            np.ma.masked_invalid(blank), cmap=plt.get_cmap("RdBu_r").with_extremes(bad="#d9d9d9"),
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
        buffer = io.BytesIO()
        self._fig.savefig(buffer, format="png", dpi=90, pil_kwargs={"compress_level": 3})
        formats.write_atomic(path, buffer.getvalue())

    def close(self) -> None:
        self._plt.close(self._fig)

    def __enter__(self) -> SubmissionHeatmaps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
