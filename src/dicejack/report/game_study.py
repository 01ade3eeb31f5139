"""Convergence studies of protocol games (:mod:`dicejack.games`): what to study, running it, and
the statistics over seeds.

Owns the numbers of a game report (``dicejack report --game``), beside the handout's study
(:mod:`dicejack.report.study`, untouched by this module). A :class:`GameSeries` is one curve: a
learner of protocol games (:data:`dicejack.learners.game_learners.GAME_LEARNERS`) and the
parameters set for it; a :class:`GameReportConfig` names the game (``--game`` and its
``--game-param`` values), the series, checkpoint game counts and seeds. :func:`run_game_one` is
one learner run measured at every checkpoint against the game's exact solution
(:func:`dicejack.compare.metrics.learned_metrics`: agreement, value error, the exact value
of the learned policy in each seat, exploitability); :func:`run_game_study` runs every (series,
seed) through :mod:`dicejack.runtime.parallel` and returns a :class:`GameStudy` (mean and the 95%
Student-t interval over seeds, :func:`dicejack.report.study.interval`; games to reach a target).

Seeds: run i of every series uses ``first_seed + i``, so any run is ``dicejack learn --game ...
--seed S``. A run depends only on (game, series, seed, checkpoints), never on the executor.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import itertools
import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicejack.compare.metrics import learned_metrics
from dicejack.figures.canvas import check_formats
from dicejack.games import GameDefinitionError, make_game
from dicejack.games.protocol import game_label, game_params
from dicejack.learners import checks
from dicejack.learners.base import Param, check_params, format_value
from dicejack.learners.catalogue import game_learner_class
from dicejack.learners.game_learners import GAME_LEARNERS, game_space
from dicejack.learners.session import learn
from dicejack.report.config import (
    SEEDS_LIMIT,
    SERIES_LIMIT,
    TOTAL_GAMES_LIMIT,
    Parameter,
    ReportError,
    check_games,
    series_125,
    series_pairs,
)
from dicejack.report.study import games_to_reach, interval
from dicejack.runtime import parallel
from dicejack.solver import GameSolution, solve

__all__ = [
    "GAME_METRICS",
    "GAME_DEFAULT_GAMES",
    "GAME_DEFAULT_SEEDS",
    "GAME_DEFAULT_LEARNERS",
    "GameSeries",
    "check_game_learners",
    "game_param_targets",
    "game_series_grid",
    "GameReportConfig",
    "GameRunResult",
    "run_game_one",
    "GameStudy",
    "run_game_study",
]

#: The metrics of a game report, per checkpoint (docs/games.md defines them; value_first and
#: value_second are NaN in one-player games).
GAME_METRICS = (
    "agreement_all", "agreement_decisive", "agreement_onpath", "weighted_agreement",
    "value_rmse", "value_max_error", "value_self_play", "value_first", "value_second",
    "score_vs_optimal", "exploitability", "states_with_data",
)
#: Each metric's range, to cut the 95% interval at in report.md and the figures (as the
#: handout's report does); metrics.json keeps the interval raw. The values (value_self_play,
#: value_first, value_second) lie in the game's return range and the value errors (value_rmse,
#: value_max_error) within its width: :meth:`GameStudy.ranges` adds them per game
#: (:func:`dicejack.games.bounds.game_bounds`).
_RANGES = {"agreement_all": (0.0, 1.0), "agreement_decisive": (0.0, 1.0),
           "agreement_onpath": (0.0, 1.0), "weighted_agreement": (0.0, 1.0),
           "value_rmse": (0.0, math.inf), "value_max_error": (0.0, math.inf),
           "score_vs_optimal": (-math.inf, 0.0), "exploitability": (0.0, math.inf),
           "states_with_data": (0.0, math.inf)}
_LOW = np.array([_RANGES.get(n, (-math.inf, math.inf))[0] for n in GAME_METRICS])
_HIGH = np.array([_RANGES.get(n, (-math.inf, math.inf))[1] for n in GAME_METRICS])

#: Default checkpoints of a game report: 1000, 2000, 5000, ..., 100,000.
GAME_DEFAULT_GAMES = series_125(1000, 100_000)
#: Default seeds per series of a game report.
GAME_DEFAULT_SEEDS = 5
#: Default learners of a game report.
GAME_DEFAULT_LEARNERS = ("q-learning", "mc-exploring-starts")


def _value_text(value: Any) -> str:
    """A parameter value as typed after ``--param key=`` (1/n for None; %g when exact)."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return format_value(value)


