"""q-learning: its tables, the checks of a state to restore, and its values near the truth."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import learners, solver
from dicejack.learners import LearnerError
from dicejack.learners.qlearning import QLearning
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT


def test_tables_from_q():
    obj = QLearning(TINY, 1, q_init=0.5)
    obj.q[0, 0] = [0.0, 0.3, 0.9]
    obj.visits[0, 0] = [0, 2, 0]  # J = 2 untried: its 0.9 is not data
    obj.q[0, 1] = [0.0, 0.4, 0.4]
    obj.visits[0, 1] = [0, 1, 1]  # a tie: the lowest J
    obj.q[1, 0] = [0.0, 0.2, 0.6]
    obj.visits[1, 0] = [0, 1, 3]
    t = obj.tables()
    assert t.best[0, 0] == 1 and t.probability[0, 0] == 0.3
    assert t.best[0, 1] == 1 and t.probability[0, 1] == 0.4
    assert t.best[1, 0] == 2 and t.probability[1, 0] == 0.6 and t.visits[1, 0] == 4
    assert t.best[2, 2] == 0 and t.probability[2, 2] == -1 and t.visits[2, 2] == 0


def test_values_approach_the_exact_q():
    """1 - max Q of the opponent's next state is the right target: Q(<0,0>, J) comes close to
    the exact Q*(<0,0>, J), and the greedy J there is the optimal one."""
    sol = solver.solve(HANDOUT)
    obj = learners.make(HANDOUT, "q-learning", 1)
    obj.play(30_000)
    assert np.all(np.abs(obj.q[0, 0, 1:] - sol.q[0, 0, 1:]) < 0.03)
    assert obj.tables().best[0, 0] == sol.best[0, 0] == 2


def test_constant_step_and_initial_value():
    a = learners.learn(HANDOUT, "q-learning", 500, 2, alpha=0.2, q_init=1.0)
    b = learners.learn(HANDOUT, "q-learning", 500, 2)
    assert not np.array_equal(a.state["q"], b.state["q"])
    q, visits = a.state["q"], a.state["visits"]
    assert np.all(q[..., 1:][visits[..., 1:] == 0] == 1.0)


def change_state(run, **change):
    return dict(run.state) | change


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s["q"].__setitem__((1, 1, 1), 1.5), r"outside \[0, 1\]"),
        (lambda s: s["q"].__setitem__((1, 1, 0), 0.1), "column J=0"),
        (lambda s: s["q"].__setitem__((2, 2, 2), np.nan), r"outside \[0, 1\]"),
        (lambda s: s["visits"].__setitem__((2, 2, 1), 1), "do not add up"),
        (lambda s: s["visits"].__setitem__((2, 2, 0), 1), "column J=0"),
    ],
)
def test_bad_states_are_refused(edit, message):
    run = learners.learn(TINY, "q-learning", 30, 1)
    state = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in run.state.items()}
    if not run.state["visits"][2, 2].any():
        state["q"][2, 2, 1:] = 0.5
    edit(state)
    with pytest.raises(LearnerError, match=message):
        QLearning.restore(TINY, 1, run.params, state)


def test_untried_entries_must_hold_q_init():
    run = learners.learn(TINY, "q-learning", 30, 1)
    state = dict(run.state)
    state["q"] = np.array(run.state["q"])
    untried = np.argwhere(run.state["visits"][..., 1:] == 0)[0]
    state["q"][untried[0], untried[1], untried[2] + 1] = 0.25
    with pytest.raises(LearnerError, match="differs from q_init"):
        QLearning.restore(TINY, 1, run.params, state)
    with pytest.raises(LearnerError, match="differs from q_init"):
        QLearning.restore(TINY, 1, dict(run.params) | {"q_init": 0.3}, run.state)
