"""The deck divide-the-dollar study's two-player piece: a CFR-family learner on the deck game
between two players who see their own hands (:class:`~dicejack.games.deck_information.DeckDuel`,
small decks only), its exact curves over seeds (:func:`deck_duel_curves`, :class:`DuelCurves`).

At each checkpoint (iterations of the learner: one "game" of the harness) and for each seed,
the learner's average policy is measured exactly over the tree of plays: its exploitability
(OpenSpiel's convention, :func:`~dicejack.solver.information_policies.exploitability`) and its
value in the study's seat (player 0, "monte") against the study's uniformly random opponent
(:func:`~dicejack.games.deck_information.study_uniform`). Curves are the mean over seeds with
its 95% Student-t interval (:func:`dicejack.report.study.interval`). Beside them, exact: the
game's equilibrium value (sequence form, HiGHS), the uniform policy's value against the uniform
opponent, and the most any player in seat 0 can win against it (a best response that remembers
everything it saw). CFR+ and CFR are deterministic (every seed the same curve, a zero-width
interval); ``outcome-sampling`` is seeded.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import DeckDollar
from dicejack.games.deck_information import DeckDuel, study_uniform
from dicejack.learners.cfr import CFR, information_tree_of
from dicejack.report.study import interval
from dicejack.solver.information_policies import best_response, expected_payoff, exploitability
from dicejack.solver.sequence_form import solve_sequence_form

__all__ = ["DuelCurves", "deck_duel_curves", "duel_game"]


@dataclass(frozen=True)
class DuelCurves:
    """The curves of :func:`deck_duel_curves`: per checkpoint (``iterations``), the mean over
    seeds and the 95% interval (low, high; NaN with one seed) of the exact exploitability and
    of the exact value against the uniform opponent in seat 0; ``per_seed`` the raw values
    (seeds x checkpoints); the exact references; the tree's size, the LP's and the learning's
    seconds (CPU, process time)."""

    game: str
    variant: str
    seeds: tuple[int, ...]
    iterations: tuple[int, ...]
    exploitability: tuple[np.ndarray, np.ndarray, np.ndarray]
    value_vs_uniform: tuple[np.ndarray, np.ndarray, np.ndarray]
    per_seed_exploitability: np.ndarray
    per_seed_value: np.ndarray
    equilibrium_value: float
    uniform_value: float
    best_vs_uniform: float
    histories: int
    decision_keys: int
    lp_seconds: float
    learn_seconds: float

    def rows(self) -> list[dict[str, Any]]:
        """One dict per checkpoint (for a table or a CSV)."""
        e, v = self.exploitability, self.value_vs_uniform
        return [{"iterations": t, "exploitability": float(e[0][i]),
                 "exploitability_low": float(e[1][i]), "exploitability_high": float(e[2][i]),
                 "value_vs_uniform": float(v[0][i]), "value_low": float(v[1][i]),
                 "value_high": float(v[2][i])} for i, t in enumerate(self.iterations)]


def duel_game(game: DeckDollar | DeckDuel) -> DeckDuel:
    """The two-player game of `game`'s rules (a DeckDuel is kept); GameDefinitionError, one line,
    when its tree is too large."""
    if isinstance(game, DeckDuel):
        return game
    return DeckDuel(game.counts, game.hand_size, game.rounds, game.passing)


def deck_duel_curves(game: DeckDollar | DeckDuel, seeds: Iterable[int] = range(5),
                     checkpoints: Iterable[int] = (10, 100, 1000), variant: str = "cfr+",
                     exploration: float = 0.6) -> DuelCurves:
    """The learner's exact curves on `game` (module docstring): `variant` of
    :class:`~dicejack.learners.cfr.CFR` (``cfr+``, ``cfr``, ``outcome-sampling``), one run per
    seed, measured at each of the increasing `checkpoints` (iterations)."""
    duel = duel_game(game)
    tree = information_tree_of(duel)
    marks = tuple(sorted({int(t) for t in checkpoints}))
    seeds = tuple(int(s) for s in seeds)
    if not marks or marks[0] < 1 or not seeds:
        raise ValueError("give at least one seed and checkpoints of at least 1 iteration")
    started = time.process_time()
    sol = solve_sequence_form(duel)
    lp = time.process_time() - started
    opponent = study_uniform(tree, 1)
    params: dict[str, Any] = {"variant": variant}
    if variant == "outcome-sampling":
        params["exploration"] = exploration
    expl = np.empty((len(seeds), len(marks)))
    value = np.empty((len(seeds), len(marks)))
    learning = 0.0
    for i, seed in enumerate(seeds):
        learner = CFR(tree, seed, **params)
        for j, t in enumerate(marks):
            started = time.process_time()
            learner.play(t - learner.played)
            learning += time.process_time() - started
            policy = learner.policy()
            expl[i, j] = float(exploitability(tree, policy))
            mine = {k: policy[k] for k in (s.key for s in tree.decisions(0))}
            value[i, j] = float(expected_payoff(tree, {**mine, **opponent}))
    return DuelCurves(
        game=duel.label(), variant=variant, seeds=seeds, iterations=marks,
        exploitability=interval(expl), value_vs_uniform=interval(value),
        per_seed_exploitability=expl, per_seed_value=value,
        equilibrium_value=float(sol.value) + 0.0,  # not -0.0
        uniform_value=float(expected_payoff(tree, study_uniform(tree))),
        best_vs_uniform=float(best_response(tree, opponent, 0).value),
        histories=tree.n_nodes, decision_keys=len(tree.decisions()), lp_seconds=lp,
        learn_seconds=learning)
