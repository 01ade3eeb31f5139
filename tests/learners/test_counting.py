"""What the counting learners share: their tables, their caches and the checks of a state."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import learners
from dicejack.learners import LearnerError
from dicejack.learners.catalogue import learner_class
from dicejack.learners.counting import check_counts, count_tables, f_cache
from dicejack.learners.formulas import learned_tables
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT


def test_count_tables_are_the_handouts():
    run = learners.learn(HANDOUT, "ucb", 400, 1)
    win, lose = run.state["win"], run.state["lose"]
    best, prob = learned_tables(win, lose)
    t = count_tables(win, lose)
    assert np.array_equal(t.best, best) and np.array_equal(t.probability, prob)
    assert np.array_equal(t.visits, win.sum(-1) + lose.sum(-1)) and t.visits[0, 0] == 400


def test_f_cache():
    win = np.zeros(TINY.table_shape, np.int64)
    lose = np.zeros(TINY.table_shape, np.int64)
    win[0, 0] = [0, 3, 0]
    lose[0, 0] = [0, 1, 2]
    f = f_cache(win, lose)
    assert f[0, 0].tolist() == [6.0, 0.75, 0.0] and f[1, 1].tolist() == [0.0, 0.5, 0.5]


def state(**change):
    win = np.zeros(TINY.table_shape, np.int64)
    lose = np.zeros(TINY.table_shape, np.int64)
    win[0, 0, 1], lose[0, 0, 2], lose[0, 2, 1] = 2, 1, 2
    out = {"win": win, "lose": lose}
    out.update(change)
    return out


def test_check_counts():
    win, lose = check_counts(TINY, state(), 3, 5)
    assert win.dtype == np.int64 and win.flags.c_contiguous
    negative = state()["lose"].copy()
    negative[1, 1, 1] = -1
    column0 = state()["win"].copy()
    column0[1, 1, 0] = 1
    for st, games, moves, message in (
        (state(), 4, 5, "games other than 4"),
        (state(), 3, 6, "moves other than 6"),
        (state(lose=negative), 3, 4, "negative counts or column J=0"),
        (state(win=column0), 3, 6, "negative counts or column J=0"),
        (state(win=state()["win"].astype(float)), 3, 5, "shape"),
    ):
        with pytest.raises(LearnerError, match=message):
            check_counts(TINY, st, games, moves)


@pytest.mark.parametrize("name", ["mc-epsilon", "ucb", "thompson"])
def test_restore_checks_the_state(name):
    run = learners.learn(TINY, name, 50, 1)
    cls = learner_class(name)
    obj = cls.restore(TINY, 1, run.params, run.state)
    assert obj.played == 50 and obj.moves == run.moves
    for change, message in (({"games": -1}, "whole number"), ({"rng_state": 5}, "PCG64"),
                            ({"moves": 1}, "moves other than 1")):
        with pytest.raises(LearnerError, match=message):
            cls.restore(TINY, 1, run.params, dict(run.state) | change)
