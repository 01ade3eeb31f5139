"""Tests of dicejack.report.studies_blackjack: the published "on the optimal path" column
(runs.csv's differ_onpath and onpath) against counts made here from the enumerated game and the
learner run again, on a short study (the slow full-size numbers are in test_studies.py)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from dicejack.games import PeekingBlackjack
from dicejack.games.peeking_blackjack import ASSIGNMENT_MDPS
from dicejack.learners import Session
from dicejack.learners.feature_q import FeatureQLearning
from dicejack.report import studies_blackjack as sbj
from dicejack.solver.generic import solve_game

TRIALS = 200


def _on_optimal_path(sol) -> set[int]:
    """The states a game between optimal players reaches (every optimal action taken, every
    outcome of positive probability followed): a walk from the initial state."""
    space = sol.space
    trans = space.transitions.tocsr()
    seen, todo = {0}, [0]
    while todo:
        s = todo.pop()
        for r in space.rows(s):
            if sol.optimal[r]:
                row = trans.getrow(r)
                for t in row.indices[row.data > 0].tolist():
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
    return {s for s in seen if not space.terminal[s]}


@pytest.fixture(scope="module")
def study():
    small_deck = PeekingBlackjack((1, 5), 1, 10, 1)  # the deck search is not what is tested
    mp = pytest.MonkeyPatch()
    mp.setattr(sbj, "find_peeking_deck", lambda: (small_deck, 1))
    try:
        cfg = sbj.BlackjackStudy(seeds=(1,), trials=TRIALS, checkpoints=(TRIALS,))
        yield sbj.blackjack_study(cfg)
    finally:
        mp.undo()


def test_the_optimal_path_column_counts_only_states_optimal_play_reaches(study):
    _, runs_csv, _ = sbj.blackjack_report(study, "dicejack study peeking-blackjack --out X")
    rows = list(csv.DictReader(io.StringIO(runs_csv)))
    assert len(rows) == 6
    filtered = 0
    for name in ("smallMDP", "largeMDP", "newThresholdMDP"):
        sol = solve_game(PeekingBlackjack(*ASSIGNMENT_MDPS[name]))
        space = sol.space
        onpath = _on_optimal_path(sol)
        live = set(np.flatnonzero(~space.terminal).tolist())
        assert onpath < live  # optimal play leaves some states unreached
        for features in ("identity", "blackjack"):
            learner = FeatureQLearning(PeekingBlackjack(*ASSIGNMENT_MDPS[name]), 1,
                                       features=features, exploration=0.2)
            Session(learner).play(TRIALS)
            best = learner.greedy_rows()
            wrong = {s for s in live if not sol.optimal[best[s]]}
            row = next(r for r in rows if (r["mdp"], r["features"]) == (name, features))
            assert int(row["differ"]) == len(wrong), (name, features)
            assert int(row["onpath"]) == len(onpath), (name, features)
            assert int(row["differ_onpath"]) == len(wrong & onpath), (name, features)
            filtered += len(wrong - onpath) > 0
    assert filtered >= 1  # some wrong state lies off the optimal path: the filter shows
