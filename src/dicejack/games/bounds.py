"""A game's bounds, computed once from its enumeration: :func:`game_bounds` -> :class:`Bounds`.

Every bridge to another library reads them here and nowhere else: OpenSpiel's
``min_utility``/``max_utility``/``max_game_length`` (:func:`dicejack.envs.openspiel.protocol_game`),
the PettingZoo and Gymnasium environments' return range and truncation
(:mod:`dicejack.envs.bridge`, which the PettingZoo environment and its single-agent view read).

low, high: the least and the greatest return of player 0 over every possible play (the rewards
on the way, ``reward(state, action)``, plus the payoff at the end; not an expectation: every
chance outcome counts as possible). longest: the most moves (decisions; chance outcomes not
counted, as OpenSpiel counts a game's length) in one play, None when the state graph has a cycle
(Pig: two pig-outs return to the same scores, so no length bounds every play). A cycle whose
moves pay makes the range open on that side (``-inf`` or ``inf``): a play may go round it any
number of times. move_limit: `longest`, or :data:`MOVES_CAP` when there is none: where the
bridges cut a game that has not ended (OpenSpiel's nominal ``max_game_length``, the
environments' truncation).

The computation is exact on the graph: the strongly connected components of the state graph,
taken from the terminal states up (a component after every component it leads to), each
component's least and greatest return the best over its moves leaving it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Bounds", "game_bounds", "MOVES_CAP"]

#: The most moves a play of a game with cycles goes on for in the bridges before it is cut (every
#: game ends with probability 1, but no length bounds every play of a cyclic one).
MOVES_CAP = 10**6


@dataclass(frozen=True)
class Bounds:
    """Player 0's least and greatest return over every play, and the longest play (module
    docstring)."""

    low: float
    high: float
    longest: int | None

    @property
    def move_limit(self) -> int:
        """The longest play, or :data:`MOVES_CAP` for a game with cycles."""
        return MOVES_CAP if self.longest is None else self.longest

    def seat(self, player: int) -> tuple[float, float]:
        """The return range of `player` (player 1's is player 0's negated: zero-sum)."""
        return (self.low, self.high) if player == 0 else (-self.high, -self.low)


def game_bounds(space: Any) -> Bounds:
    """The :class:`Bounds` of an enumerated game (:class:`dicejack.games.StateSpace`)."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    n = space.n_states
    t = space.transitions
    per_row = np.diff(t.indptr)
    src = np.repeat(space.row_state, per_row)
    dst = t.indices.astype(np.int64)
    paid = (np.repeat(space.reward, per_row) if space.reward is not None
            else np.zeros(len(src), dtype=np.float64))
    graph = sparse.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    n_comp, comp = connected_components(graph, directed=True, connection="strong")
    cs, cd = comp[src], comp[dst]
    inside = cs == cd

    # what a component is worth by itself: a terminal state's payoff; a cycle: open sides
    high = np.full(n_comp, -math.inf)
    low = np.full(n_comp, math.inf)
    longest = np.full(n_comp, -math.inf)
    ends = np.flatnonzero(space.terminal)
    high[comp[ends]] = space.payoff[ends]
    low[comp[ends]] = space.payoff[ends]
    longest[comp[ends]] = 0.0
    longest[cs[inside]] = math.inf
    high[cs[inside & (paid > 0)]] = math.inf
    low[cs[inside & (paid < 0)]] = -math.inf

    # components from the terminal states up: each after every component it leads to
    out = ~inside
    e_from, e_to, e_paid = cs[out], cd[out], paid[out]
    pairs = np.unique(e_from.astype(np.int64) * n_comp + e_to)
    outdeg = np.bincount(pairs // n_comp, minlength=n_comp)
    reverse = sparse.csr_matrix((np.ones(len(pairs), dtype=np.int8),
                                 (pairs % n_comp, pairs // n_comp)), shape=(n_comp, n_comp))
    order = np.argsort(e_from, kind="stable")
    e_from, e_to, e_paid = e_from[order], e_to[order], e_paid[order]
    first = np.searchsorted(e_from, np.arange(n_comp + 1))
    done = np.zeros(n_comp, dtype=bool)
    frontier = np.flatnonzero(outdeg == 0)
    while len(frontier):
        lo, hi = first[frontier], first[frontier + 1]
        counts = hi - lo
        edges = (np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
                 + np.repeat(lo, counts))
        who, to = e_from[edges], e_to[edges]
        np.maximum.at(high, who, e_paid[edges] + high[to])
        np.minimum.at(low, who, e_paid[edges] + low[to])
        np.maximum.at(longest, who, longest[to] + 1.0)
        done[frontier] = True
        preds = reverse[frontier].indices
        outdeg = outdeg - np.bincount(preds, minlength=n_comp)
        cand = np.unique(preds)
        frontier = cand[(outdeg[cand] == 0) & ~done[cand]]

    start = comp[0]
    most = float(longest[start])
    return Bounds(float(low[start]), float(high[start]),
                  None if math.isinf(most) else int(most))
