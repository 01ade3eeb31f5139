"""Every figure dicejack draws: what each shows and how it is laid out.

Owns drawing, not deciding what to draw from: callers pass numbers and tables. For the convergence
report, :func:`plot_figures` draws the curves of the metrics against games played (one curve per
:class:`Series`, e.g. one per M, with its 95% band over seeds) and the heatmaps of the optimal and
learned tables; each figure has a builder returning the matplotlib Figure (:func:`curves_figure`,
:func:`optimal_figure`, :func:`learned_figure`) and a writer (``plot_*``), in
:mod:`dicejack.figures.convergence`. For grading,
:class:`SubmissionHeatmaps` writes two state maps per submission as a PNG drawn pixel by
pixel (:mod:`dicejack.figures.raster`, no matplotlib: about a millisecond, not a tenth of a
second): where its policy differs from the optimal one, and where its estimate sits among the
reference runs; :mod:`dicejack.figures.svg` draws the same two maps, and the class's score
histogram, as SVG text for web pages.

All heatmaps share one orientation: rows X (the mover's score), columns Y (the opponent's),
<0,0> top left.

How it stays fast and reproducible (:mod:`dicejack.figures.canvas`, the ground it draws on):
matplotlib is imported on first drawing (importing this module is cheap) and never through
pyplot, each figure gets its own Agg canvas, drawing runs under matplotlib's default style,
every layout is fixed in inches, ticks and the per-cell numbers of a small heatmap are drawn as a
few collections instead of hundreds of artists, and PNGs carry no matplotlib version, so the
same numbers give the same bytes.
"""

from __future__ import annotations

from dicejack.figures.convergence import (
    LearnedFigure,
    Panel,
    Series,
    curves_figure,
    learned_figure,
    optimal_figure,
    plot_figures,
)
from dicejack.figures.raster import SubmissionHeatmaps

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (convergence: the seeds figure, the curves' CSV and styles, the
#: report's panels, plot_curves; base: formats, DPI, PNG metadata, CLASS_COLORS; svg: the web
#: pages' drawings).
__all__ = [
    "plot_figures",
    "Series",
    "Panel",
    "LearnedFigure",
    "curves_figure",
    "optimal_figure",
    "learned_figure",
    "SubmissionHeatmaps",
]
