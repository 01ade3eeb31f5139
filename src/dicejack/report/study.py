"""A convergence study: what to run, running it, and the statistics over seeds.

Owns the numbers of a report, not its files. :class:`ReportConfig` says what to study (a game, M
values, checkpoint game counts, seeds) and parses them from the command line's text;
:func:`run_one` is one learner run with every metric of :mod:`dicejack.compare` at every
checkpoint; :func:`run_study` runs every (M, seed) through :mod:`dicejack.parallel` and returns a
:class:`Study`, which gives the mean and 95% interval over seeds of every metric.

Seeds: run i (i = 0..seeds-1) of every M uses seed ``first_seed + i`` (the same seeds for every M),
so any run can be replayed with ``dicejack learn --seed S``. Runs give identical numbers whichever
executor runs them: each depends only on (game, M, seed, counts). The 95% interval over seeds is
the Student-t interval mean +- t(0.975, n-1) * sd / sqrt(n), sd with ddof=1, over the n seeds
whose value is defined (NaN where n < 2).
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

from dicejack import compare, frames, learner, parallel
from dicejack.compare import METRIC_NAMES, Learned, Truth
from dicejack.game import DicejackError, Game

__all__ = [
    "ReportError",
    "HANDOUT_GAME",
    "DEFAULT_SEEDS",
    "SEEDS_LIMIT",
    "TOTAL_GAMES_LIMIT",
    "DEFAULT_M",
    "DEFAULT_GAMES",
    "series_125",
    "parse_games",
    "check_games",
    "parse_ms",
    "check_ms",
    "ReportConfig",
    "RunResult",
    "run_one",
    "interval",
    "Study",
    "run_study",
]

#: The handout's example game: `dicejack report` with no options studies it.
HANDOUT_GAME = Game(n_sides=6, low=15, high=17, n_dice=2)
DEFAULT_SEEDS = 10
DEFAULT_M = (100.0,)


class ReportError(DicejackError):
    """Bad report parameters or an output folder that cannot be written."""


# ------------------------------------------------------------------------------ parameters
def series_125(first: int, last: int) -> tuple[int, ...]:
    """Game counts 1, 2, 5 x 10^k from `first` to `last` (both kept), e.g. 100, 200, 500, 1000."""
    if first < 1 or last < first:
        raise ReportError(f"bad game-count range {first}..{last}")
    values = {first, last}
    for k in range(int(math.log10(first)) - 1, int(math.log10(last)) + 2):
        for lead in (1, 2, 5):
            v = lead * 10**k
            if first <= v <= last:
                values.add(v)
    return tuple(sorted(values))


#: Default checkpoints: 100, 200, 500, ..., 1,000,000 (13 log-spaced game counts).
DEFAULT_GAMES = series_125(100, 10**6)


#: Most learner runs per M in one report.
SEEDS_LIMIT = 10_000
#: Most games a whole report may play (seeds x M values x the last checkpoint): about two days on
#: one core.
TOTAL_GAMES_LIMIT = 10**12


def _check_limit(games: int) -> None:
    try:
        learner.check_games_limit(games, "--games")
    except learner.LearnerError as exc:
        raise ReportError(str(exc)) from None


def _parse_count(text: str) -> int:
    text = text.strip().replace("_", "")
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise ReportError(f"game count {text!r} is not a number") from None
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise ReportError(f"game count {text!r} is not a whole number")
    return int(value)


def parse_games(text: str) -> tuple[int, ...]:
    """'100,1000,10000' (strictly increasing) or 'A..B' (the 1-2-5 series from A to B)."""
    text = text.strip()
    if ".." in text:
        first, _, last = text.partition("..")
        a, b = _parse_count(first), _parse_count(last)
        _check_limit(b)
        if a < 1 or b <= a:
            raise ReportError(f"game counts must be positive and increasing, got {text}")
        return series_125(a, b)
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise ReportError("no game counts given")
    return check_games(tuple(_parse_count(p) for p in parts))


def check_games(games: Sequence[int]) -> tuple[int, ...]:
    """Validate checkpoint game counts: non-empty, positive, strictly increasing, at most
    :data:`dicejack.learner.GAMES_LIMIT`."""
    games = tuple(int(g) for g in games)
    if not games:
        raise ReportError("no game counts given")
    _check_limit(max(games))
    if any(g < 1 for g in games):
        raise ReportError(f"game counts must be positive, got {', '.join(map(str, games))}")
    if any(b <= a for a, b in zip(games, games[1:], strict=False)):
        raise ReportError(
            f"game counts must be strictly increasing, got {', '.join(map(str, games))}"
        )
    return games


def parse_ms(values: Sequence[str | float]) -> tuple[float, ...]:
    """M values from repeated options and/or comma lists: '-m 10 -m 100' or '-m 10,100'."""
    out: list[float] = []
    for item in values:
        for part in str(item).split(","):
            part = part.strip()
            if not part:
                continue
            try:
                out.append(float(part))
            except ValueError:
                raise ReportError(f"M must be a number, got {part!r}") from None
    return check_ms(out)


def check_ms(ms: Sequence[float]) -> tuple[float, ...]:
    """Validate M values: at least one, each finite and >= 0, no repeats."""
    if not ms:
        raise ReportError("no M given")
    clean = []
    for m in ms:
        try:
            clean.append(learner.check_m(float(m)))
        except learner.LearnerError as exc:
            raise ReportError(str(exc)) from None
    if len(set(clean)) != len(clean):
        raise ReportError(f"M values must be distinct, got {', '.join(f'{m:g}' for m in ms)}")
    return tuple(clean)


@dataclass(frozen=True)
class ReportConfig:
    """What to study: a game, M values, checkpoint game counts, seeds first_seed + 0..seeds-1."""

    game: Game = HANDOUT_GAME
    ms: tuple[float, ...] = DEFAULT_M
    games: tuple[int, ...] = DEFAULT_GAMES
    seeds: int = DEFAULT_SEEDS
    first_seed: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise ReportError(f"game must be a Game, got {type(self.game).__name__}")
        object.__setattr__(self, "ms", check_ms(tuple(self.ms)))
        object.__setattr__(self, "games", check_games(self.games))
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, (int, np.integer)):
            raise ReportError(f"seeds must be a whole number, got {self.seeds!r}")
        if self.seeds < 1:
            raise ReportError(f"seeds must be >= 1, got {self.seeds}")
        if self.seeds > SEEDS_LIMIT:
            raise ReportError(f"--seeds {self.seeds} is more than the limit of {SEEDS_LIMIT:,} "
                              "learner runs per M")
        total = self.seeds * len(self.ms) * self.games[-1]
        try:
            learner.check_games_limit(total, limit=TOTAL_GAMES_LIMIT)
        except learner.LearnerError as exc:
            raise ReportError(
                f"the study plays {self.seeds} seeds x {len(self.ms)} M x {self.games[-1]:,} "
                f"games: {exc}"
            ) from None
        if not 0 <= self.first_seed < 2**63 - self.seeds:
            raise ReportError(f"the first seed must be >= 0, got {self.first_seed}")

    @property
    def seed_list(self) -> tuple[int, ...]:
        return tuple(self.first_seed + i for i in range(self.seeds))

    def command(self) -> str:
        """The `dicejack report` command line that reproduces this study."""
        g = self.game
        ms = " ".join(f"-m {m:g}" for m in self.ms)
        games = ",".join(str(n) for n in self.games)
        if self.games == series_125(self.games[0], self.games[-1]):
            games = f"{self.games[0]}..{self.games[-1]}"
        seed = f" --seed {self.first_seed}" if self.first_seed != 1 else ""
        return (
            f"dicejack report --sides {g.n_sides} --low {g.low} --high {g.high} --dice {g.n_dice} "
            f"{ms} --games {games} --seeds {self.seeds}{seed}"
        )


# ------------------------------------------------------------------------------ one run
@dataclass(frozen=True, eq=False)
class RunResult:
    """What one learner run sends back: metric values per checkpoint, the last tables, timings.

    values[i, k] is metric METRIC_NAMES[k] after games[i] games. learn_seconds and
    metrics_seconds are CPU seconds of the thread that did the work.
    """

    m: float
    seed: int
    games: tuple[int, ...]
    values: np.ndarray
    best: np.ndarray
    probability: np.ndarray
    moves: int
    learn_seconds: float
    metrics_seconds: float


def run_one(
    params: tuple[int, int, int, int], m: float, seed: int, games: tuple[int, ...]
) -> RunResult:
    """One learner run of the game (n_sides, low, high, n_dice) with snapshots at `games`, and
    every metric at every snapshot.

    Top-level, picklable, and given only plain values: this is what executors run.
    """
    t = parallel.truth_for(params)
    t0 = time.thread_time()
    run = learner.learn(t.game, m, games[-1], seed, checkpoints=games)
    t1 = time.thread_time()
    values = np.empty((len(games), len(METRIC_NAMES)))
    last = None
    for i, n in enumerate(games):
        win, lose = run.snapshots[n] if n in run.snapshots else (run.win, run.lose)
        last = compare.learned_from_counts(t.game, win, lose)
        metrics = compare.metric_values(t, last)
        values[i] = [metrics[name] for name in METRIC_NAMES]
    t2 = time.thread_time()
    assert last is not None
    return RunResult(
        m=float(m), seed=int(seed), games=tuple(games), values=values,
        best=np.asarray(last.best, dtype=np.int8 if t.game.n_dice < 128 else np.int64),
        probability=np.asarray(last.probability), moves=run.moves,
        learn_seconds=t1 - t0, metrics_seconds=t2 - t1,
    )


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


@dataclass(frozen=True, eq=False)
class Study:
    """All runs of a study, ordered by (M, seed), with the truth and the timings.

    The statistics over seeds are computed once per M, on first use, and shared by the report's
    tables, metrics.json and figures.
    """

    config: ReportConfig
    truth: Truth
    runs: tuple[RunResult, ...]
    timing: dict[str, float] = field(default_factory=dict)

    def runs_for(self, m: float) -> list[RunResult]:
        return [r for r in self.runs if r.m == m]

    def values(self, m: float) -> np.ndarray:
        """(seeds, checkpoints, metrics) array for one M."""
        return np.stack([r.values for r in self.runs_for(m)])

    @functools.cached_property
    def _summaries(self) -> dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return {m: interval(self.values(m), axis=0) for m in self.config.ms}

    def summary(self, m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high), each (checkpoints, metrics), over seeds for one M."""
        return self._summaries[m]

    def metric(self, m: float, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high) per checkpoint for one M and metric."""
        k = METRIC_NAMES.index(name)
        mean, lo, hi = self.summary(m)
        return mean[:, k], lo[:, k], hi[:, k]

    def rows(self) -> list[dict[str, Any]]:
        """One row per run and checkpoint, in (M, seed, games) order: ``m, seed, games`` and
        one column per metric (:data:`dicejack.compare.METRIC_NAMES`)."""
        return [
            {"m": r.m, "seed": r.seed, "games": n,
             **{name: float(r.values[i, k]) for k, name in enumerate(METRIC_NAMES)}}
            for r in self.runs for i, n in enumerate(r.games)
        ]

    def summary_rows(self) -> list[dict[str, Any]]:
        """One row per M, checkpoint and metric: ``m, games, metric, mean, low, high, n`` (the
        95% interval over the ``n`` seeds where the metric is defined; NaN where undefined)."""
        out = []
        for m in self.config.ms:
            mean, lo, hi = self.summary(m)
            defined = np.isfinite(self.values(m)).sum(axis=0)
            for i, n in enumerate(self.config.games):
                for k, name in enumerate(METRIC_NAMES):
                    out.append({"m": m, "games": n, "metric": name, "mean": float(mean[i, k]),
                                "low": float(lo[i, k]), "high": float(hi[i, k]),
                                "n": int(defined[i, k])})
        return out

    def to_frame(self, *, summary: bool = False) -> Any:
        """The study as a ``pandas.DataFrame`` (pandas is optional: a one-line
        :class:`dicejack.frames.PandasMissingError` without it).

        By default one row per M x seed x checkpoint (:meth:`rows`: columns ``m, seed, games``
        and one per metric, the numbers of metrics.csv in wide form), so any statistic over
        seeds is a ``groupby(["m", "games"])`` away; ``summary=True`` gives the report's own
        summary instead, one row per M x checkpoint x metric (:meth:`summary_rows`: ``m, games,
        metric, mean, low, high, n``, as in metrics.json)::

            df = study.to_frame()
            df.groupby(["m", "games"])["agreement_decisive"].mean()
        """
        if summary:
            return frames.to_frame(self.summary_rows(),
                                   ["m", "games", "metric", "mean", "low", "high", "n"])
        return frames.to_frame(self.rows(), ["m", "seed", "games", *METRIC_NAMES])

    def last_tables(self, run: RunResult) -> Learned:
        """The learned tables of `run` after its last checkpoint."""
        return compare.learned_from_tables(self.truth.game, run.best, run.probability)

    def wrong_decisive(self, m: float) -> list[tuple[int, int, int, tuple[int, ...], float]]:
        """Decisive states wrong at the last checkpoint in at least one seed of M:
        (x, y, seeds wrong, optimal J, gap), most often wrong first."""
        t = self.truth
        count: dict[tuple[int, int], int] = {}
        rows = {}
        for r in self.runs_for(m):
            for w in compare.compare(t.game, t, self.last_tables(r)).wrong_decisive:
                count[w.x, w.y] = count.get((w.x, w.y), 0) + 1
                rows[w.x, w.y] = (w.optimal, w.gap)
        out = [(x, y, n, *rows[x, y]) for (x, y), n in count.items()]
        out.sort(key=lambda r: (-r[2], -r[4], r[0], r[1]))
        return out


def run_study(
    config: ReportConfig,
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> Study:
    """Run every (M, seed) of `config` through an executor (see
    :func:`dicejack.parallel.open_executor`, or pass one) and collect the metrics. The numbers
    do not depend on the executor."""
    timing: dict[str, float] = {}
    g = config.game
    params = (g.n_sides, g.low, g.high, g.n_dice)
    t0 = time.perf_counter()
    truth = parallel.truth_for(params)
    timing["solve"] = time.perf_counter() - t0
    # One tiny run here first: it compiles (or loads from numba's cache) every kernel once,
    # before any worker starts; forked workers inherit the kernels and the solved game.
    t0 = time.perf_counter()
    run_one(params, config.ms[0], 0, (1,))
    timing["warmup"] = time.perf_counter() - t0
    tasks = [(m, s) for m in config.ms for s in config.seed_list]
    if workers is None and dask is None and executor is None:
        workers = min(os.cpu_count() or 1, len(tasks))  # no idle processes for small studies
    t0 = time.perf_counter()
    try:
        runs = tuple(
            parallel.map_tasks(
                run_one,
                [(params, m, s, config.games) for (m, s) in tasks],
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
