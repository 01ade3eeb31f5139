"""Convergence reports: how the handout's learner approaches the optimum as games accumulate.

For each series (the handout's learner at one M, or any bundled learner with its parameters) and
each of N seeds, one learner run with snapshots at log-spaced game counts; every
metric of :mod:`dicejack.compare` at every snapshot; mean and a 95% interval over seeds; written
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

Everything else is internal, imported from its module:

* :mod:`dicejack.report.config`: what to study (:class:`ReportConfig`; the series, one curve
  each: :class:`SeriesSpec`, :func:`series_grid`), the limits and :class:`ReportError`.
* :mod:`dicejack.report.study`: running it (:func:`run_one`, :func:`run_study`) and the
  statistics over seeds (:class:`Study`, :func:`interval`, :func:`games_to_reach`).
* :mod:`dicejack.report.contents`: the text of each file (:func:`metrics_csv`,
  :func:`metrics_json`, :func:`report_markdown`, :func:`timing_json`).
* :mod:`dicejack.report.folder`: the report folder on disk (:func:`write_report`,
  :func:`make_report`).
* :mod:`dicejack.report.game_study`, :mod:`dicejack.report.game_writers`: reports on protocol
  games (``report --game``); :mod:`dicejack.report.studies`: ``dicejack study``.
"""

from __future__ import annotations

from dicejack.report.config import (
    SERIES_LIMIT,
    TOTAL_GAMES_LIMIT,
    ReportConfig,
    ReportError,
    SeriesSpec,
    series_grid,
)
from dicejack.report.folder import Report, make_report, write_report
from dicejack.report.study import Study, run_study

__all__ = [
    "ReportConfig", "SeriesSpec", "series_grid", "ReportError",
    "run_study", "Study", "make_report", "write_report", "Report",
    "SERIES_LIMIT", "TOTAL_GAMES_LIMIT",
]
