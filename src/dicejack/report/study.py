"""A convergence study of any game: running it, and the statistics over seeds.

Owns the numbers of a report, not its settings (:mod:`dicejack.report.config`) nor its files.
:func:`run_study` runs every (series, seed) of a :class:`ReportConfig` (one run:
:func:`dicejack.report.runs.run_one`, every metric of the game at every checkpoint) through
:mod:`dicejack.runtime.parallel` and returns a :class:`Study`, which gives the mean and 95%
interval over seeds of every metric and the games each series needs to reach a target
(:meth:`Study.games_to_target`); the handout's game adds its decisive states still wrong
(:meth:`Study.wrong_decisive`), another game the share of seeds right per state
(:meth:`Study.optimal_share`).

Seeds: run i (i = 0..seeds-1) of every series uses seed ``first_seed + i`` (the same seeds for
every series), so any run can be replayed with ``dicejack learn --seed S``. Runs give identical
numbers whichever executor runs them: each depends only on (game, series, seed, counts). The 95%
interval over seeds is the Student-t interval mean +- t(0.975, n-1) * sd / sqrt(n), sd with
ddof=1, over the n seeds whose value is defined (NaN where n < 2).
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicejack import compare, learners
from dicejack.compare.learned import Learned
from dicejack.compare.truth import Truth
from dicejack.games.handout_rules import Game
from dicejack.learners.catalogue import is_custom
from dicejack.report.config import ReportConfig
from dicejack.report.limits import Parameter, ReportError
from dicejack.report.runs import (
    RunResult,
    exact_solution,
    metric_names,
    metric_ranges,
    run_one,
    warm_up,
)
from dicejack.report.series import SeriesSpec
from dicejack.runtime import frames, parallel
from dicejack.solver.generic import GameSolution

__all__ = [
    "interval",
    "Reach",
    "games_to_reach",
    "Study",
    "check_own_learners",
    "run_study",
]


# ------------------------------------------------------------------------------ statistics
def interval(values: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and the 95% Student-t interval over `axis`, ignoring NaN: (mean, low, high).

    mean +- t(0.975, n-1) * sd / sqrt(n) with sd of ddof=1; low/high are NaN where n < 2 and the
    mean is NaN where n = 0.
    """
    from scipy.special import stdtrit  # t(0.975, df): scipy.stats.t.ppf's own kernel, 1 s lighter

    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    n = finite.sum(axis=axis)
    total = np.where(finite, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        dev = np.where(finite, values - np.expand_dims(mean, axis), 0.0)
        sd = np.sqrt((dev * dev).sum(axis=axis) / np.maximum(n - 1, 1))
        half = stdtrit(np.maximum(n - 1, 1), 0.975) * sd / np.sqrt(np.maximum(n, 1))
    half = np.where(n >= 2, half, np.nan)
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Reach:
    """When a series reaches a target value of a metric (None: not within the study).

    mean: the first checkpoint where the mean over seeds is >= the target; per_seed: each
    seed's first checkpoint >= the target; median, first, last: the median and range of those
    over seeds, a seed that never reaches it counting as later than every checkpoint (median
    None when that decides it; the median of an even count is the mean of the middle two);
    reached: how many seeds reach it.
    """

    target: float
    mean: int | None
    per_seed: tuple[int | None, ...]
    median: float | None
    first: int | None
    last: int | None
    reached: int


def _first_at_least(values: np.ndarray, games: Sequence[int], target: float) -> int | None:
    ok = np.flatnonzero(np.isfinite(values) & (values >= target))
    return int(games[ok[0]]) if len(ok) else None


def games_to_reach(values: np.ndarray, games: Sequence[int], target: float) -> Reach:
    """:class:`Reach` of one metric from its (seeds, checkpoints) values at game counts
    `games`."""
    values = np.asarray(values, dtype=float)
    mean = interval(values, axis=0)[0]
    per_seed = tuple(_first_at_least(row, games, target) for row in values)
    order = sorted(math.inf if g is None else g for g in per_seed)
    n = len(order)
    middle = order[n // 2] if n % 2 else (order[n // 2 - 1] + order[n // 2]) / 2
    reached = [g for g in per_seed if g is not None]
    return Reach(
        target=float(target), mean=_first_at_least(mean, games, target), per_seed=per_seed,
        median=None if math.isinf(middle) else float(middle),
        first=min(reached) if reached else None,
        last=max(reached) if len(reached) == n and reached else None,
        reached=len(reached),
    )


@dataclass(frozen=True, eq=False)
class Study:
    """All runs of a study, ordered by (series, seed), with the exact solution (`truth`: a
    :class:`~dicejack.compare.truth.Truth` for the handout's game, a GameSolution for another)
    and the timings.

    A series is named by its :class:`SeriesSpec`, its label, or (for the handout's learner) its
    M. The statistics over seeds are computed once per series, on first use, and shared by the
    report's tables, metrics.json and figures.
    """

    config: ReportConfig
    truth: Truth | GameSolution
    runs: tuple[RunResult, ...]
    timing: dict[str, float] = field(default_factory=dict)

    def spec(self, which: SeriesSpec | str | float) -> SeriesSpec:
        """The study's series named by `which`; ReportError when there is none."""
        for s in self.config.series:
            if which == s or (isinstance(which, str) and which in (s.label,
                                                                  self.config.legend(s))):
                return s
        if isinstance(which, (int, float)) and not isinstance(which, bool):
            for s in self.config.series:
                if s.m == float(which):
                    return s
        raise ReportError(f"the study has no series {which!r}")

    def runs_for(self, which: SeriesSpec | str | float) -> list[RunResult]:
        spec = self.spec(which)
        return [r for r in self.runs if r.series == spec]

    def values(self, which: SeriesSpec | str | float) -> np.ndarray:
        """(seeds, checkpoints, metrics) array for one series."""
        return np.stack([r.values for r in self.runs_for(which)])

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics of every run, in the order of its values
        (:func:`dicejack.report.runs.metric_names`)."""
        return metric_names(self.config)

    @functools.cached_property
    def ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """(least, greatest) per metric, to clip intervals at
        (:func:`dicejack.report.runs.metric_ranges`)."""
        return metric_ranges(self.truth, self.metric_names)

    @functools.cached_property
    def _summaries(self) -> dict[SeriesSpec, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return {s: interval(self.values(s), axis=0) for s in self.config.series}

    def summary(self, which: SeriesSpec | str | float, *, clipped: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high), each (checkpoints, metrics), over seeds for one series; with
        `clipped`, the interval's ends clipped to each metric's range (:attr:`ranges`: a
        Student-t interval near 1 can pass it), as report.md and the figures show them.
        metrics.json keeps the raw ends."""
        mean, lo, hi = self._summaries[self.spec(which)]
        if not clipped:
            return mean, lo, hi
        low, high = self.ranges
        return mean, np.clip(lo, low, high), np.clip(hi, low, high)

    def metric(self, which: SeriesSpec | str | float,
               name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high) per checkpoint for one series and metric, the interval clipped to
        the metric's range (as shown in report.md and the figures)."""
        k = self.metric_names.index(name)
        mean, lo, hi = self.summary(which, clipped=True)
        return mean[:, k], lo[:, k], hi[:, k]

    def games_to_target(self, which: SeriesSpec | str | float, name: str,
                        target: float) -> Reach:
        """When series `which` reaches `target` in metric `name` (:func:`games_to_reach`)."""
        k = self.metric_names.index(name)
        return games_to_reach(self.values(which)[:, :, k], self.config.games, target)

    def _key_columns(self, spec: SeriesSpec, summary: bool = False) -> dict[str, Any]:
        """The columns naming a series in rows: ``m`` in a classic M report, else ``series``
        and ``learner`` (another game's `summary` rows: ``series`` alone)."""
        if not self.config.comparison:
            return {"m": spec.m}
        if summary and self.config.protocol:
            return {"series": spec.label}
        return {"series": spec.label, "learner": spec.learner}

    @property
    def key_names(self) -> list[str]:
        """The names of the columns that name a series (see :meth:`rows`)."""
        return ["series", "learner"] if self.config.comparison else ["m"]

    def rows(self) -> list[dict[str, Any]]:
        """One row per run and checkpoint, in (series, seed, games) order: the series (``m``
        in a classic M report, else ``series, learner``), ``seed, games`` and one column per
        metric (:attr:`metric_names`)."""
        return [
            {**self._key_columns(r.series), "seed": r.seed, "games": n,
             **{name: float(r.values[i, k]) for k, name in enumerate(self.metric_names)}}
            for r in self.runs for i, n in enumerate(r.games)
        ]

    def summary_rows(self) -> list[dict[str, Any]]:
        """One row per series, checkpoint and metric: the series (as in :meth:`rows`),
        ``games, metric, mean, low, high, n`` (the 95% interval over the ``n`` seeds where the
        metric is defined; NaN where undefined)."""
        out = []
        for s in self.config.series:
            mean, lo, hi = self.summary(s)
            defined = np.isfinite(self.values(s)).sum(axis=0)
            for i, n in enumerate(self.config.games):
                for k, name in enumerate(self.metric_names):
                    out.append({**self._key_columns(s, True), "games": n, "metric": name,
                                "mean": float(mean[i, k]), "low": float(lo[i, k]),
                                "high": float(hi[i, k]), "n": int(defined[i, k])})
        return out

    def to_frame(self, *, summary: bool = False) -> Any:
        """The study as a ``pandas.DataFrame`` (pandas is optional: a one-line
        :class:`dicejack.runtime.frames.PandasMissingError` without it).

        By default one row per series x seed x checkpoint (:meth:`rows`: the series columns
        (``m``, or ``series, learner`` when learners are compared), ``seed, games`` and one per
        metric, the numbers of metrics.csv in wide form), so any statistic over seeds is a
        ``groupby`` away; ``summary=True`` gives the report's own summary instead, one row per
        series x checkpoint x metric (:meth:`summary_rows`: ``games, metric, mean, low, high,
        n`` after the series columns, as in metrics.json)::

            df = study.to_frame()
            df.groupby(["m", "games"])["agreement_decisive"].mean()
        """
        keys = self.key_names
        if summary:
            keys = list(self._key_columns(self.config.series[0], True))
            return frames.to_frame(self.summary_rows(),
                                   [*keys, "games", "metric", "mean", "low", "high", "n"])
        return frames.to_frame(self.rows(), [*keys, "seed", "games", *self.metric_names])

    def last_tables(self, run: RunResult) -> Learned:
        """The learned tables of `run` after its last checkpoint (the handout's game)."""
        return compare.learned_from_tables(self.truth.game, run.best, run.estimate)

    def wrong_decisive(
        self, which: SeriesSpec | str | float
    ) -> list[tuple[int, int, int, tuple[int, ...], float]]:
        """Decisive states wrong at the last checkpoint in at least one seed of a series of the
        handout's game: (x, y, seeds wrong, optimal J, gap), most often wrong first."""
        t = self.truth
        count: dict[tuple[int, int], int] = {}
        rows = {}
        for r in self.runs_for(which):
            for w in compare.compare(t.game, t, self.last_tables(r), hints=False).wrong_decisive:
                count[w.x, w.y] = count.get((w.x, w.y), 0) + 1
                rows[w.x, w.y] = (w.optimal, w.gap)
        out = [(x, y, n, *rows[x, y]) for (x, y), n in count.items()]
        out.sort(key=lambda r: (-r[2], -r[4], r[0], r[1]))
        return out

    def optimal_share(self, which: SeriesSpec | str | float) -> np.ndarray:
        """Per state of another game, the share of the series' seeds whose greedy action at
        the last checkpoint is optimal (no data counts as wrong); NaN at terminal states."""
        sol = self.truth
        live = ~sol.space.terminal
        right = np.zeros(sol.space.n_states)
        runs = self.runs_for(which)
        for r in runs:
            known = live & (r.best >= 0)
            ok = np.zeros(sol.space.n_states, dtype=bool)
            ok[known] = sol.optimal[r.best[known]]
            right += ok
        out = right / max(len(runs), 1)
        out[~live] = np.nan
        return out


def check_own_learners(config: ReportConfig) -> None:
    """Every user's learner class among the series (``MODULE:Class``) keeps the learner contract
    (:func:`dicejack.learners.check_learner` on 200 games, once per game, class and parameters
    in a process: make_report checks before it writes anything, run_study then finds it done),
    checked before any run so that a broken one fails in one line, not hours later."""
    for spec in config.series:
        if not spec.protocol and is_custom(spec.learner):
            _keeps_contract(config.game, spec)


@functools.lru_cache(maxsize=64)
def _keeps_contract(game: Game, spec: SeriesSpec) -> None:
    """ReportError unless `spec`'s class keeps the learner contract on `game` (remembered once
    it does)."""
    try:
        learners.check_learner(learners.make(game, spec.learner, 0, **spec.kwargs()), games=200)
    except learners.LearnerError as exc:
        raise ReportError(Parameter("series"), f" {spec.learner}: {exc}") from None


def run_study(
    config: ReportConfig,
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> Study:
    """Run every (series, seed) of `config` through an executor (see
    :func:`dicejack.runtime.parallel.open_executor`, or pass one) and collect the metrics. The
    numbers do not depend on the executor."""
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    truth = exact_solution(config)
    timing["solve"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    check_own_learners(config)
    warm_up(config)
    timing["warmup"] = time.perf_counter() - t0
    tasks = [(s, seed) for s in config.series for seed in config.seed_list]
    if workers is None and dask is None and executor is None:
        workers = min(os.cpu_count() or 1, len(tasks))  # no idle processes for small studies
    t0 = time.perf_counter()
    try:
        runs = tuple(
            parallel.map_tasks(
                run_one,
                [(config.game_key, s, seed, config.games) for (s, seed) in tasks],
                workers=workers, dask=dask, executor=executor, label="learner runs",
                progress=progress,
            )
        )
    except parallel.ExecutorError as exc:
        raise ReportError(str(exc)) from None
    timing["runs_wall"] = time.perf_counter() - t0
    timing["learn_cpu"] = sum(r.learn_seconds for r in runs)
    timing["metrics_cpu"] = sum(r.metrics_seconds for r in runs)
    timing["moves"] = float(sum(r.moves for r in runs))
    return Study(config, truth, runs, timing)