@dataclass(frozen=True)
class GameSeries:
    """One series (curve) of a game report: a learner of protocol games and the parameters set
    for it, (name, value) pairs in the learner's own order, checked."""

    learner: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        try:
            cls = game_learner_class(self.learner)
            given = dict(self.params)
            if len(given) != len(self.params):
                raise ReportError(f"a {cls.NAME} series sets a parameter twice")
            full = check_params(cls.NAME, cls.PARAMS, given)
        except checks.LearnerError as exc:
            raise ReportError(str(exc)) from None
        object.__setattr__(self, "learner", cls.NAME)
        object.__setattr__(self, "params", tuple((p.name, full[p.name]) for p in cls.PARAMS
                                                 if p.name in given))

    @property
    def label(self) -> str:
        """``q-learning``, ``q-learning alpha=0.1``."""
        return " ".join([self.learner, *(f"{k}={_value_text(v)}" for k, v in self.params)])

    @property
    def slug(self) -> str:
        """The label as a file-name part: ``q-learning_alpha0.1``."""
        text = "_".join([self.learner, *(f"{k}{_value_text(v)}" for k, v in self.params)])
        return "".join(c if c.isalnum() or c in "-._" else "-" for c in text.replace("/", "-"))

    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)


def check_game_learners(names: Iterable[str]) -> tuple[str, ...]:
    """Learners of protocol games (a bundled name in any spelling, or ``FILE.py:Class``) as
    their canonical names, none twice; :data:`GAME_DEFAULT_LEARNERS` when none is given."""
    if isinstance(names, (str, bytes)):
        names = (names,)
    out: list[str] = []
    for item in names:
        try:
            name = game_learner_class(str(item).strip()).NAME
        except checks.LearnerError as exc:
            raise ReportError(str(exc)) from None
        if name in out:
            raise ReportError(Parameter("learners"), f" names {name} twice")
        out.append(name)
    return tuple(out) or GAME_DEFAULT_LEARNERS


def game_param_targets(names: Sequence[str], key: str) -> list[tuple[str, Param]]:
    """What a parameter `key` of :func:`game_series_grid` sets among the learners `names`
    (canonical): ``learner.name`` that learner's parameter, a bare ``name`` that of every
    learner listed that has it (an error if none has); as (learner, its Param) pairs."""
    scope, dot, pname = str(key).strip().rpartition(".")
    if dot:
        scope = scope.strip().lower().replace("_", "-")
        if scope not in names:
            raise ReportError(f"{scope} is not in ", Parameter("learners"),
                              f" {','.join(names)}")
        spec = next((p for p in GAME_LEARNERS[scope].PARAMS if p.name == pname), None)
        if spec is None:
            valid = ", ".join(p.name for p in GAME_LEARNERS[scope].PARAMS)
            raise ReportError(f"learner {scope} has no parameter {pname!r}; its parameters: "
                              f"{valid}")
        return [(scope, spec)]
    targets = [(n, p) for n in names for p in GAME_LEARNERS[n].PARAMS if p.name == pname]
    if not targets:
        raise ReportError("no learner in ", Parameter("learners"), f" {','.join(names)} has a "
                          f"parameter {pname!r}")
    return targets


def _game_values(name: str, spec: Param, key: str, given: Any) -> list[Any]:
    """The values `given` (a list or tuple of them, or one value) for learner `name`'s
    parameter `spec`, each checked, at most :data:`SERIES_LIMIT`, none twice."""
    values = list(given) if isinstance(given, (list, tuple)) else [given]
    where = (Parameter("params"), f"[{key!r}]")
    if not values or len(values) > SERIES_LIMIT:
        raise ReportError(*where, f": give a value, or a list of at most {SERIES_LIMIT} values")
    try:
        values = [spec.check(name, v) for v in values]
    except checks.LearnerError as exc:
        raise ReportError(*where, f": {exc}") from None
    if len({repr(v) for v in values}) != len(values):
        raise ReportError(*where, ": the values must be distinct")
    return values


