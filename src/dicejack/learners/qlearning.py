"""q-learning: tabular Q-learning for this two-player zero-sum game, by self-play.

Both players share one table Q(<X, Y>, J) from the mover's view, every entry starting at q_init.
After a move from <X, Y> with J that reaches score X + t, the entry moves towards the target
1 on a win, 0 on a bust, else 1 - max_J' Q(<Y, X + t>, J'): the opponent moves next from
<Y, X + t>, and what it can expect to win is what the mover can expect to lose. The step is
1/N(s, J) (alpha=1/n, the default: Q is then the mean of all the targets seen) or a constant
alpha. J is epsilon-greedy: in the game after g games, with probability
epsilon_g = max(epsilon_min, epsilon / (1 + g / epsilon_decay)) a uniformly random J, else the
lowest J with the largest Q (one uniform decides both,
:func:`dicejack.learners.reference.epsilon_greedy`).

Tables: best J = the lowest J with the largest Q among the J tried in the state, its estimate
that Q; no data (0, -1) where no J was tried; visits = moves made from the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners import reference
from dicejack.learners.base import (
    EPSILON_PARAMS,
    Param,
    SelfPlaying,
    Tables,
    check_learner_size,
    generator_from_text,
    readonly,
    roll_tables,
    state_array,
    state_int,
)
from dicejack.learners.checks import LearnerError
from dicejack.runtime import interrupts

__all__ = ["QLearning"]


class QLearning(SelfPlaying):
    """Tabular Q-learning with epsilon-greedy self-play (see the module docstring).

    ``QLearning(game, seed=None, *, engine="numba", **params)``; engine "python" runs the plain
    reference loop (identical tables, about 100x slower). q: Q(s, J) (float64 (L, L, K+1), column
    0 unused); visits: N(s, J) (int64); rng: the generator; counters: [games, moves]; cdf,
    guide: the roll tables. The loops update these arrays in place.
    """

    NAME = "q-learning"
    #: The keys of :meth:`state` (a run file holds exactly these; others are refused unread).
    STATE_KEYS = ("q", "visits", "games", "moves", "rng_state")
    SUMMARY = "tabular Q-learning, target 1 - max Q of the opponent's next state"
    PARAMS = (
        *EPSILON_PARAMS,
        Param("alpha", None, "step size; 1/n: 1/N(state, J)", low=0.0, high=1.0, low_open=True,
              none="1/n"),
        Param("q_init", 0.5, "initial Q of every (state, J)", low=0.0, high=1.0),
    )

    def __init__(
        self, game: Game, seed: int | None = None, *, engine: str = "numba", **params: Any
    ) -> None:
        self.setup(game, seed, params, engine)
        check_learner_size(game, 2, self.NAME)
        self.cdf, self.guide = roll_tables(game)
        self.q = np.zeros(game.table_shape)
        self.q[..., 1:] = self.params["q_init"]
        self.visits = np.zeros(game.table_shape, dtype=np.int64)
        self.rng = np.random.default_rng(self.seed)
        self.counters = np.zeros(2, dtype=np.int64)  # games, moves

    def play_compiled(self, games: int) -> None:
        """The compiled loop (compiled_loops.q_self_play)."""
        with interrupts.atomic():  # a signal inside an import can hang the next one
            from dicejack.learners import compiled_loops, pcg

        p, g = self.params, self.game
        alpha = 0.0 if p["alpha"] is None else p["alpha"]
        pcg.stepping(
            self.rng, compiled_loops.q_self_play, self.q, self.visits, self.counters, self.cdf,
            self.guide, g.low, g.high, p["epsilon"], p["epsilon_min"], p["epsilon_decay"], alpha,
            games,
        )

    def play_reference(self, games: int) -> None:
        """The plain reference loop (reference.q_self_play)."""
        p, g = self.params, self.game
        reference.q_self_play(
            self.q, self.visits, self.counters, self.cdf, g.low, g.high, p["epsilon"],
            p["epsilon_min"], p["epsilon_decay"], p["alpha"], games, self.rng,
        )

    def tables(self) -> Tables:
        """Best J = argmax of Q among the J tried (lowest on ties), its Q, visits."""
        tried = self.visits[..., 1:] > 0
        q = np.where(tried, self.q[..., 1:], -np.inf)
        idx = np.argmax(q, axis=-1)
        top = np.take_along_axis(q, idx[..., None], axis=-1)[..., 0]
        seen = tried.any(axis=-1)
        best = np.where(seen, idx + 1, 0).astype(np.int64)
        prob = np.where(seen, top, -1.0)
        return Tables(readonly(best), readonly(prob), readonly(self.visits[..., 1:].sum(-1)))

    def state(self) -> dict[str, Any]:
        """q, visits (copies), games, moves and rng_state (JSON text)."""
        return {"q": self.q.copy(), "visits": self.visits.copy(), **self.progress_state()}

    @classmethod
    def restore(
        cls, game: Game, seed: int, params: Mapping[str, Any], state: Mapping[str, Any], *,
        engine: str = "numba",
    ) -> QLearning:
        """The learner that `state` (from :meth:`state`) describes; LearnerError if the state is
        not one this learner could have reached (Q outside [0, 1], untried entries other than
        q_init, visits that do not add up to the games and moves)."""
        obj = cls(game, seed, engine=engine, **params)
        games, moves = state_int(state, "games"), state_int(state, "moves")
        q = np.array(state_array(state, "q", game.table_shape, "f"), dtype=np.float64)
        visits = np.array(state_array(state, "visits", game.table_shape, "iu"), dtype=np.int64)
        if visits.min(initial=0) < 0 or visits[..., 0].any():
            raise LearnerError("the learner state's visits have negative counts or column J=0")
        if int(visits[0, 0].sum()) != games or int(visits.sum()) != moves:
            raise LearnerError("the learner state's visits do not add up to its games and moves")
        inner = q[..., 1:]
        if not (np.all(np.isfinite(inner)) and inner.min(initial=0) >= 0
                and inner.max(initial=0) <= 1 and not q[..., 0].any()):
            raise LearnerError("the learner state's q has values outside [0, 1] or column J=0")
        if np.any((visits[..., 1:] == 0) & (inner != obj.params["q_init"])):
            raise LearnerError("the learner state's q differs from q_init where nothing was tried")
        obj.q = np.ascontiguousarray(q)
        obj.visits = np.ascontiguousarray(visits)
        obj.rng = generator_from_text(state.get("rng_state"))
        obj.counters[:] = (games, moves)
        return obj
