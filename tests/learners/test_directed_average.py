"""The Yamslam study's directed averaging learner (dicejack.learners.directed_average): the
contract, a plain trial-by-trial loop written here giving the same sums, and convergence to the
exact gains."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games import Piglet, Yamslam
from dicejack.learners import LearnerError, check_learner
from dicejack.learners.directed_average import DirectedAverage
from dicejack.solver.generic import solve_game


def test_contract():
    check_learner(DirectedAverage(Yamslam(1), 5), games=20_000)


def test_pairs_are_the_last_decision():
    one = DirectedAverage(Yamslam(1), 1)
    assert len(one.pairs) == 252 * 32 and len(one.learned_states) == 252
    two = DirectedAverage(Yamslam(2), 1)  # the second re-roll's decision only
    assert {two.space.states[s][1] for s in two.learned_states} == {1}


def test_equals_a_plain_loop():
    learner = DirectedAverage(Yamslam(1), 11)
    learner.play(3000)
    learner.play(9000)  # two chunks
    space, rng = learner.space, np.random.default_rng(11)
    t = space.transitions
    sums = np.zeros(len(learner.pairs))
    for g in range(12_000):
        k = g % len(learner.pairs)
        r = learner.pairs[k]
        u, acc = rng.random(), 0.0
        lo, hi = t.indptr[r], t.indptr[r + 1]
        for i in range(lo, hi):
            acc += t.data[i]
            if u < acc or i == hi - 1:
                break
        roll = space.states[space.row_state[r]][0]
        sums[k] += space.payoff[t.indices[i]] - Yamslam(1).current_score((roll, 1))
    assert np.array_equal(learner.sums, sums)
    assert learner.counts.sum() == 12_000 and learner.counts.max() == 2


def test_converges_to_the_exact_gains():
    learner = DirectedAverage(Yamslam(1), 3)
    sol = solve_game(Yamslam(1))
    exact = sol.q[learner.pairs] - learner.baseline
    learner.play(400 * len(learner.pairs))
    rms = float(np.sqrt(np.mean((learner.gains() - exact) ** 2)))
    assert 0.2 < rms < 1.0  # about sigma / 20: the score's spread is about 12 points
    tables = learner.tables()
    s = learner.space.index[((6, 6, 6, 6, 6), 1)]
    assert tables.value[s] == 50 and sol.optimal[tables.best[s]]


def test_refuses_games_without_a_last_decision():
    with pytest.raises(LearnerError):
        DirectedAverage(Piglet(goal=2), 1)
