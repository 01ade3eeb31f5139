"""Convergence reports: how the handout's learner approaches the optimum as games accumulate.

For each series (the handout's learner at one M, or any bundled learner with its parameters) and
each of N seeds, one learner run with snapshots at log-spaced game counts; every
metric of :mod:`dicejack.compare` at every snapshot; mean and a 95% interval over seeds; written
as a report folder (``report.md``, ``figures/*.png`` with each curves figure's numbers as
``figures/*.csv`` and, on request, every figure as SVG and PDF too, ``metrics.csv``,
``metrics.json``, which a re-run reproduces byte for byte, and ``timing.json``, the run times).

    from dicejack import report
    report.make_report(report.ReportConfig(ms=(10, 100)), "reports/mine", workers=4)
    series = report.parse_series(["handout,q-learning,ucb"], ["q-learning.alpha=0.1,0.5"])
    report.make_report(report.ReportConfig(series=series), "reports/learners", workers=4)

The package re-exports its modules' public names:

* :mod:`dicejack.report.config`: what to study (:class:`ReportConfig`, :func:`parse_games`,
  :func:`parse_ms`; the series, one curve each: :class:`SeriesSpec`, :func:`parse_series` for
  ``--learner``/``--param``) and :class:`ReportError`.
* :mod:`dicejack.report.study`: running it (:func:`run_one`, :func:`run_study`) and the
  statistics over seeds (:class:`Study`, :func:`interval`, :func:`games_to_reach`;
  ``Study.to_frame()`` for pandas).
* :mod:`dicejack.report.contents`: the text of each file (:func:`metrics_csv`,
  :func:`metrics_json`, :func:`report_markdown`, :func:`timing_json`).
* :mod:`dicejack.report.writers`: the report folder on disk (:func:`write_report`,
  :func:`make_report`).

Executors and the progress bar live in :mod:`dicejack.runtime.parallel`, the figures in
:mod:`dicejack.figures`; the names below from those two are kept here for existing callers.
"""

from __future__ import annotations

from dicejack.figures import CLASS_COLORS
from dicejack.report.config import (
    DEFAULT_GAMES,
    DEFAULT_M,
    DEFAULT_SEEDS,
    HANDOUT_GAME,
    LEARNED_FIGURES_LIMIT,
    ReportConfig,
    ReportError,
    SeriesSpec,
    check_games,
    check_ms,
    parse_games,
    parse_learners,
    parse_ms,
    parse_series,
    series_125,
)
from dicejack.report.contents import (
    AGREEMENT_TARGET,
    TABLE_METRICS,
    TIMING_FILE,
    metrics_csv,
    metrics_json,
    report_markdown,
    timing_json,
)
from dicejack.report.study import (
    Reach,
    RunResult,
    Study,
    games_to_reach,
    interval,
    run_one,
    run_study,
)
from dicejack.report.writers import (
    MARKER,
    Report,
    curve_series,
    default_out,
    existing_kind,
    learned_figures,
    make_report,
    write_report,
)
from dicejack.runtime.parallel import InlineExecutor, map_tasks, open_executor, progress_bar

__all__ = [
    "ReportError",
    "HANDOUT_GAME",
    "DEFAULT_SEEDS",
    "DEFAULT_M",
    "ReportConfig",
    "SeriesSpec",
    "parse_series",
    "parse_learners",
    "LEARNED_FIGURES_LIMIT",
    "Reach",
    "games_to_reach",
    "curve_series",
    "learned_figures",
    "RunResult",
    "Study",
    "Report",
    "series_125",
    "DEFAULT_GAMES",
    "parse_games",
    "parse_ms",
    "interval",
    "run_one",
    "run_study",
    "write_report",
    "make_report",
    "default_out",
    "existing_kind",
    "MARKER",
    "TIMING_FILE",
    "timing_json",
    # public before the split, kept importable from here
    "check_games",
    "check_ms",
    "TABLE_METRICS",
    "AGREEMENT_TARGET",
    "metrics_csv",
    "metrics_json",
    "report_markdown",
    "InlineExecutor",
    "open_executor",
    "map_tasks",
    "progress_bar",
    "CLASS_COLORS",
]
