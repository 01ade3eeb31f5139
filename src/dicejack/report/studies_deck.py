"""The deck divide-the-dollar study (E. Wild, ``ecterceocgan/deck-divide-dollar``) redone against
exact truth: its numbers, computed (:func:`deck_study`); the report is
:mod:`dicejack.report.studies_deck_report`.

The study's Monte Carlo agent (:class:`~dicejack.learners.deck_mc.DeckMC`, as its quoted code
does it, and with its oddities switched to the evident intent) learns against the uniformly
random opponent on the harness (:func:`dicejack.learners.learn`, checkpoints); at each
checkpoint its greedy policy is valued exactly (:func:`~dicejack.solver.deck_evaluation.
evaluate_deck_policy`), beside the exact values of the baselines (always the smallest, the
median, the largest card; uniform play), of the best policy local search finds with the exact
evaluator (:func:`~dicejack.solver.deck_search.local_search`) and the full-information upper
bound. Settings (:class:`DeckStudy`): the study's deck (16, 28, 16; hands of 5; 26 rounds) under
the evident intent's rules (``passing=False``; valuing a policy exactly under the quoted
code's passing follower at this deck takes 15 to 613 CPU-s, so there the policies are simulated,
beside the exact full-information bound), and a small deck (6, 10, 6; hands of 5; 7 rounds)
under both rule sets, where everything is exact. The quoted code's own setting (the study deck,
``passing=True``) is learned too and its final policies simulated (the study's own measure).

The learner series (:data:`SERIES`: name -> function giving, for a game, a seed and the
checkpoints, the greedy player at each; :data:`DEFAULT_SERIES` run by default): the Monte Carlo
agent twice (the quoted code, the evident intent) and the evolved finite-state-machine players
(:class:`~dicejack.learners.deck_fsm.DeckFSM`, series ``fsm``, settings :data:`FSM_PARAMS`),
whose games are the games their fitness simulations play and whose greedy player is the
fittest machine of the latest scoring, valued exactly by
:func:`~dicejack.solver.deck_fsm_evaluation.evaluate_fsm` (simulated by
:func:`~dicejack.solver.deck_fsm_evaluation.simulate_fsm` in the quoted code's own setting).

The FSM settings are chosen to fit the run: an exact value of a machine at the study's deck
costs about 2.5 CPU-s per machine state (a random 8-state machine, 31 s; 2 states, 5 s), and the
series takes five of them per seed (the initial machine, which the checkpoints under one
scoring round share, then 10,000 games onward); with 2 states, population 36 and 100 games
per machine (3,600 games a scoring round, 555 of them in 2,000,000 games), seed 1 reached an
exact 0.7178 at the study's deck (3 states: 0.6925; 100 games per machine beat 500 and 1000
at 2 states: 0.7148, 0.7144).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import DeckDollar, Tally, fixed_policy, simulate, uniform_policy
from dicejack.learners import learn
from dicejack.learners.deck_fsm import DeckFSM
from dicejack.learners.deck_mc import DeckMC
from dicejack.report.studies_deck_duel import DuelCurves, deck_duel_curves
from dicejack.solver.deck_evaluation import (
    DeckEvaluation,
    evaluate_deck_policy,
    full_information_bound,
)
from dicejack.solver.deck_fsm_evaluation import FsmPlayer, evaluate_fsm, simulate_fsm
from dicejack.solver.deck_search import local_search

__all__ = ["DeckStudy", "deck_study", "SERIES", "DEFAULT_SERIES", "SEARCH_ACTIONS",
           "BASELINES", "Checkpoint", "FSM_PARAMS", "exact_value", "simulate_player"]

#: The policy local search (from "always largest", 20 sweeps; benchmarks/bench_deck_evaluation.py
#: --search) finds at the study's deck under ``passing=False``: 40 actions, observation order.
SEARCH_ACTIONS = "2122222222211222222220000022222222122002"

#: The learner series run by default (:data:`SERIES`).
DEFAULT_SERIES = ("mc-code", "mc-intent", "fsm")

#: The FSM series' learner settings (module docstring: chosen to fit the default run).
FSM_PARAMS: dict[str, Any] = {"n_states": 2, "population": 36, "machine_games": 100}

#: The baselines by name.
BASELINES: dict[str, Callable[[], np.ndarray]] = {
    "always smallest": lambda: fixed_policy(0),
    "always median": lambda: fixed_policy(1),
    "always largest": lambda: fixed_policy(2),
    "uniform": uniform_policy,
}


@dataclass(frozen=True)
class DeckStudy:
    """The study's settings: learner seeds, games per run, the checkpoints (the greedy policy
    valued exactly after that many games; `games` is always one), the decks (the study's and a
    small one: hands of `hand_size` and `small_hand`), the games simulated per final policy
    (the study's own measure), the learner series, whether to run the search at the
    study's deck (else :data:`SEARCH_ACTIONS`, found so, is valued), whether to compute the
    full-information bound in the code's own setting (about 550 CPU-s and 4 GB at the study's
    deck, :func:`~dicejack.solver.deck_evaluation.full_information_bound`, rounds spilled to
    temporary files), and the two-player deck (None: none) where CFR learns with its
    checkpoints (:func:`~dicejack.report.studies_deck_duel.deck_duel_curves`)."""

    seeds: tuple[int, ...] = (1, 2, 3)
    games: int = 2_000_000
    checkpoints: tuple[int, ...] = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
    counts: tuple[int, int, int] = (16, 28, 16)
    small_counts: tuple[int, int, int] = (6, 10, 6)
    hand_size: int = 5
    small_hand: int = 5
    simulated_games: int = 100_000
    series: tuple[str, ...] = DEFAULT_SERIES
    search_study_deck: bool = False
    code_bound: bool = True
    duel_counts: tuple[int, int, int] | None = (3, 4, 3)
    duel_hand: int = 2
    duel_checkpoints: tuple[int, ...] = (10, 100, 1_000, 10_000)

    @property
    def marks(self) -> tuple[int, ...]:
        return tuple(sorted({c for c in self.checkpoints if c < self.games} | {self.games}))


@dataclass(frozen=True)
class Checkpoint:
    """A learner's greedy player after `games` games (an observation policy, or a machine),
    the games it won, drew and lost while learning so far, the observations it met and the
    (observation, action) pairs at those it never credited (None where the learner does not
    count them)."""

    games: int
    policy: np.ndarray | FsmPlayer
    outcomes: tuple[int, int, int] | None
    met: int | None = None
    untried: int | None = None


def _mc_series(params: dict[str, Any]) -> Callable[[DeckDollar, int, tuple[int, ...]],
                                                   list[Checkpoint]]:
    def run(game: DeckDollar, seed: int, marks: tuple[int, ...]) -> list[Checkpoint]:
        result = learn(game, DeckMC, marks[-1], seed, checkpoints=marks[:-1], **params)
        tables = {**dict(result.snapshots), result.games: result.final}
        out = []
        for n in marks:
            counts = np.asarray(tables[n].counts)
            met = counts.sum(axis=1) > 0
            out.append(Checkpoint(n, np.array(tables[n].policy),
                                  tuple(int(x) for x in tables[n].outcomes), int(met.sum()),
                                  int((counts[met] == 0).sum())))
        return out
    return run


def _fsm_series(game: DeckDollar, seed: int, marks: tuple[int, ...]) -> list[Checkpoint]:
    result = learn(game, DeckFSM, marks[-1], seed, checkpoints=marks[:-1], **FSM_PARAMS)
    tables = {**dict(result.snapshots), result.games: result.final}
    return [Checkpoint(n, tables[n].best, None) for n in marks]


#: The learner series by name: (label, function(game, seed, checkpoints) -> Checkpoints).
SERIES: dict[str, tuple[str, Callable[[DeckDollar, int, tuple[int, ...]], list[Checkpoint]]]] = {
    "mc-code": ("Monte Carlo, the quoted code", _mc_series({})),
    "mc-intent": ("Monte Carlo, the evident intent", _mc_series(dict(DeckMC.INTENT))),
    "fsm": ("evolved FSM players", _fsm_series),
}


def exact_value(game: DeckDollar, player: np.ndarray | FsmPlayer) -> DeckEvaluation:
    """The exact value of an observation policy or a machine against the uniform opponent."""
    if isinstance(player, FsmPlayer):
        return evaluate_fsm(game, player)
    return evaluate_deck_policy(game, player)


def simulate_player(game: DeckDollar, player: np.ndarray | FsmPlayer, games: int,
                    rng: np.random.Generator) -> Tally:
    """`games` seeded games of an observation policy or a machine against the uniform
    opponent."""
    if isinstance(player, FsmPlayer):
        return simulate_fsm(game, player, games, rng)
    return simulate(game, player, games, rng)


class _Exact:
    """Exact evaluations, each policy or machine once per game."""

    def __init__(self) -> None:
        self.cache: dict[tuple[DeckDollar, bytes], DeckEvaluation] = {}

    def __call__(self, game: DeckDollar, policy: Any) -> DeckEvaluation:
        if isinstance(policy, FsmPlayer):
            key = (game, b"fsm" + policy.actions.tobytes() + policy.transitions.tobytes()
                   + str(policy.initial).encode())
        else:
            arr = np.asarray(policy)
            key = (game, arr.dtype.str.encode() + arr.tobytes())
        if key not in self.cache:
            self.cache[key] = exact_value(game, policy)
        return self.cache[key]


def _exact_setting(cfg: DeckStudy, name: str, game: DeckDollar, exact: _Exact,
                   search: bool) -> dict[str, Any]:
    """One exact setting: baselines, search, bound, and every series' checkpoints valued."""
    title = ("the study's deck" if name.startswith("study") else "a small deck") + \
        (", the quoted code's rules" if game.passing else ", the evident intent's rules")
    out: dict[str, Any] = {"name": name, "title": title, "game": game}
    out["baselines"] = {k: exact(game, make()) for k, make in BASELINES.items()}
    actions = None
    if search:
        found = local_search(game, np.full(40, 2), sweeps=20)
        actions, converged = found.actions, found.converged
    elif SEARCH_ACTIONS and game == DeckDollar(passing=False):
        actions, converged = np.array([int(c) for c in SEARCH_ACTIONS]), True
    out["search"] = None if actions is None else {
        "actions": actions, "value": exact(game, actions), "converged": converged}
    out["bound"] = full_information_bound(game)
    runs, finals = [], {}
    for series in cfg.series:
        _, learner = SERIES[series]
        for seed in cfg.seeds:
            marks = learner(game, seed, cfg.marks)
            finals[(series, seed)] = marks[-1].policy
            before = (0, 0, 0)
            for mark in marks:
                value = exact(game, mark.policy)
                row = {"setting": name, "passing": game.passing, "series": series,
                       "seed": seed, "games": mark.games, "expected": value.expected,
                       "win": value.win, "draw": value.draw, "loss": value.loss,
                       "window": None, "met": mark.met, "untried": mark.untried}
                if mark.outcomes is not None:
                    row["window"] = tuple(a - b for a, b in zip(mark.outcomes, before,
                                                                strict=True))
                    before = mark.outcomes
                runs.append(row)
    out["runs"], out["finals"] = runs, finals
    return out


