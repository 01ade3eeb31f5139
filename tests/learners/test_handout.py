"""The handout's learner is a learner of the harness like the others: handout.learn is
learners.learn(game, "handout", ...), its run a learners.Run that also shows the counts, M and
tie-break (HandoutRun); the reference loop, exact resumption, checked states."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import learners
from dicejack.learners import LearnerError, handout
from dicejack.learners.counting import count_tables
from dicejack.learners.handout import Handout
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT

from .support import same_state


def same_learn_run(a: handout.HandoutRun, b: handout.HandoutRun) -> bool:
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
    assert run.final.equals(count_tables(own.win, own.lose)) and run.final.equals(own.final)
    assert run.snapshots[80].equals(own.snapshots[80])
    assert type(run) is type(own) is handout.HandoutRun and isinstance(own, learners.Run)
    assert (own.m, own.tie_break, own.label) == (m, tie_break, run.label)
    assert np.array_equal(run.state["win"], own.win) and run.moves == own.moves
    assert run.label == f"handout m={m:g} tie_break={tie_break} seed=6 games=800"


def test_one_session_one_run():
    obj = learners.make(HANDOUT, "handout", 2, m=10.0)
    obj.play(300)
    straight = handout.learn(HANDOUT, 10.0, 300, 2)
    assert same_learn_run(learners.Session(obj).result(), straight)
    started = Handout.at(handout.learn(HANDOUT, 10.0, 100, 2))
    started.play(200)
    assert same_state(started.state(), obj.state()) and started.params["m"] == 10.0
    resumed = handout.resume(handout.learn(HANDOUT, 10.0, 100, 2, checkpoints=(50,)), 300,
                             checkpoints=(200,))
    assert same_learn_run(resumed, straight) and sorted(resumed.snapshots) == [50, 200]
    again = learners.resume(resumed, 300)
    assert type(again) is handout.HandoutRun and same_learn_run(again, straight)
    assert straight.generator().random() == started.rng.random()  # positioned where it stopped


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