def game_series_grid(learners: Iterable[str] = GAME_DEFAULT_LEARNERS,
                     params: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()
                     ) -> tuple[GameSeries, ...]:
    """The series of a game report: learners of protocol games (:func:`check_game_learners`);
    `params` maps ``name`` (every listed learner with it; an error if none has it) or
    ``learner.name`` to a value or a list of values, one series per value, the parameters
    combined in every way (at most :data:`SERIES_LIMIT` series)."""
    names = check_game_learners(learners)
    settings: dict[str, dict[str, list[Any]]] = {n: {} for n in names}
    for key, given in series_pairs(params):
        try:
            targets = game_param_targets(names, key)
        except ReportError as exc:
            raise ReportError(Parameter("params"), f"[{key!r}]: ", *exc.parts) from None
        for name, spec in targets:
            if spec.name in settings[name]:
                raise ReportError(f"{name} parameter {spec.name} given twice")
            settings[name][spec.name] = _game_values(name, spec, key, given)
    total = sum(math.prod(len(v) for v in settings[n].values()) for n in names)
    if total > SERIES_LIMIT:
        raise ReportError(Parameter("params"), f" asks for {total:,} series; the limit is "
                          f"{SERIES_LIMIT:,} series in one report")
    out = []
    for name in names:
        keys = [p.name for p in GAME_LEARNERS[name].PARAMS if p.name in settings[name]]
        for combo in itertools.product(*(settings[name][k] for k in keys)):
            out.append(GameSeries(name, tuple(zip(keys, combo, strict=True))))
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _game(spec: str, params: tuple[tuple[str, Any], ...]) -> Any:
    try:
        return make_game(spec, dict(params))
    except GameDefinitionError as exc:
        raise ReportError(str(exc)) from None


@functools.lru_cache(maxsize=2)
def _solution(spec: str, params: tuple[tuple[str, Any], ...]) -> GameSolution:
    """The game's exact solution, once per process (forked workers inherit the parent's)."""
    try:
        return solve(game_space(_game(spec, params)))
    except GameDefinitionError as exc:
        raise ReportError(str(exc)) from None


@dataclass(frozen=True)
class GameReportConfig:
    """What a game report studies: the game (`game_spec` as ``--game`` takes it, a bundled
    name or ``FILE.py:Class``, and its `game_params` as (name, value) pairs), the series, the
    checkpoint game counts and seeds ``first_seed + 0..seeds-1``."""

    game_spec: str = "pig"
    game_params: tuple[tuple[str, Any], ...] = ()
    series: tuple[GameSeries, ...] = ()
    games: tuple[int, ...] = GAME_DEFAULT_GAMES
    seeds: int = GAME_DEFAULT_SEEDS
    first_seed: int = 1
    figure_formats: tuple[str, ...] = ("png",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "game_params", tuple((str(k), v) for k, v in
                                                      dict(self.game_params).items()))
        series = tuple(self.series) or game_series_grid()
        if any(not isinstance(s, GameSeries) for s in series):
            raise ReportError(Parameter("series"), " must be GameSeries")
        if len(series) > SERIES_LIMIT:
            raise ReportError(f"{len(series):,} series; the limit is {SERIES_LIMIT:,}")
        for kind, values in (("series labels", [s.label for s in series]),
                             ("series file names", [s.slug for s in series])):
            if len(set(values)) != len(values):
                raise ReportError(f"{kind} must be distinct")
        object.__setattr__(self, "series", series)
        object.__setattr__(self, "games", check_games(self.games))
        try:
            fmts = check_formats(("png", *(self.figure_formats or ())))
        except ValueError as exc:
            raise ReportError(Parameter("figure_formats"), f": {exc}") from None
        object.__setattr__(self, "figure_formats", fmts)
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, (int, np.integer)):
            raise ReportError(Parameter("seeds"), f" must be a whole number, got {self.seeds!r}")
        if not 1 <= self.seeds <= SEEDS_LIMIT:
            raise ReportError(Parameter("seeds"), f" must be in 1..{SEEDS_LIMIT:,}, got "
                              f"{self.seeds}")
        total = self.seeds * len(series) * self.games[-1]
        try:
            checks.check_games_limit(total, limit=TOTAL_GAMES_LIMIT)
        except checks.LearnerError as exc:
            raise ReportError(f"the study plays {self.seeds} seeds x {len(series)} series x "
                              f"{self.games[-1]:,} games: {exc}") from None
        if not 0 <= self.first_seed < 2**63 - self.seeds:
            raise ReportError(f"the first seed must be >= 0, got {self.first_seed}")
        self.game  # noqa: B018 - a bad game or parameter fails here, in one line

    @property
    def game(self) -> Any:
        """The game object (built once per process)."""
        return _game(self.game_spec, self.game_params)

    @property
    def label(self) -> str:
        """The game and its parameters, e.g. ``pig goal=40 die=6``."""
        return game_label(self.game)

    @property
    def slug(self) -> str:
        """The game as a folder name: ``pig-goal40-die6``."""
        words = [str(self.game.name), *(f"{k}{v}" for k, v in game_params(self.game).items())]
        text = "-".join(words).replace("/", "_")
        return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)

    @property
    def seed_list(self) -> tuple[int, ...]:
        return tuple(self.first_seed + i for i in range(self.seeds))

    def command(self) -> str:
        """The `dicejack report` command line that reproduces this study."""
        words = ["dicejack report", f"--game {self.game_spec}"]
        words += [f"--game-param {k}={v}" for k, v in self.game_params]
        names = list(dict.fromkeys(s.learner for s in self.series))
        words.append(f"--learner {','.join(names)}")
        for name in names:
            mine = [dict(s.params) for s in self.series if s.learner == name]
            for p in GAME_LEARNERS[name].PARAMS:
                values = list(dict.fromkeys(_value_text(d[p.name]) for d in mine if p.name in d))
                if values:
                    words.append(f"--param {name}.{p.name}={','.join(values)}")
        games = ",".join(str(n) for n in self.games)
        if self.games == series_125(self.games[0], self.games[-1]):
            games = f"{self.games[0]}..{self.games[-1]}"
        words += [f"--games {games}", f"--seeds {self.seeds}"]
        if self.first_seed != 1:
            words.append(f"--seed {self.first_seed}")
        if self.figure_formats != ("png",):
            words.append(f"--figure-format {','.join(self.figure_formats)}")
        return " ".join(words)


