"""One learner run of a report, measured exactly at every checkpoint, for any game.

Owns what a run measures, not the study around it (:mod:`dicejack.report.study`). The game
decides the metrics: the handout's game has every metric of :mod:`dicejack.compare`
(:data:`dicejack.compare.METRIC_NAMES`: the handout's caveats made precise, against
:func:`dicejack.compare.truth.truth_for`); another game has :data:`GAME_METRICS`, measured
against its exact solution (:func:`dicejack.compare.metrics.learned_metrics`:
agreement, value error, the exact value of the learned policy in each seat, exploitability); a
game with hidden information (Kuhn poker) has :data:`INFORMATION_METRICS`, those of CFR's
average policy over the game's tree of plays, against its sequence-form solution
(:func:`information_metrics`). :func:`run_one` is one run, top-level and given only plain
values: what executors run. A run depends only on (game, series, seed, checkpoints), never on
the executor.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack import compare, learners
from dicejack.compare import METRIC_NAMES, METRIC_RANGES
from dicejack.compare.hidden_information import hidden_metrics
from dicejack.compare.metrics import learned_metrics, metric_values
from dicejack.compare.truth import Truth, truth_for
from dicejack.games import GameDefinitionError
from dicejack.games.information import InformationTree, is_information_game
from dicejack.learners import learn
from dicejack.learners.catalogue import game_learner_class
from dicejack.learners.game_learners import game_space
from dicejack.report.config import ReportConfig, protocol_game
from dicejack.report.limits import ReportError
from dicejack.report.series import SeriesSpec
from dicejack.solver import GameSolution, solve
from dicejack.solver.sequence_form import SequenceFormSolution

__all__ = [
    "GAME_METRICS",
    "INFORMATION_METRICS",
    "information_metrics",
    "information_value",
    "metric_names",
    "metric_ranges",
    "protocol_solution",
    "exact_solution",
    "RunResult",
    "run_one",
    "warm_up",
]

#: The metrics of a report on another game, per checkpoint (docs/games.md defines them;
#: value_first and value_second are NaN in one-player games).
GAME_METRICS = (
    "agreement_all", "agreement_decisive", "agreement_onpath", "weighted_agreement",
    "value_rmse", "value_max_error", "value_self_play", "value_first", "value_second",
    "score_vs_optimal", "exploitability", "states_with_data",
)
#: Each of GAME_METRICS' range, to cut the 95% interval at in report.md and the figures (as
#: the handout's are); metrics.json keeps the interval raw. The values (value_self_play,
#: value_first, value_second) lie in the game's return range and the value errors
#: (value_rmse, value_max_error) within its width: :func:`metric_ranges` adds them per game
#: (:func:`dicejack.games.bounds.game_bounds`).
_GAME_RANGES = {"agreement_all": (0.0, 1.0), "agreement_decisive": (0.0, 1.0),
                "agreement_onpath": (0.0, 1.0), "weighted_agreement": (0.0, 1.0),
                "value_rmse": (0.0, math.inf), "value_max_error": (0.0, math.inf),
                "score_vs_optimal": (-math.inf, 0.0), "exploitability": (0.0, math.inf),
                "states_with_data": (0.0, math.inf)}


#: The metrics of a report on a game with hidden information, per checkpoint, all of the
#: learned (average) policy, exact over the game's tree of plays: compare's own
#: (:func:`dicejack.compare.hidden_information.hidden_metrics`, docs/design/metrics.md), the
#: game's value left out (it is the report's constant): exploitability, nash_conv, value_first
#: and value_second (each seat against the sequence form's equilibrium), loss_first and
#: loss_second (what each seat gives up against the game's value), score_vs_optimal and
#: value_self_play.
INFORMATION_METRICS = ("exploitability", "nash_conv", "value_first", "value_second",
                       "loss_first", "loss_second", "score_vs_optimal", "value_self_play")

#: Information metrics that are never negative (the rest lie in the game's payoff range).
_NON_NEGATIVE = ("exploitability", "nash_conv", "loss_first", "loss_second")


def metric_names(config: ReportConfig) -> tuple[str, ...]:
    """The metrics a study of `config` measures: METRIC_NAMES for the handout's game,
    :data:`GAME_METRICS` for another, :data:`INFORMATION_METRICS` for one with hidden
    information."""
    if config.information:
        return INFORMATION_METRICS
    return GAME_METRICS if config.protocol else METRIC_NAMES


def _information_ranges(tree: InformationTree, names: Sequence[str]
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(least, greatest) per information metric: values within player 0's payoff range over
    every play's end, the gains and losses from 0 to that range's width (twice it for nash_conv
    and, negated, for score_vs_optimal)."""
    ends = [float(tree.utility[n]) for n in tree.terminals()]
    low, high = min(ends), max(ends)
    width = high - low
    least = {"score_vs_optimal": -2 * width}
    most = {"exploitability": width, "nash_conv": 2 * width, "loss_first": width,
            "loss_second": width, "score_vs_optimal": 0.0}
    return (np.array([least.get(n, 0.0 if n in _NON_NEGATIVE else low) for n in names]),
            np.array([most.get(n, high) for n in names]))


