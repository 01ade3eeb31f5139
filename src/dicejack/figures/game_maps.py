"""Figures of protocol games' reports (``dicejack report --game``): maps over two score axes.

Owns drawing score maps, not computing them (:mod:`dicejack.report.score_axes` does): rows
of square maps over (my score i, opponent's score j), rows i and columns j, (0, 0) top left as
every heatmap of dicejack. A map is either turn totals (the turn total at which the mover stops
rolling, Neller and Presser's roll/hold boundary in two dimensions; viridis from 0 to the goal)
or shares (0..1, e.g. how often learned runs choose an optimal action there; red to green);
NaN cells (no data) grey. Drawn on matplotlib through :mod:`dicejack.figures.canvas` (own Agg
canvas, default style, fixed layout in inches, reproducible bytes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dicejack.figures.canvas import (
    axes_in_inches,
    default_style,
    flat_ticks,
    new_figure,
    save_figure,
)

__all__ = ["ScoreMap", "score_maps_figure", "plot_score_maps"]

_SIDE, _LEFT, _BOTTOM, _TOP, _BAR, _GAP = 2.5, 0.7, 0.6, 0.75, 0.15, 1.05


@dataclass(frozen=True, eq=False)
class ScoreMap:
    """One map: its title, a (goal, goal) array over (i, j), and its kind: "total" (turn totals,
    0..`top`) or "share" (0..1)."""

    title: str
    values: np.ndarray
    kind: str = "total"
    top: float = 1.0


def score_maps_figure(rows: Sequence[Sequence[ScoreMap | None]], *, suptitle: str = "") -> Any:
    """A matplotlib Figure: the maps in rows (None leaves a cell empty), each with its colour
    bar."""
    with default_style() as m:
        columns = max(len(r) for r in rows)
        cell = _LEFT + _SIDE + _GAP
        width = columns * cell + 0.2
        row_height = _BOTTOM + _SIDE + 0.45
        height = len(rows) * row_height + _TOP - 0.45
        fig = new_figure(m, width, height)
        for r, row in enumerate(rows):
            bottom = height - _TOP - _SIDE - r * row_height
            for c, smap in enumerate(row):
                if smap is not None:
                    _draw_map(m, fig, smap, 0.1 + c * cell + _LEFT, bottom)
        if suptitle:
            fig.suptitle(suptitle, fontsize=10, y=1 - 0.08 / height, va="top", parse_math=False)
    return fig


def _draw_map(m: Any, fig: Any, smap: ScoreMap, x: float, bottom: float) -> None:
    """One map with its colour bar, its lower left corner at (x, bottom) inches."""
    ax = axes_in_inches(fig, x, bottom, _SIDE, _SIDE)
    cax = axes_in_inches(fig, x + _SIDE + 0.1, bottom, _BAR, _SIDE)
    values = np.ma.masked_invalid(np.asarray(smap.values, dtype=float))
    if smap.kind == "share":
        cmap = m.cmap("RdYlGn").with_extremes(bad="#d9d9d9")
        image = ax.imshow(values, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
        label = "share (grey: no state)"
    else:
        cmap = m.cmap("viridis").with_extremes(bad="#d9d9d9")
        image = ax.imshow(values, cmap=cmap, vmin=0, vmax=smap.top, interpolation="nearest")
        label = "turn total (grey: no data)"
    bar = fig.colorbar(image, cax=cax)
    bar.set_label(label, fontsize=8)
    bar.ax.tick_params(labelsize=7)
    goal = values.shape[0]
    step = 1 if goal <= 20 else 5 if goal <= 60 else 10
    ticks = m.ticker.FixedLocator(np.arange(0, goal, step))
    ax.xaxis.set_major_locator(ticks)
    ax.yaxis.set_major_locator(ticks)
    ax.set_title(smap.title, fontsize=9, parse_math=False)
    ax.set_xlabel("j (opponent's score)")
    ax.set_ylabel("i (mover's score)")
    flat_ticks(m, ax, labelsize=7)


def plot_score_maps(path: Path, rows: Sequence[Sequence[ScoreMap | None]], *,
                    suptitle: str = "", fmts: Sequence[str] = ("png",)) -> None:
    """Write :func:`score_maps_figure` to `path` in each format of `fmts`."""
    save_figure(score_maps_figure(rows, suptitle=suptitle), path, fmts)
