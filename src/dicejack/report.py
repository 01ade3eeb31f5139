"""Convergence studies: how the handout's learner approaches the optimum as games accumulate.

For each M and each of N seeds, one learner run with snapshots at log-spaced game counts; every
metric of :mod:`dicejack.compare` at every snapshot; mean and a 95% interval over seeds. Runs go
through a ``concurrent.futures.Executor`` (in-process, a local process pool, or a Dask cluster
whose workers have dicejack installed) and give identical numbers whichever runs them: each run
depends only on (game, M, seed, counts).

The report folder (``report.md``, ``figures/*.png``, ``metrics.csv``, ``metrics.json``) is built in
a temporary folder next to its destination and renamed into place only once complete, so a failed
or interrupted run never leaves half a report. matplotlib is imported only by the plotting code.

Seeds: run i (i = 0..seeds-1) of every M uses seed ``first_seed + i`` (the same seeds for every M),
so any run can be replayed with ``dicejack learn --seed S``. The 95% interval over seeds is the
Student-t interval mean +- t(0.975, n-1) * sd / sqrt(n), sd with ddof=1, over the n seeds whose
value is defined (NaN where n < 2).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import csv
import functools
import io
import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicejack import compare, learner
from dicejack.compare import METRIC_NAMES, Truth
from dicejack.game import DicejackError, Game

__all__ = [
    "ReportError",
    "HANDOUT_GAME",
    "DEFAULT_SEEDS",
    "DEFAULT_M",
    "ReportConfig",
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
]

#: The handout's example game: `dicejack report` with no options studies it.
HANDOUT_GAME = Game(n_sides=6, low=15, high=17, n_dice=2)
DEFAULT_SEEDS = 10
DEFAULT_M = (100.0,)
#: Metrics shown in the report's tables (all of them are in metrics.csv / metrics.json).
TABLE_METRICS = (
    "agreement_onpath",
    "agreement_decisive",
    "weighted_agreement",
    "rmse_onpath",
    "regret_decisive",
    "score_vs_optimal",
    "states_with_data",
)
#: Seconds to wait for a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT = 10
#: Decisive on-path agreement the summary looks for.
AGREEMENT_TARGET = 0.95


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
        if a < 1 or b <= a:
            raise ReportError(f"game counts must be positive and increasing, got {text}")
        return series_125(a, b)
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise ReportError("no game counts given")
    return check_games(tuple(_parse_count(p) for p in parts))


def check_games(games: Sequence[int]) -> tuple[int, ...]:
    """Validate checkpoint game counts: non-empty, positive, strictly increasing."""
    games = tuple(int(g) for g in games)
    if not games:
        raise ReportError("no game counts given")
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


def default_out(game: Game) -> Path:
    """Default report folder: reports/<game label>, e.g. reports/s6-l15-h17-d2."""
    return Path("reports") / game.label()


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


@functools.lru_cache(maxsize=4)
def _truth_for(params: tuple[int, int, int, int]) -> Truth:
    """The Truth of a game, once per process (workers solve for themselves: cheap, and cheaper
    than shipping arrays; it also keeps the array types numba sees the same in every process)."""
    n_sides, low, high, n_dice = params
    return compare.truth(Game(n_sides=n_sides, low=low, high=high, n_dice=n_dice))


def run_one(
    params: tuple[int, int, int, int], m: float, seed: int, games: tuple[int, ...]
) -> RunResult:
    """One learner run of the game (n_sides, low, high, n_dice) with snapshots at `games`, and
    every metric at every snapshot.

    Top-level, picklable, and given only plain values: this is what executors run.
    """
    t = _truth_for(tuple(params))
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


# ------------------------------------------------------------------------------ executors
class InlineExecutor(cf.Executor):
    """Runs each task at submit time, in this thread (``--workers 1``; handy in tests)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future
            if isinstance(exc, KeyboardInterrupt):
                raise
            future.set_exception(exc)
        return future


