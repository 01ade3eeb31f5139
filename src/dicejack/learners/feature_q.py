"""Q-learning with linear function approximation on a one-player protocol game, as Stanford
CS221's "blackjack" assignment runs it: :class:`FeatureQLearning` (``feature-q-learning``).

Q(s, a) = sum of w[f] * v over the features (f, v) of (s, a), w starting at 0. Each game
(trial) starts at the initial state; at each state the learner counts one step (the
assignment's ``numIters``, bumped by every ``getAction``, the end state's too), plays a random
legal action with probability `exploration` (else the greedy one: the largest Q, ties to the
largest action as Python's ``max((Q, action))`` does, the first where actions do not compare),
draws the successor, and moves w by ``eta (target - Q(s, a)) v`` on each feature, eta =
1/sqrt(numIters) (``step="inverse-sqrt"``) or a constant, target = the action's reward plus, at
a terminal successor, its payoff, else the successor's greedy Q (discount 1). The end state is
worth its payoff exactly (the assignment's loop asks the features of its end tuple instead; for
the identity features the same, docs/studies.md).

Features (``features=``): ``identity`` (one indicator per (state, action): tabular) and
``blackjack`` (Peeking Blackjack's: the total with the action; the presence of each face value,
as one tuple, with the action; the count of each face value with the action). The features of
every (state, action) row are interned once to integer ids, so a step is list arithmetic.

One seeded numpy Generator draws everything, two doubles a step (explore?, which action; then the
successor), so tables do not depend on chunking; :meth:`state` and :meth:`restore` resume a run
exactly. ``total_reward`` sums what the trials won (the assignment's ``simulate`` returns these
rewards, exploration included). The greedy tables cover every non-terminal state (a linear Q has a
greedy action everywhere, as the assignment's comparison asks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from dicejack.games import StateSpace
from dicejack.games.protocol import game_label
from dicejack.learners.base import (
    Counted,
    Param,
    check_params,
    format_value,
    generator_from_text,
    readonly,
    rng_state_text,
    state_array,
    state_int,
)
from dicejack.learners.checks import LearnerError, check_count, check_games_limit, check_seed
from dicejack.learners.game_learners import GameTables, game_space

__all__ = ["FeatureQLearning", "FEATURES", "identity_features", "blackjack_features"]

Features = list[tuple[Hashable, float]]


def identity_features(state: Any, action: Any) -> Features:
    """One indicator per (state, action): Q-learning with a table."""
    return [((state, action), 1.0)]


def blackjack_features(state: Any, action: Any) -> Features:
    """The assignment's blackjack features of a Peeking Blackjack state (total, peeked,
    counts): the total with the action; the presence of each face value (one tuple) with the
    action; the count of each face value with the action."""
    total, _, counts = state
    out: Features = [(("total", total, action), 1.0)]
    if counts is not None:
        out.append((("presence", tuple(1 if c else 0 for c in counts), action), 1.0))
        out.extend((("count", i, c, action), 1.0) for i, c in enumerate(counts))
    return out


#: The feature extractors by name.
FEATURES: dict[str, Callable[[Any, Any], Features]] = {
    "identity": identity_features,
    "blackjack": blackjack_features,
}


def _interned(space: StateSpace, extractor: Callable[[Any, Any], Features]
              ) -> tuple[list[list[int]], list[list[float]], int]:
    """Per row, its features' ids and values; and how many ids there are."""
    ids: dict[Hashable, int] = {}
    fid: list[list[int]] = []
    fval: list[list[float]] = []
    for r, action in enumerate(space.actions):
        state = space.states[int(space.row_state[r])]
        keys, vals = [], []
        for key, value in extractor(state, action):
            keys.append(ids.setdefault(key, len(ids)))
            vals.append(float(value))
        fid.append(keys)
        fval.append(vals)
    return fid, fval, len(ids)


