"""mc-epsilon: Monte Carlo control with the handout's own counts, explored epsilon-greedily.

It counts, estimates and reports exactly as the handout's learner does (WinCount/LoseCount,
f_J = win/(win + lose), 0.5 without data) and plays the handout's B (the lowest J with the
largest f_J); only the explore rule differs: in the game after g games, with probability
epsilon_g = max(epsilon_min, epsilon / (1 + g / epsilon_decay)) the mover rolls a uniformly random
J instead of B (one uniform decides both, :func:`dicejack.learners.reference.epsilon_greedy`).
Set beside the handout's learner it isolates the effect of the handout's p_J rule.
"""

from __future__ import annotations

from dicejack.learners import reference
from dicejack.learners.base import EPSILON_PARAMS
from dicejack.learners.counting import CountingLearner
from dicejack.runtime import interrupts

__all__ = ["MCEpsilon"]


class MCEpsilon(CountingLearner):
    """Monte Carlo control, epsilon-greedy on the handout's f_J (see the module docstring)."""

    NAME = "mc-epsilon"
    SUMMARY = "the handout's counts and B, explored epsilon-greedily"
    PARAMS = EPSILON_PARAMS

    def play_compiled(self, games: int) -> None:
        with interrupts.atomic():  # a signal inside an import can hang the next one
            from dicejack.learners import compiled_loops, pcg

        p, g = self.params, self.game
        pcg.stepping(
            self.rng, compiled_loops.mc_epsilon_self_play, self.win, self.lose, self.fcache,
            self.counters, self.cdf, self.guide, g.low, g.high, p["epsilon"], p["epsilon_min"],
            p["epsilon_decay"], games,
        )

    def play_reference(self, games: int) -> None:
        p, g = self.params, self.game
        reference.count_self_play(
            self.NAME, self.win, self.lose, self.counters, self.cdf, g.low, g.high,
            (p["epsilon"], p["epsilon_min"], p["epsilon_decay"]), games, self.rng,
        )