@dataclass(frozen=True, eq=False)
class GameRunResult:
    """One learner run: values[i, k] is metric GAME_METRICS[k] after games[i] games; best and
    value the greedy tables at the last checkpoint (a row per state, -1 = no data); CPU
    seconds of the thread that learned and measured."""

    series: GameSeries
    seed: int
    games: tuple[int, ...]
    values: np.ndarray
    best: np.ndarray
    value: np.ndarray
    moves: int
    learn_seconds: float
    metrics_seconds: float


def run_game_one(spec: str, params: tuple[tuple[str, Any], ...], series: GameSeries, seed: int,
                 games: tuple[int, ...]) -> GameRunResult:
    """One run of `series` on the game (`spec`, `params`) with snapshots at `games`, every
    metric at every snapshot. Top-level and picklable: what executors run."""
    game, sol = _game(spec, params), _solution(spec, params)
    t0 = time.thread_time()
    run = learn(game, game_learner_class(series.learner), games[-1], seed, checkpoints=games,
                **series.kwargs())
    t1 = time.thread_time()
    values = np.empty((len(games), len(GAME_METRICS)))
    for i, n in enumerate(games):
        tables = run.snapshots[n]
        m = learned_metrics(sol, tables.best, tables.value)
        values[i] = [float(m.get(name, math.nan)) for name in GAME_METRICS]
    t2 = time.thread_time()
    return GameRunResult(series, int(seed), tuple(games), values,
                         np.asarray(run.final.best, dtype=np.int64),
                         np.asarray(run.final.value, dtype=np.float64), int(run.moves or 0),
                         t1 - t0, t2 - t1)