@contextlib.contextmanager
def open_executor(workers: int | None = None, dask: str | None = None) -> Iterator[cf.Executor]:
    """The executor for a study: a Dask client's executor when `dask` is a scheduler address,
    in-process when workers == 1, else a local process pool of `workers` (default: CPU count)."""
    if dask:
        try:
            import distributed
        except ImportError:
            raise ReportError(
                "--dask needs dask.distributed: pip install 'dicejack[cluster]'"
            ) from None
        try:
            client = distributed.Client(dask, timeout=DASK_CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise ReportError(f"cannot connect to the Dask scheduler {dask}: {message}") from None
        try:
            yield client.get_executor(pure=False)
        finally:
            client.close()
        return
    if workers is not None and workers < 1:
        raise ReportError(f"workers must be >= 1, got {workers}")
    if workers == 1:
        yield InlineExecutor()
        return
    with cf.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        yield pool


# ------------------------------------------------------------------------------ statistics
def interval(values: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and the 95% Student-t interval over `axis`, ignoring NaN: (mean, low, high).

    mean +- t(0.975, n-1) * sd / sqrt(n) with sd of ddof=1; low/high are NaN where n < 2 and the
    mean is NaN where n = 0.
    """
    from scipy import stats

    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    n = finite.sum(axis=axis)
    total = np.where(finite, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        dev = np.where(finite, values - np.expand_dims(mean, axis), 0.0)
        sd = np.sqrt((dev * dev).sum(axis=axis) / np.maximum(n - 1, 1))
        half = stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(np.maximum(n, 1))
    half = np.where(n >= 2, half, np.nan)
    return mean, mean - half, mean + half


# ------------------------------------------------------------------------------ a study
@dataclass(frozen=True, eq=False)
class Study:
    """All runs of a study, ordered by (M, seed), with the truth and the timings."""

    config: ReportConfig
    truth: Truth
    runs: tuple[RunResult, ...]
    timing: dict[str, float] = field(default_factory=dict)

    def runs_for(self, m: float) -> list[RunResult]:
        return [r for r in self.runs if r.m == m]

    def values(self, m: float) -> np.ndarray:
        """(seeds, checkpoints, metrics) array for one M."""
        return np.stack([r.values for r in self.runs_for(m)])

    def summary(self, m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high), each (checkpoints, metrics), over seeds for one M."""
        return interval(self.values(m), axis=0)

    def metric(self, m: float, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high) per checkpoint for one M and metric."""
        k = METRIC_NAMES.index(name)
        mean, lo, hi = self.summary(m)
        return mean[:, k], lo[:, k], hi[:, k]


def progress_bar(
    label: str, total: int, enabled: bool
) -> tuple[Callable[[], None], Callable[[], None]]:
    """(advance, stop) callbacks of a rich progress bar on stderr (no-ops when disabled)."""
    if not enabled or total <= 0:
        return (lambda: None), (lambda: None)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=False,
    )
    task = bar.add_task(label, total=total)
    bar.start()
    return (lambda: bar.advance(task)), bar.stop


def map_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple],
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    label: str = "runs",
    progress: bool = False,
) -> list[Any]:
    """fn(*task) for every task through an executor (`executor`, or :func:`open_executor`),
    with a progress bar; results in task order. Pending work is cancelled on any error."""
    results: dict[int, Any] = {}
    with contextlib.ExitStack() as stack:
        ex = executor if executor is not None else stack.enter_context(
            open_executor(workers, dask)
        )
        futures = {ex.submit(fn, *task): i for i, task in enumerate(tasks)}
        advance, stop = progress_bar(label, len(tasks), progress)
        try:
            for fut in cf.as_completed(futures):
                results[futures[fut]] = fut.result()
                advance()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        finally:
            stop()
    return [results[i] for i in range(len(tasks))]


def run_study(
    config: ReportConfig,
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> Study:
    """Run every (M, seed) of `config` through an executor (see :func:`open_executor`, or pass
    one) and collect the metrics. The numbers do not depend on the executor."""
    timing: dict[str, float] = {}
    g = config.game
    params = (g.n_sides, g.low, g.high, g.n_dice)
    t0 = time.perf_counter()
    truth = _truth_for(params)
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
    runs = tuple(
        map_tasks(
            run_one,
            [(params, m, s, config.games) for (m, s) in tasks],
            workers=workers, dask=dask, executor=executor, label="learner runs",
            progress=progress,
        )
    )
    timing["runs_wall"] = time.perf_counter() - t0
    timing["learn_cpu"] = sum(r.learn_seconds for r in runs)
    timing["metrics_cpu"] = sum(r.metrics_seconds for r in runs)
    timing["moves"] = float(sum(r.moves for r in runs))
    return Study(config, truth, runs, timing)


# ------------------------------------------------------------------------------ files
def _num(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def _fmt_m(m: float) -> str:
    return f"{m:g}"


def metrics_csv(study: Study) -> str:
    """Long form, header ``m,games,seed,metric,value``: one row per run, checkpoint, metric."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["m", "games", "seed", "metric", "value"])
    for r in study.runs:
        for i, n in enumerate(r.games):
            for k, name in enumerate(METRIC_NAMES):
                v = float(r.values[i, k])
                if name == "states_with_data":
                    text = str(int(v))
                else:
                    text = repr(v) if math.isfinite(v) else "nan"
                w.writerow([_fmt_m(r.m), n, r.seed, name, text])
    return buf.getvalue()


def metrics_json(study: Study) -> dict[str, Any]:
    """Summary: mean and 95% interval per (m, games, metric), plus the study's parameters."""
    cfg = study.config
    summary = []
    for m in cfg.ms:
        mean, lo, hi = study.summary(m)
        vals = study.values(m)
        for i, n in enumerate(cfg.games):
            for k, name in enumerate(METRIC_NAMES):
                summary.append({
                    "m": m, "games": n, "metric": name, "mean": _num(mean[i, k]),
                    "low": _num(lo[i, k]), "high": _num(hi[i, k]),
                    "n": int(np.isfinite(vals[:, i, k]).sum()),
                })
    return {
        "params": cfg.game.params(),
        "p00": study.truth.p00,
        "m": list(cfg.ms),
        "games": list(cfg.games),
        "seeds": list(cfg.seed_list),
        "metrics": list(METRIC_NAMES),
        "interval": "95% Student-t over seeds: mean +- t(0.975, n-1) * sd / sqrt(n)",
        "state_sets": study.truth.set_sizes(),
        "command": cfg.command(),
        "summary": summary,
        "timing_seconds": {
            k: round(v, 3) for k, v in study.timing.items() if k != "start"
        },
    }


def _pct(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{100 * v:.1f}%"


def _games(n: int) -> str:
    return f"{n:,}"


def _cell(name: str, mean: float, lo: float, hi: float) -> str:
    if not math.isfinite(mean):
        return "n/a"
    if name == "states_with_data":
        return f"{mean:.1f}"
    digits = 4 if name in ("score_vs_optimal",) else 3
    if not math.isfinite(hi):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {(hi - lo) / 2:.{digits}f}"


def _first_stays_above(means: np.ndarray, games: Sequence[int], target: float) -> int | None:
    """The first game count from which the mean stays >= target (None if it never does)."""
    ok = np.isfinite(means) & (means >= target)
    for i in range(len(games)):
        if ok[i:].all():
            return games[i]
    return None


def _wrong_states(study: Study, m: float) -> list[tuple[int, int, int, tuple[int, ...], float]]:
    """Decisive states wrong at the last checkpoint in at least one seed:
    (x, y, seeds wrong, optimal J, gap), most often wrong first."""
    t = study.truth
    runs = study.runs_for(m)
    wrong = np.zeros(t.game.shape, dtype=int)
    for r in runs:
        learned = compare.learned_from_tables(t.game, r.best, r.probability)
        j = np.where(learned.has_data, learned.best, 1)[:, :, None]
        agree = learned.has_data & np.take_along_axis(t.solution.optimal, j, axis=2)[:, :, 0]
        wrong += t.decisive & ~agree
    xs, ys = np.nonzero(wrong)
    rows = [
        (int(x), int(y), int(wrong[x, y]),
         tuple(int(j) for j in np.flatnonzero(t.solution.optimal[x, y])),
         float(t.solution.gap[x, y]))
        for x, y in zip(xs, ys, strict=True)
    ]
    rows.sort(key=lambda r: (-r[2], -r[4], r[0], r[1]))
    return rows


def report_markdown(study: Study, figures: Sequence[tuple[str, str]]) -> str:
    """The report's text: the game, P*(0,0), a plain-language summary, tables, figures."""
    cfg, t = study.config, study.truth
    g = cfg.game
    sizes = t.set_sizes()
    last = cfg.games[-1]
    out: list[str] = []
    add = out.append
    add(f"# Convergence report: {g}\n")
    add(f"Generated by `{cfg.command()}`: for each M, {cfg.seeds} learner runs (seeds "
        f"{cfg.seed_list[0]}..{cfg.seed_list[-1]}), each measured after "
        f"{', '.join(_games(n) for n in cfg.games)} games.\n")
    add(f"**Optimal play:** the first player wins with probability P*(0,0) = {t.p00:.6f}.\n")
    add("## What was found\n")
    for m in cfg.ms:
        dec, dlo, dhi = study.metric(m, "agreement_decisive")
        onp = study.metric(m, "agreement_onpath")[0]
        rmse = study.metric(m, "rmse_onpath")[0]
        score, slo, shi = study.metric(m, "score_vs_optimal")
        regret = study.metric(m, "regret_decisive")[0]
        allm = study.metric(m, "agreement_all")[0]
        reach = study.metric(m, "agreement_reachable")[0]
        when = _first_stays_above(dec, cfg.games, AGREEMENT_TARGET)
        if when is None:
            passes = (f"does not stay above {AGREEMENT_TARGET:.0%} within {_games(last)} games "
                      f"(mean over seeds)")
        else:
            passes = (f"passes {AGREEMENT_TARGET:.0%} (mean over seeds) at {_games(when)} games "
                      "and stays above it")
        ci = f" (95% interval {_pct(dlo[-1])}..{_pct(dhi[-1])})" if math.isfinite(dhi[-1]) else ""
        add(f"- **M = {m:g}.** Agreement with the optimal policy on the {sizes['decisive']} "
            f"decisive states (on the optimal path, not lost, best move better by >= 0.02) "
            f"{passes}; after {_games(last)} games it is {_pct(dec[-1])}{ci}, and "
            f"{_pct(onp[-1])} on all {sizes['onpath']} on-path states.")
        add(f"  The estimated win probability on the path is off by {rmse[0]:.3f} (RMSE) after "
            f"{_games(cfg.games[0])} games and {rmse[-1]:.4f} after {_games(last)}; the mean "
            f"regret on decisive states falls from {regret[0]:.4f} to {regret[-1]:.5f}.")
        add(f"  Against the optimal player, the learned greedy policy scores "
            f"{score[-1]:.4f}" + (f" (95% interval {slo[-1]:.4f}..{shi[-1]:.4f})"
                                 if math.isfinite(shi[-1]) else "")
            + " over both seats (0.5 = as good as optimal).")
        add(f"  Off the path it is another story, as the handout warns: over all "
            f"{sizes['all']} states agreement is only {_pct(allm[-1])} ({_pct(reach[-1])} of the "
            f"{sizes['reachable']} reachable ones); states that optimal play rarely or never "
            "visits get few games, so their tables stay noisy.")
    add("")
    add("## State sets (the handout's caveats A-E)\n")
    add("| set | states | meaning |")
    add("|---|---:|---|")
    add(f"| all | {sizes['all']} | every <X,Y> with 0 <= X, Y < LTarget |")
    add(f"| reachable | {sizes['reachable']} | reachable from <0,0> under some legal play "
        f"(caveat B: {sizes['all'] - sizes['reachable']} are not) |")
    add(f"| on-path | {sizes['onpath']} | visited with probability >= 0.001 by two optimal "
        "players (caveats C, D) |")
    add(f"| decisive | {sizes['decisive']} | on-path, P* > 0, best J better than every other "
        "by >= 0.02 (caveats A, E) |")
    add(f"| lost | {sizes['lost']} | P* = 0: every J loses (caveat A); {sizes['lost_reachable']} "
        "reachable |")
    add(f"| near-tie on-path | {sizes['near_tie_onpath']} | on-path with a gap below 0.02 "
        "(caveat E) |")
    add("")
    add("## Figures\n")
    for caption, path in figures:
        add(f"**{caption}**\n")
        add(f"![{caption}]({path})\n")
        if "learned_m" in path:
            add("Right: green = the learned J is optimal; light grey = unreachable (caveat B); "
                "dark grey = lost, P* = 0 (A); mid grey = no data; yellow = wrong in a near-tie "
                "(E); orange = wrong where optimal play rarely or never goes (C, D); red = wrong "
                "on a decisive state.\n")
    add("## Tables\n")
    add("Mean over seeds ± half-width of the 95% interval. Every metric at every checkpoint is in "
        "`metrics.csv` (per run) and `metrics.json` (summaries); definitions in DESIGN.md.\n")
    for m in cfg.ms:
        mean, lo, hi = study.summary(m)
        add(f"### M = {m:g}\n")
        add("| games | " + " | ".join(TABLE_METRICS) + " |")
        add("|---:|" + "---:|" * len(TABLE_METRICS))
        for i, n in enumerate(cfg.games):
            cells = []
            for name in TABLE_METRICS:
                k = METRIC_NAMES.index(name)
                cells.append(_cell(name, mean[i, k], lo[i, k], hi[i, k]))
            add(f"| {_games(n)} | " + " | ".join(cells) + " |")
        add("")
        rows = _wrong_states(study, m)
        add(f"Decisive states still wrong after {_games(last)} games (in how many of "
            f"{cfg.seeds} seeds):\n")
        if not rows:
            add("none.\n")
        else:
            add("| <X,Y> | seeds wrong | optimal J | gap |")
            add("|---|---:|---|---:|")
            for x, y, count, opt, gap in rows[:15]:
                add(f"| <{x},{y}> | {count} | {', '.join(map(str, opt))} | {gap:.4f} |")
            if len(rows) > 15:
                add(f"\n... and {len(rows) - 15} more.")
            add("")
    timing = study.timing
    if timing:
        add("## Run time\n")
        add(f"{timing.get('total', float('nan')):.1f} s wall on this machine: solving "
            f"{timing.get('solve', 0):.2f} s, learner runs {timing.get('runs_wall', 0):.1f} s wall "
            f"(learning {timing.get('learn_cpu', 0):.1f} s CPU, metrics "
            f"{timing.get('metrics_cpu', 0):.1f} s CPU, {timing.get('moves', 0):,.0f} moves), "
            f"figures {timing.get('plot', 0):.1f} s.\n")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ figures
def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _curves(
    study: Study,
    path: Path,
    panels: Sequence[tuple[str, str, str]],
    *,
    logy: Sequence[bool] = (),
    ylim: Sequence[tuple[float, float] | None] = (),
    hline: Sequence[float | None] = (),
    suptitle: str = "",
) -> None:
    """One panel per (metric, title, y label): one curve per M with its 95% seed band."""
    plt = _plt()
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    cfg = study.config
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), squeeze=False)
    colors = plt.get_cmap("tab10").colors
    games = np.array(cfg.games, dtype=float)
    for p, (name, title, ylabel) in enumerate(panels):
        ax = axes[0, p]
        for c, m in enumerate(cfg.ms):
            mean, lo, hi = study.metric(m, name)
            color = colors[c % len(colors)]
            ax.plot(games, mean, marker="o", ms=3, color=color, label=f"M = {m:g}")
            band = np.isfinite(lo) & np.isfinite(hi)
            if band.any():  # every plotted metric lies in [0, 1]; so does its band
                ax.fill_between(games, np.clip(np.where(band, lo, mean), 0, 1),
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


def _heat(ax: Any, fig: Any, data: np.ndarray, *, title: str, kind: str, k: int = 0,
          labels: Sequence[str] = (), colors: Sequence[str] = (),
          ties: np.ndarray | None = None) -> None:
    """One LxL heatmap, rows X (mover), columns Y (opponent), <0,0> top left.

    kind: "policy" (0 = no data, 1..K dice; `ties` marks states where several J are optimal),
    "prob" (win probability, -1 = no estimate) or "classes" (codes into `labels`/`colors`).
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    plt = _plt()
    low = data.shape[0]
    if kind == "policy":
        shades = [plt.get_cmap("viridis")(v) for v in np.linspace(0.2, 0.9, k)]
        cmap = ListedColormap(["#d9d9d9", *shades])
        norm = BoundaryNorm(np.arange(-0.5, k + 1.5), cmap.N)
        im = ax.imshow(data, cmap=cmap, norm=norm, interpolation="nearest")
        has_none = bool((data == 0).any())
        ticks = list(range(0 if has_none else 1, k + 1))
        bar = fig.colorbar(im, ax=ax, ticks=ticks, fraction=0.046, pad=0.03)
        if not has_none:
            bar.ax.set_ylim(0.5, k + 0.5)
        bar.ax.set_yticklabels(["no data" if j == 0 else Game.dice_label(j) for j in ticks],
                               fontsize=8)
        if low <= 20:
            for x in range(low):
                for y in range(low):
                    j = int(data[x, y])
                    if j > 0:
                        r, g, b, _ = cmap(j)
                        dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                        tie = ties is not None and bool(ties[x, y])
                        ax.text(y, x, f"{j}*" if tie else str(j), ha="center", va="center",
                                fontsize=6, color="white" if dark else "black")
    elif kind == "prob":  # -1 = no estimate
        masked = np.ma.masked_less(data, 0)
        cmap = plt.get_cmap("viridis").with_extremes(bad="#d9d9d9")
        im = ax.imshow(masked, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
        bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label("win probability" + (" (grey: no data)" if (data < 0).any() else ""))
    else:  # categories
        cmap = ListedColormap(list(colors))
        norm = BoundaryNorm(np.arange(-0.5, len(colors) + 0.5), cmap.N)
        ax.imshow(data, cmap=cmap, norm=norm, interpolation="nearest")
        present = sorted(set(np.unique(data).tolist()))
        ax.legend(
            handles=[Patch(color=colors[c], label=labels[c]) for c in present],
            loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
        )
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("Y (opponent's score)")
    ax.set_ylabel("X (mover's score)")
    step = 1 if low <= 20 else 5
    ax.set_xticks(range(0, low, step))
    ax.set_yticks(range(0, low, step))
    ax.tick_params(labelsize=7)


#: Colours of compare.STATE_CLASSES in the disagreement map.
CLASS_COLORS = ("#b7e1a1", "#f0f0f0", "#636363", "#bdbdbd", "#fdd835", "#fb8c00", "#d32f2f")


def plot_optimal(t: Truth, path: Path) -> None:
    """Heatmaps of the optimal policy (lowest optimal J) and of P*."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.4))
    sol = t.solution
    ties = sol.optimal[:, :, 1:].sum(axis=2) > 1
    note = " (* = several J optimal)" if ties.any() and t.game.low <= 20 else ""
    _heat(axes[0], fig, sol.best, title=f"Optimal policy: lowest optimal J{note}",
          kind="policy", k=t.game.n_dice, ties=ties)
    _heat(axes[1], fig, sol.p, title="P*: win probability under optimal play", kind="prob")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_learned(t: Truth, run: RunResult, path: Path) -> None:
    """Heatmaps of the learned policy and its estimate, and where it disagrees with optimal play
    (marking unreachable, lost and near-tie states: the handout's caveats)."""
    plt = _plt()
    learned = compare.learned_from_tables(t.game, run.best, run.probability)
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6))
    n = _games(run.games[-1])
    _heat(axes[0], fig, learned.best, title=f"Learned policy, M = {run.m:g}, seed {run.seed}, "
          f"{n} games", kind="policy", k=t.game.n_dice)
    _heat(axes[1], fig, learned.probability, title="Learned estimate of the win probability",
          kind="prob")
    _heat(axes[2], fig, compare.state_classes(t, learned), title="Learned vs optimal policy",
          kind="classes", labels=compare.STATE_CLASSES, colors=CLASS_COLORS)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_figures(study: Study, folder: Path) -> list[tuple[str, str]]:
    """Every figure of the report into `folder`; returns (caption, relative path) pairs."""
    folder.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, str]] = []
    _curves(study, folder / "agreement.png", [
        ("agreement_all", "all states", "agreement with optimal policy"),
        ("agreement_onpath", "on-path states", "agreement with optimal policy"),
        ("agreement_decisive", "decisive states", "agreement with optimal policy"),
    ], ylim=[(0, 1.02)] * 3, suptitle="Share of states where the learned best J is optimal "
        "(mean and 95% band over seeds)")
    figs.append(("Agreement with the optimal policy", "figures/agreement.png"))
    _curves(study, folder / "probability_error.png", [
        ("rmse_onpath", "estimate vs P* (on-path)", "RMSE"),
        ("rmse_q_onpath", "estimate vs Q*(s, learned J) (on-path)", "RMSE"),
    ], logy=[True, True], suptitle="Error of the learned win probability")
    figs.append(("Probability error", "figures/probability_error.png"))
    _curves(study, folder / "regret.png", [
        ("regret_decisive", "regret on decisive states", "mean P* - Q*(s, learned J)"),
        ("weighted_regret", "regret weighted by optimal visits", "weighted P* - Q*"),
        ("score_vs_optimal", "learned greedy vs optimal (both seats)", "score (0.5 = optimal)"),
    ], hline=[0.0, 0.0, 0.5], suptitle="Cost of the learned policy")
    figs.append(("Regret and score against the optimal player", "figures/regret.png"))
    plot_optimal(study.truth, folder / "optimal.png")
    figs.append(("Optimal policy and P*", "figures/optimal.png"))
    for m in study.config.ms:
        name = f"learned_m{_fmt_m(m)}.png"
        plot_learned(study.truth, study.runs_for(m)[0], folder / name)
        figs.append((f"Learned tables at the last checkpoint (M = {m:g}, first seed)",
                     f"figures/{name}"))
    return figs


