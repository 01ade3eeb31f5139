"""The handout's learner behind the interface keeps every guarantee of its own session
(dicejack.learners.handout.learn): the same tables for the same seed, the reference loop, exact
resumption, its own run type."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import learners
from dicejack.learners import Handout, LearnerError, handout
from dicejack.learners.counting import count_tables
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT

from .support import same_state


def same_learn_run(a: handout.LearnRun, b: handout.LearnRun) -> bool:
    return (np.array_equal(a.win, b.win) and np.array_equal(a.lose, b.lose) and a.games == b.games
            and a.moves == b.moves and a.rng_state == b.rng_state)


@pytest.mark.parametrize("engine", ["numba", "python"])
@pytest.mark.parametrize("m, tie_break", [(100.0, "lowest"), (0.5, "random"), (0.0, "lowest")])
def test_same_tables_as_the_handout_learner(engine, m, tie_break):
    own = handout.learn(HANDOUT, m, 800, 6, checkpoints=(80,), tie_break=tie_break,
                        engine=engine)
    run = learners.learn(HANDOUT, "handout", 800, 6, checkpoints=(80,), m=m,
                         tie_break=tie_break, engine=engine)
    assert np.array_equal(run.tables[0], own.tables[0])
    assert np.array_equal(run.tables[1], own.tables[1])
    assert run.final.equals(count_tables(own.win, own.lose))
    assert run.snapshots[80].equals(count_tables(*own.snapshots[80]))
    assert np.array_equal(run.state["win"], own.win) and run.moves == own.moves
    assert run.label == f"handout m={m:g} tie_break={tie_break} seed=6 games=800"


def test_learn_run_and_from_learn_run():
    obj = learners.make(HANDOUT, "handout", 2, m=10.0)
    obj.play(300)
    assert same_learn_run(obj.learn_run(), handout.learn(HANDOUT, 10.0, 300, 2))
    started = Handout.from_learn_run(handout.learn(HANDOUT, 10.0, 100, 2))
    started.play(200)
    assert same_state(started.state(), obj.state()) and started.params["m"] == 10.0
    assert isinstance(obj.session, handout.Session)


def test_state_restores_exactly():
    run = learners.learn(HANDOUT, "handout", 250, 3, m=4.0, tie_break="random")
    obj = Handout.restore(HANDOUT, 3, run.params, run.state)
    obj.play(250)
    straight = learners.learn(HANDOUT, "handout", 500, 3, m=4.0, tie_break="random")
    assert same_state(obj.state(), straight.state)
    python = Handout.restore(HANDOUT, 3, run.params, run.state, engine="python")
    python.play(250)
    assert same_state(python.state(), straight.state)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"games": 249}, "record a number of games other than 249"),
        ({"moves": 7}, "record a number of moves other than 7"),
        ({"rng_state": "{}"}, "PCG64"),
        ({"win": np.zeros((2, 2))}, "shape"),
        ({"lose": None}, "shape"),
    ],
)
def test_bad_states_are_refused(change, message):
    run = learners.learn(HANDOUT, "handout", 250, 3)
    state = dict(run.state) | change
    with pytest.raises(LearnerError, match=message):
        Handout.restore(HANDOUT, 3, run.params, state)


def test_parameters():
    with pytest.raises(LearnerError, match="M must be finite"):
        Handout(TINY, 1, m=1e308)
    with pytest.raises(LearnerError, match="tie_break must be one of lowest, random"):
        Handout(TINY, 1, tie_break="highest")
    assert Handout(TINY, 1).params == {"m": 100.0, "tie_break": "lowest"}