def _code_setting(cfg: DeckStudy) -> dict[str, Any]:
    """The quoted code's own setting (the study's deck, the passing follower): learned, final
    policies simulated (seeded), as the study itself would measure them."""
    game = DeckDollar(cfg.counts, cfg.hand_size, passing=True)
    out: dict[str, Any] = {"game": game, "finals": {}, "tallies": {}, "windows": {}}
    marks = (cfg.games,)
    for series in cfg.series:
        _, learner = SERIES[series]
        for seed in cfg.seeds:
            final = learner(game, seed, marks)[-1]
            out["finals"][(series, seed)] = final.policy
            out["windows"][(series, seed)] = final.outcomes
            out["tallies"][(series, seed)] = simulate_player(
                game, final.policy, cfg.simulated_games, np.random.default_rng([seed, 4747]))
    out["baselines"] = {k: simulate(game, make(), cfg.simulated_games,
                                    np.random.default_rng([i, 4747]))
                        for i, (k, make) in enumerate(BASELINES.items())}
    out["bound"] = full_information_bound(game, spill=True) if cfg.code_bound else None
    return out


def _duel(cfg: DeckStudy) -> list[DuelCurves]:
    """CFR+ and outcome sampling on the two-player game at the duel's deck (none without one)."""
    if cfg.duel_counts is None:
        return []
    game = DeckDollar(cfg.duel_counts, cfg.duel_hand, passing=True)
    return [deck_duel_curves(game, cfg.seeds, cfg.duel_checkpoints, variant)
            for variant in ("cfr+", "outcome-sampling")]


def deck_study(config: DeckStudy = DeckStudy()) -> dict[str, Any]:
    """Every number of the study (module docstring), as plain values."""
    exact = _Exact()
    big = DeckDollar(config.counts, config.hand_size, passing=False)
    settings = [
        _exact_setting(config, "study-deck-intent", big, exact, config.search_study_deck),
        _exact_setting(config, "small-deck-code",
                       DeckDollar(config.small_counts, config.small_hand, passing=True), exact,
                       True),
        _exact_setting(config, "small-deck-intent",
                       DeckDollar(config.small_counts, config.small_hand, passing=False), exact,
                       True),
    ]
    out: dict[str, Any] = {"config": config, "settings": settings, "code": _code_setting(config),
                           "fsm_params": dict(FSM_PARAMS), "duel": _duel(config)}
    for setting in settings:
        sim = {}
        for key, final in setting["finals"].items():
            sim[key] = simulate_player(setting["game"], final, config.simulated_games,
                                np.random.default_rng([key[1], 4748]))
        setting["simulated"] = sim
    return out
