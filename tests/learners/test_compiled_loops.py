"""The compiled loops held to the reference: identical tables, counters and generator state for the
same seed, on games of every shape (one die, many dice, a long game), and with any chunking."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import learners
from dicejack.games.handout_rules import Game
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT

from .support import same_state

GAMES = [
    (HANDOUT, 1500),
    (Game(6, 15, 17, 1), 600),  # K = 1: thompson draws nothing, epsilon-greedy has one J
    (Game(3, 10, 20, 3), 600),  # K = 3, nobody busts below 20 with 3 dice of 3
    (Game(2, 9, 9, 4), 600),  # one winning score
    (Game(6, 100, 105, 6), 40),  # long games, wide roll tables
    (TINY, 600),
]

PARAMS = {
    "q-learning": [{}, {"alpha": 0.3, "epsilon": 0.5, "epsilon_min": 0.0, "q_init": 0.0}],
    "mc-epsilon": [{}, {"epsilon": 0.2, "epsilon_min": 0.2, "epsilon_decay": float("inf")}],
    "ucb": [{}, {"c": 0.0}],
    "thompson": [{}],
}
CASES = [(name, p) for name, ps in PARAMS.items() for p in ps]


@pytest.mark.parametrize("game, games", GAMES, ids=[g.label() for g, _ in GAMES])
@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}{p or ''}" for n, p in CASES])
def test_compiled_equals_reference(name, params, game, games):
    marks = (games // 3,)
    fast = learners.learn(game, name, games, 11, checkpoints=marks, **params)
    slow = learners.learn(game, name, games, 11, checkpoints=marks, engine="python", **params)
    assert same_state(fast.state, slow.state)  # tables, games, moves and generator
    assert fast.final.equals(slow.final)
    assert fast.snapshots[marks[0]].equals(slow.snapshots[marks[0]])
    assert fast.moves > games and fast.final.visits[0, 0] == games


@pytest.mark.parametrize("name", ["q-learning", "mc-epsilon", "ucb", "thompson"])
def test_chunks_do_not_change_results(name):
    straight = learners.make(HANDOUT, name, 4)
    straight.play(700)
    for engine in ("numba", "python"):
        chunked = learners.make(HANDOUT, name, 4, engine=engine)
        for n in (1, 0, 6, 93, 300, 300):
            chunked.play(n)
        assert same_state(chunked.state(), straight.state())


def test_generator_state_is_shared_with_numba():
    """The compiled loops advance the caller's Generator itself (numba shares its PCG64 state)."""
    obj = learners.make(HANDOUT, "thompson", 5)
    before = obj.rng.bit_generator.state
    obj.play(3)
    assert obj.rng.bit_generator.state != before
    copy = learners.make(HANDOUT, "thompson", 5, engine="python")
    copy.play(3)
    assert obj.rng.random() == copy.rng.random()


def test_counters_and_tables_agree():
    for name in ("mc-epsilon", "ucb", "thompson"):
        obj = learners.make(HANDOUT, name, 2)
        obj.play(500)
        assert obj.win.sum() + obj.lose.sum() == obj.moves
        assert obj.win[0, 0].sum() + obj.lose[0, 0].sum() == 500
        assert not obj.win[..., 0].any() and not obj.lose[..., 0].any()
    q = learners.make(HANDOUT, "q-learning", 2)
    q.play(500)
    assert q.visits.sum() == q.moves and q.visits[0, 0].sum() == 500
    assert np.all((q.q[..., 1:] >= 0) & (q.q[..., 1:] <= 1)) and not q.q[..., 0].any()