# ------------------------------------------------------------------------------ the folder
def _temp_folder(out: Path) -> Path:
    """A fresh temporary folder next to `out` (checks up front that `out` can be written)."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"cannot write the report to {out}: it exists and is not a folder")
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise ReportError(f"cannot write the report folder {out}: {_os_reason(exc)}") from None


def _os_reason(exc: OSError) -> str:
    """strerror and the path it concerns, e.g. 'Not a directory: /tmp/file'."""
    reason = exc.strerror or str(exc)
    return f"{reason}: {exc.filename}" if exc.filename else reason


def _swap_into_place(tmp: Path, out: Path) -> None:
    """Rename the finished `tmp` to `out`, replacing an old report only as a whole."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
        os.rmdir(old)
        os.rename(out, old)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp made it private
    try:
        os.rename(tmp, out)
    except OSError:
        if old is not None:
            os.rename(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_report(study: Study, out: str | os.PathLike[str], *, tmp: Path | None = None) -> Path:
    """Write the report folder for `study` to `out`, atomically as a whole; returns `out`."""
    out = Path(out)
    tmp = tmp if tmp is not None else _temp_folder(out)
    done = False
    try:
        t0 = time.perf_counter()
        figures = plot_figures(study, tmp / "figures")
        study.timing["plot"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        (tmp / "metrics.csv").write_text(metrics_csv(study))
        if "start" in study.timing:
            study.timing["total"] = time.perf_counter() - study.timing["start"]
        (tmp / "report.md").write_text(report_markdown(study, figures))
        (tmp / "metrics.json").write_text(
            json.dumps(metrics_json(study), indent=1, allow_nan=False) + "\n"
        )
        study.timing["write"] = time.perf_counter() - t0
        _swap_into_place(tmp, out)
        done = True
    except OSError as exc:
        raise ReportError(f"cannot write the report folder {out}: {_os_reason(exc)}") from None
    finally:
        if not done:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


@dataclass(frozen=True, eq=False)
class Report:
    """A written report: where it is, and the study behind it."""

    path: Path
    study: Study


def make_report(
    config: ReportConfig | None = None,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> Report:
    """Run the study of `config` and write its report folder (default reports/<game label>)."""
    config = config if config is not None else ReportConfig()
    start = time.perf_counter()
    out_path = Path(out) if out is not None else default_out(config.game)
    tmp = _temp_folder(out_path)  # fail before the long part if `out` cannot be written
    try:
        study = run_study(config, workers=workers, dask=dask, executor=executor,
                          progress=progress)
        study.timing["start"] = start
        write_report(study, out_path, tmp=tmp)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    study.timing.pop("start", None)
    study.timing["total"] = time.perf_counter() - start
    return Report(out_path, study)
