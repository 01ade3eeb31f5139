"""ucb: every J once first, then the UCB1 rule, decided by the counts alone."""

from __future__ import annotations

import numpy as np

from dicejack import learners
from dicejack.learners.reference import ucb_choice
from tests.games import HANDOUT


def test_every_j_is_tried_once_before_any_twice():
    run = learners.learn(HANDOUT, "ucb", 3_000, 2)
    n = run.state["win"][..., 1:] + run.state["lose"][..., 1:]
    total = n.sum(axis=-1)
    # A state visited t < K times has tried J = 1..t once each; from K visits on, every J.
    for k in range(2):
        assert np.all((n[..., k] >= 1) == (total >= k + 1))
    assert np.all(n[total <= 2] <= 1)


def test_the_compiled_loop_picks_what_the_rule_says():
    for c in (0.0, 0.5, np.sqrt(2)):
        obj = learners.make(HANDOUT, "ucb", 7, c=c)
        obj.play(50)
        for _ in range(40):
            w, lo = obj.win[0, 0].copy(), obj.lose[0, 0].copy()
            expected = ucb_choice(w.tolist(), lo.tolist(), 2, c)
            obj.play(1)
            played = np.flatnonzero(obj.win[0, 0] + obj.lose[0, 0] - w - lo)
            assert played.tolist() == [expected]


def test_the_choice_draws_no_random_number():
    """With one die there is nothing to choose: ucb and thompson then consume only the rolls."""
    from dicejack.games.handout_rules import Game

    one = Game(6, 15, 17, 1)
    a = learners.learn(one, "ucb", 400, 9)
    b = learners.learn(one, "thompson", 400, 9)
    assert a.state["rng_state"] == b.state["rng_state"]
    assert np.array_equal(a.state["win"], b.state["win"])
