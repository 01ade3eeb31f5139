"""thompson: picks each J with the probability that its Beta(1 + W, 1 + L) draw is the largest."""

from __future__ import annotations

import json

import numpy as np
from scipy import stats

from dicejack import learners
from dicejack.learners.thompson import Thompson
from tests.games import HANDOUT


def test_choice_probability_at_a_known_state():
    """From counts W = (6, 4), L = (4, 6) at <0,0> (20 games), the first move rolls 1 die with
    probability P(Beta(7, 5) > Beta(5, 7)); 600 seeds agree with it."""
    win = np.zeros(HANDOUT.table_shape, np.int64)
    lose = np.zeros(HANDOUT.table_shape, np.int64)
    win[0, 0, 1:], lose[0, 0, 1:] = (6, 4), (4, 6)
    exact = stats.beta(7, 5).expect(lambda t: stats.beta(5, 7).cdf(t))
    ones = 0
    for seed in range(600):
        rng = np.random.default_rng(seed)
        state = {"win": win, "lose": lose, "games": 20, "moves": 20,
                 "rng_state": json.dumps(rng.bit_generator.state)}
        obj = Thompson.restore(HANDOUT, seed, {}, state)
        obj.play(1)
        ones += int(obj.win[0, 0, 1] + obj.lose[0, 0, 1] == 11)
    sd = np.sqrt(exact * (1 - exact) / 600)
    assert abs(ones / 600 - exact) < 4 * sd


def test_explores_less_as_counts_grow():
    run = learners.learn(HANDOUT, "thompson", 20_000, 3, checkpoints=(1_000,))
    early = run.snapshots[1_000]
    counts = run.state["win"][0, 0] + run.state["lose"][0, 0]
    assert run.final.best[0, 0] == 2 and counts[2] > 0.85 * counts.sum()
    assert early.visits[0, 0] == 1_000


def test_large_counts_keep_the_gamma_draws_finite():
    win = np.zeros(HANDOUT.table_shape, np.int64)
    lose = np.zeros(HANDOUT.table_shape, np.int64)
    win[0, 0, 1:], lose[0, 0, 1:] = (10**12, 10**12 - 10**7), (10**12, 10**12 + 10**7)
    state = {"win": win, "lose": lose, "games": int(4 * 10**12), "moves": int(4 * 10**12),
             "rng_state": json.dumps(np.random.default_rng(1).bit_generator.state)}
    obj = Thompson.restore(HANDOUT, 1, {}, state)
    obj.play(50)
    assert obj.played == 4 * 10**12 + 50 and np.isfinite(obj.tables().probability).all()
