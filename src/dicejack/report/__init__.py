"""Convergence reports: how learners approach the optimum as games accumulate, on any game.

For each series (the handout's learner at one M, or any bundled learner with its parameters) and
each of N seeds, one learner run with snapshots at log-spaced game counts; every metric of the
game at every snapshot, measured exactly (the handout's game, the default: :mod:`dicejack.compare`;
another game of :mod:`dicejack.games`, ``ReportConfig(game="pig", game_params=...)``: its
exact solution); mean and a 95% interval over seeds; written
as a report folder (``report.md``, ``figures/*.png`` with each curves figure's numbers as
``figures/*.csv`` and, on request, every figure as SVG and PDF too, ``metrics.csv``,
``metrics.json`` and ``timing.json``, the run times). A re-run reproduces report.md, the
metrics and the figures' CSV byte for byte on any machine (numbers at 12 significant digits,
:func:`dicejack.formats.numbers.stated`); the pictures under the same matplotlib.

The public face is what a user calls (docs/design/api.md, lists it; a test holds
``__all__`` to it); it takes Python values (the command line's text is read in
:mod:`dicejack.cli.report_options`)::

    from dicejack import report
    report.make_report(report.ReportConfig(ms=(10, 100)), "reports/mine", workers=4)
    series = report.series_grid(["handout", "q-learning", "ucb"],
                                {"q-learning.alpha": [0.1, 0.5]})
    report.make_report(report.ReportConfig(series=series), "reports/learners", workers=4)
    report.run_study(report.ReportConfig(games=(100, 1000), seeds=3)).to_frame()
    report.make_report(report.ReportConfig(game="pig", game_params=(("goal", 50),)))

Everything else is internal, imported from its module:

* :mod:`dicejack.report.limits`: the limits, defaults and :class:`ReportError`;
  :mod:`dicejack.report.series`: the series, one curve each (:class:`SeriesSpec`,
  :func:`series_grid`); :mod:`dicejack.report.config`: what to study (:class:`ReportConfig`).
* :mod:`dicejack.report.runs`: one run measured (``runs.run_one``);
  :mod:`dicejack.report.study`: running them all (:func:`run_study`) and the statistics over
  seeds (:class:`Study`, ``study.interval``, ``study.games_to_reach``).
* :mod:`dicejack.report.contents`: the text of each file (``metrics_csv``, ``metrics_json``,
  ``report_markdown``, ``timing_json``), the handout's game's own in
  :mod:`dicejack.report.handout_section`; :mod:`dicejack.report.drawing`: the figures
  (:mod:`dicejack.report.score_axes`: Pig's and Piglet's roll/hold boundary).
* :mod:`dicejack.report.folder`: the report folder on disk (:func:`write_report`,
  :func:`make_report`). :mod:`dicejack.report.studies`: ``dicejack study``.
"""

from __future__ import annotations

from dicejack.report.config import ReportConfig
from dicejack.report.folder import Report, make_report, write_report
from dicejack.report.limits import SERIES_LIMIT, TOTAL_GAMES_LIMIT, ReportError
from dicejack.report.series import SeriesSpec, series_grid
from dicejack.report.study import Study, run_study

__all__ = [
    "ReportConfig", "SeriesSpec", "series_grid", "ReportError",
    "run_study", "Study", "make_report", "write_report", "Report",
    "SERIES_LIMIT", "TOTAL_GAMES_LIMIT",
]
