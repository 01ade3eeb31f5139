"""thompson: per-state Thompson sampling from Beta(1 + WinCount, 1 + LoseCount).

In a state, the mover draws b_J ~ Beta(1 + WinCount_J, 1 + LoseCount_J) for every J (a uniform
prior on each J's win rate, updated by its counts) and rolls the lowest J with the largest draw.
Each Beta draw is g_w / (g_w + g_l) with g_w ~ Gamma(1 + WinCount_J), g_l ~ Gamma(1 + LoseCount_J)
by Marsaglia and Tsang's method from the generator's normals and uniforms
(:func:`dicejack.learners.reference.thompson_choice`). With NDice = 1 nothing is drawn. The counts
are updated, and the tables reported, as the handout's learner does. No parameters.
"""

from __future__ import annotations

import numpy as np

from dicejack.learners import reference
from dicejack.learners.counting import CountingLearner

__all__ = ["Thompson"]


class Thompson(CountingLearner):
    """Per-state Thompson sampling on the counts (see the module docstring)."""

    NAME = "thompson"
    SUMMARY = "per-state Thompson sampling from Beta(1 + W, 1 + L)"
    PARAMS = ()
    TABLES = 7  # win, lose, f cache, and the four Marsaglia-Tsang constants

    def refresh_caches(self) -> None:
        super().refresh_caches()
        if self.engine == "numba":
            cache = np.empty((*self.game.table_shape, 4))
            for side, counts in ((0, self.win), (2, self.lose)):
                d = (1.0 + counts) - reference.THIRD
                cache[..., side] = d
                cache[..., side + 1] = 1.0 / np.sqrt(9.0 * d)
            self.gcache = np.ascontiguousarray(cache)

    def play_compiled(self, games: int) -> None:
        from dicejack.learners import compiled_loops

        g = self.game
        compiled_loops.thompson_self_play(
            self.win, self.lose, self.fcache, self.gcache, self.counters, self.cdf,
            self.guide, g.low, g.high, games, self.rng,
        )

    def play_reference(self, games: int) -> None:
        g = self.game
        reference.count_self_play(
            self.NAME, self.win, self.lose, self.counters, self.cdf, g.low, g.high, (), games,
            self.rng,
        )
