"""The Yamslam re-roll study's learner: directed trials of every (state, action) of a game's last
decision, each action's table entry the running average of the score difference it brought:
:class:`DirectedAverage` (``directed-average``).

The pairs learned are the rows of every non-terminal state whose successors are all terminal
(Yamslam with one re-roll: the 252 rolls by the 32 masks, 8,064 pairs), in row order. Trial g
(counting from 0 over the learner's life) plays pair ``g mod P``: it draws the successor of
that row from its exact distribution (one uniform double from the seeded numpy Generator, the
first outcome whose running probability exceeds it) and adds ``payoff(successor) - baseline``
to the pair's sum, the baseline being the game's ``current_score(state)`` when it has one (the
score the dice show before re-rolling), else 0. A pair's entry is the mean of its differences;
after ``N * P`` trials every pair has had N. Sums are added one trial at a time in trial order
(``numpy.add.at``), so the tables do not depend on how the trials are chunked.

Greedy tables: per learned state, the row with the largest mean (the first on ties) and its mean
plus the baseline (the expected final score, as the solver's values); :meth:`gains` gives every
pair's mean difference, the study's table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from dicejack.games.protocol import game_label
from dicejack.learners.base import (
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

__all__ = ["DirectedAverage"]

#: Trials drawn per block (memory: about 40 bytes a trial).
_BLOCK = 1 << 20


class DirectedAverage:
    """Directed trials per (state, action) of the last decision, running averages (module
    docstring). One "game" is one trial."""

    NAME: ClassVar[str] = "directed-average"
    SUMMARY: ClassVar[str] = "the Yamslam re-roll study's learner: N directed trials per pair"
    PARAMS: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, game: Any, seed: int | None = None, **params: Any) -> None:
        self.name = self.NAME
        self.game = game
        self.seed = check_seed(seed)
        self.params = check_params(self.NAME, self.PARAMS, params)
        self.space = space = game_space(game)
        if space.num_players != 1:
            raise LearnerError(f"{game_label(game)}: {self.NAME} is for one-player games")
        t = space.transitions
        live = ~space.terminal
        succ_terminal = space.terminal[t.indices]
        row_all_terminal = np.logical_and.reduceat(succ_terminal, t.indptr[:-1]) \
            if space.n_rows else np.zeros(0, dtype=bool)
        state_last = np.zeros(space.n_states, dtype=bool)
        starts = space.row_start[:-1][live]
        if len(starts):
            state_last[np.flatnonzero(live)] = np.logical_and.reduceat(row_all_terminal, starts)
        self.learned_states = np.flatnonzero(state_last)
        if not len(self.learned_states):
            raise LearnerError(f"{game_label(game)}: no decision leads straight to the end; "
                               f"{self.NAME} learns such last decisions only")
        self.pairs = np.concatenate([np.arange(space.row_start[s], space.row_start[s + 1])
                                     for s in self.learned_states]).astype(np.int64)
        current = getattr(game, "current_score", None)
        base = np.array([float(current(space.states[s])) if callable(current) else 0.0
                         for s in range(space.n_states)])
        self.baseline = base[space.row_state[self.pairs]]
        # successors of the pairs' rows, and their running probabilities shifted by the pair's
        # position k (k + running probability, the last exactly k + 1): one sorted array
        lengths = np.diff(t.indptr)[self.pairs]
        first = t.indptr[self.pairs]
        idx = np.repeat(first - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths) \
            + np.arange(int(lengths.sum()))
        prob = t.data[idx]
        owner = np.repeat(np.arange(len(self.pairs)), lengths)
        pos = np.arange(len(idx)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        within = prob.astype(np.float64)
        for j in range(1, int(lengths.max(initial=1))):  # along each row, left to right
            at = np.flatnonzero(pos == j)
            within[at] = within[at - 1] + within[at]
        ends = np.cumsum(lengths) - 1
        within[ends] = 1.0
        self._edges = owner + within
        self._pair_end = ends
        self._gain = space.payoff[t.indices[idx]] - np.repeat(self.baseline, lengths)
        self.sums = np.zeros(len(self.pairs))
        self.counts = np.zeros(len(self.pairs), dtype=np.int64)
        self.counters = np.zeros(1, dtype=np.int64)  # trials
        self.rng = np.random.default_rng(self.seed)

    def __repr__(self) -> str:
        words = " ".join(f"{k}={format_value(v)}" for k, v in self.params.items())
        return f"<{type(self).__name__} {words} seed={self.seed} played={self.played}>"

    @property
    def played(self) -> int:
        return int(self.counters[0])

    @property
    def moves(self) -> int:
        return self.played

    def play(self, games: int) -> None:
        """`games` more trials, pair after pair (module docstring)."""
        games = check_games_limit(check_count("games", games))
        n_pairs = len(self.pairs)
        done = 0
        while done < games:
            block = min(_BLOCK, games - done)
            g = self.played + np.arange(block, dtype=np.int64)
            k = g % n_pairs
            u = self.rng.random(block)
            at = np.searchsorted(self._edges, k + u, side="right")
            at = np.minimum(at, self._pair_end[k])  # k + u rounded up to k + 1: the last
            np.add.at(self.sums, k, self._gain[at])
            np.add.at(self.counts, k, 1)
            self.counters[0] += block
            done += block

    def gains(self) -> np.ndarray:
        """Per pair (``self.pairs``), the mean score difference so far (NaN before a trial)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts > 0, self.sums / np.maximum(self.counts, 1), np.nan)

    def tables(self) -> GameTables:
        space = self.space
        best = np.full(space.n_states, -1, dtype=np.int64)
        value = np.full(space.n_states, np.nan)
        visits = np.zeros(space.n_states, dtype=np.int64)
        mean = self.gains()
        states = space.row_state[self.pairs]
        np.add.at(visits, states, self.counts)
        for s in self.learned_states.tolist():
            lo, hi = np.searchsorted(states, [s, s + 1])
            seg = mean[lo:hi]
            if np.all(np.isnan(seg)):
                continue
            k = lo + int(np.nanargmax(seg))
            best[s] = self.pairs[k]
            value[s] = mean[k] + self.baseline[k]
        return GameTables(readonly(best), readonly(value), readonly(visits))

    def state(self) -> dict[str, Any]:
        return {"sums": self.sums.copy(), "counts": self.counts.copy(), "games": self.played,
                "rng_state": rng_state_text(self.rng)}

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any]) -> DirectedAverage:
        """A learner that plays on exactly as the one whose :meth:`state` this is."""
        obj = cls(game, seed, **dict(params))
        obj.sums = np.array(state_array(state, "sums", obj.sums.shape, "f"), dtype=np.float64)
        obj.counts = np.array(state_array(state, "counts", obj.counts.shape, "iu"),
                              dtype=np.int64)
        obj.counters = np.array([state_int(state, "games")], dtype=np.int64)
        obj.rng = generator_from_text(state.get("rng_state"))
        return obj
