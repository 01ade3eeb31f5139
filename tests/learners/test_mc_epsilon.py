"""mc-epsilon: the handout's B when it exploits, a uniformly random J when it explores."""

from __future__ import annotations

import numpy as np

from dicejack import learners
from dicejack.learners.formulas import estimates
from tests.games import HANDOUT


def test_without_exploration_it_always_plays_the_handouts_b():
    obj = learners.make(HANDOUT, "mc-epsilon", 3, epsilon=0.0, epsilon_min=0.0)
    for _ in range(60):
        before = obj.win[0, 0] + obj.lose[0, 0]
        b = estimates(obj.win[0, 0], obj.lose[0, 0], 2)[2]
        obj.play(1)
        played = np.flatnonzero(obj.win[0, 0] + obj.lose[0, 0] - before)
        assert played.tolist() == [b]


def test_full_exploration_is_uniform():
    obj = learners.make(HANDOUT, "mc-epsilon", 3, epsilon=1.0, epsilon_min=1.0)
    obj.play(20_000)
    counts = (obj.win[0, 0] + obj.lose[0, 0])[1:]
    assert np.all(np.abs(counts / 20_000 - 0.5) < 0.015)


def test_counts_are_the_handouts_and_exploration_fades():
    run = learners.learn(HANDOUT, "mc-epsilon", 20_000, 5, checkpoints=(2_000,))
    early = run.snapshots[2_000].visits
    final = run.final
    # The greedy J at <0,0> (2 dice, the optimal one) takes ever more of the moves there.
    counts = run.state["win"][0, 0] + run.state["lose"][0, 0]
    assert final.best[0, 0] == 2 and counts[2] > 0.8 * counts.sum()
    assert early[0, 0] == 2_000 and final.visits[0, 0] == 20_000
