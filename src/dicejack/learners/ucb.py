"""ucb: per-state UCB1 on the win rates of the handout's counts.

In a state, the mover first tries every J once (the lowest untried J first); then it rolls the
lowest J with the largest f_J + c sqrt(ln n / n_J), where n_J = WinCount + LoseCount of J in the
state, n = the sum of n_J and f_J = WinCount / n_J
(:func:`dicejack.learners.reference.ucb_choice`). The counts are updated, and the tables
reported, as the handout's learner does. The choice itself draws no random number: all the
randomness is in the dice.
"""

from __future__ import annotations

import math

from dicejack.learners import reference
from dicejack.learners.base import Param
from dicejack.learners.counting import CountingLearner
from dicejack.runtime import interrupts

__all__ = ["UCB"]


class UCB(CountingLearner):
    """Per-state UCB1 on the counts' win rates (see the module docstring)."""

    NAME = "ucb"
    SUMMARY = "per-state UCB1 on the counts' win rates"
    PARAMS = (Param("c", math.sqrt(2.0), "exploration weight of the UCB1 bonus", low=0.0),)

    def play_compiled(self, games: int) -> None:
        with interrupts.atomic():  # a signal inside an import can hang the next one
            from dicejack.learners import compiled_loops, pcg

        g = self.game
        pcg.stepping(
            self.rng, compiled_loops.ucb_self_play, self.win, self.lose, self.fcache, self.counters,
            self.cdf, self.guide, g.low, g.high, self.params["c"], games,
        )

    def play_reference(self, games: int) -> None:
        g = self.game
        reference.count_self_play(
            self.NAME, self.win, self.lose, self.counters, self.cdf, g.low, g.high,
            (self.params["c"],), games, self.rng,
        )
