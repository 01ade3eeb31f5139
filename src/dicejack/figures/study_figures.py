"""The figures of the classroom studies redone against exact truth (docs/studies.md): curves of a
measure against a count (trials per pair, trials), each a median line over seeds with the band
of their smallest to largest, on the ground of :mod:`dicejack.figures.canvas` (default style, axes
in inches, reproducible bytes: the same numbers give the same file)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.figures.canvas import axes_in_inches, default_style, figure_bytes, new_figure

__all__ = ["Curve", "curves_figure"]

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf",
           "#7f7f7f", "#bcbd22", "#e377c2")


@dataclass(frozen=True)
class Curve:
    """One curve: x values, and per x the values over seeds (rows: seeds; one row: no band);
    dashed for a reference line."""

    label: str
    x: Sequence[float]
    values: Any
    dashed: bool = False


def curves_figure(curves: Sequence[Curve], *, title: str, xlabel: str, ylabel: str,
                  log_x: bool = True, log_y: bool = False, fmt: str = "png",
                  marks: Sequence[float] = ()) -> bytes:
    """The curves as one figure's bytes in `fmt` (png, svg or pdf); `marks`: x values drawn as
    thin vertical lines (the study's own reading of a knee)."""
    with default_style() as m:
        fig = new_figure(m, 6.4, 4.0)
        ax = axes_in_inches(fig, 0.8, 0.6, 5.4, 3.0)
        for i, c in enumerate(curves):
            color = _COLORS[i % len(_COLORS)]
            y = np.atleast_2d(np.asarray(c.values, dtype=np.float64))
            x = np.asarray(c.x, dtype=np.float64)
            mid = np.median(y, axis=0)
            ax.plot(x, mid, color=color, lw=1.6, ls="--" if c.dashed else "-",
                    marker=None if c.dashed else "o", ms=3, label=c.label)
            if y.shape[0] > 1:
                ax.fill_between(x, y.min(axis=0), y.max(axis=0), color=color, alpha=0.18,
                                lw=0)
        for x in marks:
            ax.axvline(x, color="0.6", lw=0.8, ls=":")
        if log_x:
            ax.set_xscale("log")
        if log_y:
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7.5, frameon=False)
        return figure_bytes(fig, fmt)