def metric_ranges(truth: Truth | GameSolution | SequenceFormSolution, names: Sequence[str]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(least, greatest) per metric of `names`: :data:`dicejack.compare.METRIC_RANGES` for the
    handout's game; for another game the fixed ranges, its values within its return range
    (player 0's, over every play) and its value errors within that range's width (an open
    side, from a cycle that pays, leaves that side open); a game with hidden information:
    :func:`_information_ranges`."""
    if isinstance(truth, Truth):
        return (np.array([METRIC_RANGES[n][0] for n in names]),
                np.array([METRIC_RANGES[n][1] for n in names]))
    if isinstance(truth, SequenceFormSolution):
        return _information_ranges(truth.tree, names)
    from dicejack.games.bounds import game_bounds

    low = np.array([_GAME_RANGES.get(n, (-math.inf, math.inf))[0] for n in names])
    high = np.array([_GAME_RANGES.get(n, (-math.inf, math.inf))[1] for n in names])
    b = game_bounds(truth.space)
    width = b.high - b.low if math.isfinite(b.high - b.low) else math.inf
    for name in ("value_self_play", "value_first", "value_second"):
        low[names.index(name)], high[names.index(name)] = b.low, b.high
    for name in ("value_rmse", "value_max_error"):
        high[names.index(name)] = width
    return low, high


@functools.lru_cache(maxsize=2)
def protocol_solution(spec: str, params: tuple[tuple[str, Any], ...]
                      ) -> GameSolution | SequenceFormSolution:
    """Another game's exact solution, once per process (forked workers inherit the
    parent's): a GameSolution, or for a game with hidden information its sequence-form
    equilibrium (:func:`dicejack.solver.solve` takes either)."""
    game = protocol_game(spec, params)
    try:
        return solve(game) if is_information_game(game) else solve(game_space(game))
    except GameDefinitionError as exc:
        raise ReportError(str(exc)) from None


def exact_solution(config: ReportConfig) -> Truth | GameSolution | SequenceFormSolution:
    """The exact solution of `config`'s game: a :class:`~dicejack.compare.truth.Truth` for the
    handout's game, a GameSolution for another, a SequenceFormSolution for one with hidden
    information."""
    key = config.game_key
    return protocol_solution(*key) if config.protocol else truth_for(key)


@dataclass(frozen=True, eq=False)
class RunResult:
    """What one learner run sends back: metric values per checkpoint, the last tables, timings.

    values[i, k] is metric k (of :func:`metric_names`) after games[i] games. best and estimate
    are the learned tables after the last checkpoint: for the handout's game the best J and
    win probability per <X,Y>, for another game the greedy action's row and the value per
    state (-1: no data); for a game with hidden information, best is empty and estimate the
    average policy per slot (:class:`~dicejack.learners.cfr.CFRTables`). learn_seconds and
    metrics_seconds are CPU seconds of the thread that did the work.
    """

    series: SeriesSpec
    seed: int
    games: tuple[int, ...]
    values: np.ndarray
    best: np.ndarray
    estimate: np.ndarray
    moves: int
    learn_seconds: float
    metrics_seconds: float

    @property
    def m(self) -> float:
        """The handout's M of the run's series (NaN for another learner)."""
        m = self.series.m
        return math.nan if m is None else m


def run_one(
    game: tuple[Any, ...], series: SeriesSpec | float, seed: int, games: tuple[int, ...],
) -> RunResult:
    """One learner run of `game` (:attr:`ReportConfig.game_key`: the handout's (n_sides, low,
    high, n_dice), or another game's (name, params)) for `series` (a
    :class:`~dicejack.report.series.SeriesSpec`, or a number: the handout's learner with that
    M) with snapshots at `games`, and every metric at every snapshot.

    Top-level, picklable, and given only plain values: this is what executors run.
    """
    spec = series if isinstance(series, SeriesSpec) else SeriesSpec.handout(series)
    if spec.protocol:
        return _protocol_run(game, spec, seed, games)
    t = truth_for(game)
    t0 = time.thread_time()
    run = learners.learn(t.game, spec.learner, games[-1], seed, checkpoints=games,
                         **spec.kwargs())
    t1 = time.thread_time()
    values = np.empty((len(games), len(METRIC_NAMES)))
    for i, n in enumerate(games):
        tables = run.snapshots[n]
        metrics = metric_values(
            t, compare.learned_from_tables(t.game, tables.best, tables.probability))
        values[i] = [metrics[name] for name in METRIC_NAMES]
    t2 = time.thread_time()
    last = compare.learned_from_tables(t.game, run.final.best, run.final.probability)
    return RunResult(
        series=spec, seed=int(seed), games=tuple(games), values=values,
        best=np.asarray(last.best, dtype=np.int8 if t.game.n_dice < 128 else np.int64),
        estimate=np.asarray(last.probability), moves=int(run.moves or 0),
        learn_seconds=t1 - t0, metrics_seconds=t2 - t1,
    )


def _protocol_run(game: tuple[Any, ...], series: SeriesSpec, seed: int,
                  games: tuple[int, ...]) -> RunResult:
    """:func:`run_one` on another game (name, params): its :data:`GAME_METRICS` (a game with
    hidden information: :data:`INFORMATION_METRICS`)."""
    played, sol = protocol_game(*game), protocol_solution(*game)
    t0 = time.thread_time()
    run = learn(played, game_learner_class(series.learner, played), games[-1], seed,
                checkpoints=games, **series.kwargs())
    if isinstance(sol, SequenceFormSolution):
        t1 = time.thread_time()
        values = np.array([[information_metrics(sol, run.snapshots[n].policy())[name]
                            for name in INFORMATION_METRICS] for n in games])
        return RunResult(series, int(seed), tuple(games), values, np.zeros(0, dtype=np.int64),
                         np.asarray(run.final.average, dtype=np.float64), int(run.moves or 0),
                         t1 - t0, time.thread_time() - t1)
    t1 = time.thread_time()
    values = np.empty((len(games), len(GAME_METRICS)))
    for i, n in enumerate(games):
        tables = run.snapshots[n]
        m = learned_metrics(sol, tables.best, tables.value)
        values[i] = [float(m.get(name, math.nan)) for name in GAME_METRICS]
    t2 = time.thread_time()
    return RunResult(series, int(seed), tuple(games), values,
                     np.asarray(run.final.best, dtype=np.int64),
                     np.asarray(run.final.value, dtype=np.float64), int(run.moves or 0),
                     t1 - t0, t2 - t1)


def information_value(solution: SequenceFormSolution) -> float:
    """The game's value as the report states it: its exact value when the solver found one
    (Kuhn poker: -1/18), else the programme's optimum."""
    exact = solution.exact_value
    return float(exact if exact is not None else solution.value)


def information_metrics(solution: SequenceFormSolution, policy: Any) -> dict[str, float]:
    """:data:`INFORMATION_METRICS` of `policy` (key -> {action: probability}, floats) in the
    game of `solution`: compare's (:func:`~dicejack.compare.hidden_information.hidden_metrics`,
    exact over its tree of plays, one float rounding per operation), as floats."""
    metrics = hidden_metrics(solution, policy)
    return {name: float(metrics[name]) for name in INFORMATION_METRICS if name in metrics}


def warm_up(config: ReportConfig) -> None:
    """One tiny run of each learner of `config`: it compiles (or loads from numba's cache)
    every kernel once, before any worker starts; forked workers inherit the kernels and the
    game. (Another game's learners only learn here: measuring is the slow part there.)"""
    if config.protocol:
        for s in {s.learner: s for s in config.series}.values():
            learn(config.game_object, game_learner_class(s.learner, config.game_object), 1, 0,
                  **s.kwargs())
        return
    for spec in {s.learner: s for s in reversed(config.series)}.values():
        run_one(config.game_key, spec, 0, (1,))