@dataclass(frozen=True, eq=False)
class GameStudy:
    """Every run of a game study, in (series, seed) order, with the exact solution."""

    config: GameReportConfig
    solution: GameSolution
    runs: tuple[GameRunResult, ...]
    timing: dict[str, float] = field(default_factory=dict)

    def runs_for(self, series: GameSeries) -> list[GameRunResult]:
        return [r for r in self.runs if r.series == series]

    def values(self, series: GameSeries) -> np.ndarray:
        """(seeds, checkpoints, metrics) for one series."""
        return np.stack([r.values for r in self.runs_for(series)])

    @functools.cached_property
    def _summaries(self) -> dict[GameSeries, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return {s: interval(self.values(s), axis=0) for s in self.config.series}

    @functools.cached_property
    def ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """(least, greatest) per metric of GAME_METRICS: :data:`_RANGES`, and for this game the
        values within its return range (player 0's, over every play), the value errors within
        its width (an open side, from a cycle that pays, leaves that side open)."""
        from dicejack.games.bounds import game_bounds

        low, high = _LOW.copy(), _HIGH.copy()
        b = game_bounds(self.solution.space)
        width = b.high - b.low if math.isfinite(b.high - b.low) else math.inf
        for name in ("value_self_play", "value_first", "value_second"):
            low[GAME_METRICS.index(name)], high[GAME_METRICS.index(name)] = b.low, b.high
        for name in ("value_rmse", "value_max_error"):
            high[GAME_METRICS.index(name)] = width
        return low, high

    def summary(self, series: GameSeries, *, clipped: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high), each (checkpoints, metrics), over seeds; `clipped` cuts the
        interval at each metric's range (:attr:`ranges`; as report.md and the figures show
        it)."""
        mean, lo, hi = self._summaries[series]
        if not clipped:
            return mean, lo, hi
        low, high = self.ranges
        return mean, np.clip(lo, low, high), np.clip(hi, low, high)

    def metric(self, series: GameSeries, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high) per checkpoint of one metric, the interval cut at its range."""
        k = GAME_METRICS.index(name)
        mean, lo, hi = self.summary(series, clipped=True)
        return mean[:, k], lo[:, k], hi[:, k]

    def games_to_target(self, series: GameSeries, name: str, target: float) -> Any:
        """When `series` reaches `target` in metric `name`
        (:func:`dicejack.report.study.games_to_reach`)."""
        k = GAME_METRICS.index(name)
        return games_to_reach(self.values(series)[:, :, k], self.config.games, target)

    def optimal_share(self, series: GameSeries) -> np.ndarray:
        """Per state, the share of the series' seeds whose greedy action at the last checkpoint
        is optimal (no data counts as wrong); NaN at terminal states."""
        sol = self.solution
        live = ~sol.space.terminal
        right = np.zeros(sol.space.n_states)
        for r in self.runs_for(series):
            known = live & (r.best >= 0)
            ok = np.zeros(sol.space.n_states, dtype=bool)
            ok[known] = sol.optimal[r.best[known]]
            right += ok
        out = right / max(len(self.runs_for(series)), 1)
        out[~live] = np.nan
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per run, checkpoint and metric (metrics.csv in long form)."""
        return [{"series": r.series.label, "learner": r.series.learner, "games": n,
                 "seed": r.seed, "metric": name, "value": float(r.values[i, k])}
                for r in self.runs for i, n in enumerate(r.games)
                for k, name in enumerate(GAME_METRICS)]

    def summary_rows(self) -> list[dict[str, Any]]:
        """One row per series, checkpoint and metric: mean, low, high (raw interval), n."""
        out = []
        for s in self.config.series:
            mean, lo, hi = self.summary(s)
            defined = np.isfinite(self.values(s)).sum(axis=0)
            for i, n in enumerate(self.config.games):
                for k, name in enumerate(GAME_METRICS):
                    out.append({"series": s.label, "games": n, "metric": name,
                                "mean": float(mean[i, k]), "low": float(lo[i, k]),
                                "high": float(hi[i, k]), "n": int(defined[i, k])})
        return out


def run_game_study(config: GameReportConfig, *, workers: int | None = None,
                   dask: str | None = None, executor: cf.Executor | None = None,
                   progress: bool = False) -> GameStudy:
    """Run every (series, seed) of `config` (the numbers do not depend on the executor)."""
    timing: dict[str, float] = {}
    key = (config.game_spec, config.game_params)
    t0 = time.perf_counter()
    sol = _solution(*key)
    timing["solve"] = time.perf_counter() - t0
    t0 = time.perf_counter()  # compile each learner's loop once, before workers fork
    for s in {s.learner: s for s in config.series}.values():
        learn(config.game, game_learner_class(s.learner), 1, 0, **s.kwargs())
    timing["warmup"] = time.perf_counter() - t0
    tasks = [(config.game_spec, config.game_params, s, seed, config.games)
             for s in config.series for seed in config.seed_list]
    if workers is None and dask is None and executor is None:
        workers = min(os.cpu_count() or 1, len(tasks))
    t0 = time.perf_counter()
    try:
        runs = tuple(parallel.map_tasks(run_game_one, tasks, workers=workers, dask=dask,
                                        executor=executor, label="learner runs",
                                        progress=progress))
    except parallel.ExecutorError as exc:
        raise ReportError(str(exc)) from None
    timing["runs_wall"] = time.perf_counter() - t0
    timing["learn_cpu"] = sum(r.learn_seconds for r in runs)
    timing["metrics_cpu"] = sum(r.metrics_seconds for r in runs)
    timing["moves"] = float(sum(r.moves for r in runs))
    return GameStudy(config, sol, runs, timing)