def _tie_order(space: StateSpace) -> list[int]:
    """Per row, its rank among its state's actions in sorted order (the largest wins a tie);
    the game's own order where actions do not compare."""
    rank = [0] * space.n_rows
    for s in np.flatnonzero(~space.terminal).tolist():
        rows = list(space.rows(s))
        try:
            order = sorted(rows, key=lambda r: space.actions[r])
        except TypeError:
            order = rows[::-1]  # ties go to the first: give it the largest rank
        for k, r in enumerate(order):
            rank[r] = k
    return rank


class FeatureQLearning(Counted):
    """Q-learning with features, the assignment's (module docstring)."""

    NAME: ClassVar[str] = "feature-q-learning"
    SUMMARY: ClassVar[str] = "Q-learning with linear features (CS221's blackjack assignment)"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("features", "identity", "feature extractor", kind="choice",
              choices=tuple(FEATURES)),
        Param("exploration", 0.2, "probability of a random action", low=0.0, high=1.0),
        Param("step", None, "step size (1/sqrt(numIters): the assignment's)", low=0.0,
              high=1.0, low_open=True, none="1/sqrt(n)"),
        Param("max_moves", 100_000, "moves after which a game is cut", kind="int", low=1,
              high=10**9),
    )

    def __init__(self, game: Any, seed: int | None = None, **params: Any) -> None:
        self.name = self.NAME
        self.game = game
        self.seed = check_seed(seed)
        self.params = check_params(self.NAME, self.PARAMS, params)
        self.space = game_space(game)
        space = self.space
        if space.num_players != 1:
            raise LearnerError(f"{game_label(game)}: {self.NAME} is for one-player games")
        if space.terminal[0]:
            raise LearnerError(f"{game_label(game)}: the initial state is terminal; nothing to "
                               "learn")
        try:
            self._fid, self._fval, n_features = _interned(space, FEATURES[self.params["features"]])
        except (TypeError, ValueError) as exc:
            raise LearnerError(f"{game_label(game)}: the {self.params['features']} features do "
                               f"not fit its states ({exc})") from None
        self._rank = _tie_order(space)
        self._reward = ([0.0] * space.n_rows if space.reward is None
                        else space.reward.tolist())
        t = space.transitions
        self._indptr = t.indptr.tolist()
        self._succ = t.indices.tolist()
        cum = []
        for r in range(space.n_rows):
            acc = 0.0
            lo, hi = self._indptr[r], self._indptr[r + 1]
            for i in range(lo, hi):
                acc += float(t.data[i])
                cum.append(acc if i < hi - 1 else math.inf)
        self._cum = cum
        self._row_start = space.row_start.tolist()
        self._terminal = space.terminal.tolist()
        self._payoff = space.payoff.tolist()
        self.weights = np.zeros(n_features)
        self.visits = np.zeros(space.n_states, dtype=np.int64)
        self.counters = np.zeros(3, dtype=np.int64)  # games, moves, numIters
        self.total_reward = 0.0  # the sum of every finished trial's rewards and payoff
        self.rng = np.random.default_rng(self.seed)

    def __repr__(self) -> str:
        words = " ".join(f"{k}={format_value(v)}" for k, v in self.params.items())
        return f"<{type(self).__name__} {words} seed={self.seed} played={self.played}>"


    def _q(self, w: list[float], r: int) -> float:
        return sum(w[f] * v for f, v in zip(self._fid[r], self._fval[r], strict=True))

    def _greedy(self, w: list[float], s: int) -> int:
        """The row of state s with the largest Q; ties to the largest action (_tie_order)."""
        best, top, rank = -1, -math.inf, -1
        for r in range(self._row_start[s], self._row_start[s + 1]):
            q = self._q(w, r)
            if q > top or (q == top and self._rank[r] > rank):
                best, top, rank = r, q, self._rank[r]
        return best

    def play(self, games: int) -> None:
        """Play `games` more trials (chunking never changes the result)."""
        games = check_games_limit(check_count("games", games))
        w = self.weights.tolist()
        visits = self.visits.tolist()
        counters = self.counters.tolist()
        total = [self.total_reward]
        try:
            self._play(games, w, visits, counters, total)
        finally:  # whole games only: the counters move after each
            self.weights = np.asarray(w, dtype=np.float64)
            self.visits = np.asarray(visits, dtype=np.int64)
            self.counters = np.asarray(counters, dtype=np.int64)
            self.total_reward = total[0]

    def _play(self, games: int, w: list[float], visits: list[int], counters: list[int],
              total: list[float]) -> None:
        p = self.params
        eps, step, cap = p["exploration"], p["step"], p["max_moves"]
        rng, rs, terminal, payoff = self.rng, self._row_start, self._terminal, self._payoff
        indptr, cum, succ, reward = self._indptr, self._cum, self._succ, self._reward
        fid, fval = self._fid, self._fval
        for _ in range(games):
            s, moves, iters, gained = 0, 0, counters[2], 0.0
            while not terminal[s] and moves < cap:
                iters += 1
                lo, hi = rs[s], rs[s + 1]
                if rng.random() < eps:
                    r = lo + min(int(rng.random() * (hi - lo)), hi - lo - 1)
                else:
                    r = self._greedy(w, s)
                u = rng.random()
                i = indptr[r]
                while u >= cum[i]:
                    i += 1
                nxt = succ[i]
                target = reward[r]
                gained += target
                if terminal[nxt]:
                    target += payoff[nxt]
                    gained += payoff[nxt]
                else:
                    target += self._q(w, self._greedy(w, nxt))
                eta = 1.0 / math.sqrt(iters) if step is None else step
                delta = eta * (target - self._q(w, r))
                for f, v in zip(fid[r], fval[r], strict=True):
                    w[f] += delta * v
                visits[s] += 1
                s = nxt
                moves += 1
            if terminal[s]:
                iters += 1  # the assignment's loop asks for an action at the end state too
            counters[0] += 1
            counters[1] += moves
            counters[2] = iters
            total[0] += gained

    def greedy_rows(self) -> np.ndarray:
        """Per state, the row the learner plays greedily (-1 at terminal states)."""
        w = self.weights.tolist()
        best = np.full(self.space.n_states, -1, dtype=np.int64)
        for s in np.flatnonzero(~self.space.terminal).tolist():
            best[s] = self._greedy(w, s)
        return best

    def tables(self) -> GameTables:
        """The greedy row and its Q in every non-terminal state, and the visits."""
        best = self.greedy_rows()
        value = np.full(self.space.n_states, np.nan)
        w = self.weights.tolist()
        live = np.flatnonzero(best >= 0)
        value[live] = [self._q(w, int(best[s])) for s in live]
        return GameTables(readonly(best), readonly(value), readonly(self.visits.copy()))

    def state(self) -> dict[str, Any]:
        return {"weights": self.weights.copy(), "visits": self.visits.copy(),
                "games": self.played, "moves": self.moves, "iters": int(self.counters[2]),
                "total_reward": self.total_reward, "rng_state": rng_state_text(self.rng)}

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any]) -> FeatureQLearning:
        """A learner that plays on exactly as the one whose :meth:`state` this is."""
        obj = cls(game, seed, **dict(params))
        obj.weights = np.array(state_array(state, "weights", obj.weights.shape, "f"),
                               dtype=np.float64)
        obj.visits = np.array(state_array(state, "visits", (obj.space.n_states,), "iu"),
                              dtype=np.int64)
        obj.counters = np.array([state_int(state, "games"), state_int(state, "moves"),
                                 state_int(state, "iters")], dtype=np.int64)
        total = state.get("total_reward")
        if isinstance(total, bool) or not isinstance(total, (int, float)):
            raise LearnerError("the learner state's total_reward must be a number")
        obj.total_reward = float(total)
        obj.rng = generator_from_text(state.get("rng_state"))
        return obj
