"""The levels of a protocol game's state space: its strongly connected components
(scipy.sparse.csgraph), each component's level being the longest path from it to a terminal
state in the graph of components. A level only leads to lower levels and to itself, so the
solver (:mod:`dicejack.solver.generic`) and the policies' values
(:mod:`dicejack.solver.generic_policies`) go through them one after another from the terminal
states up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.space import StateSpace

__all__ = ["Levels", "level_structure"]


@dataclass(frozen=True, eq=False)
class Levels:
    """The levels of a state space (module docstring), lowest (terminal states) first.

    height: int64 per state; states[h]: the states of level h, ascending; rows[h]: their rows;
    starts[h]: where each state's rows begin within rows[h]; cyclic[h]: the level has a cycle;
    matrices[h]: the transition rows of level h (CSR).
    """

    height: np.ndarray
    states: list[np.ndarray]
    rows: list[np.ndarray]
    starts: list[np.ndarray]
    cyclic: list[bool]
    matrices: list[Any]

    @property
    def acyclic(self) -> bool:
        """True when the whole game has no cycle (backward induction solves it)."""
        return not any(self.cyclic)


def _state_rows(space: StateSpace, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, starts): every row of `states` in order, and where each state's rows begin."""
    if not len(states):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first = space.row_start[states]
    counts = space.row_start[states + 1] - first
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    total = int(counts.sum())
    rows = np.arange(total, dtype=np.int64) - np.repeat(starts, counts) + np.repeat(first, counts)
    return rows, starts


def level_structure(space: StateSpace) -> Levels:
    """Cut `space` into levels (module docstring)."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    n = space.n_states
    t = space.transitions
    src = np.repeat(space.row_state, np.diff(t.indptr))
    dst = t.indices.astype(np.int64)
    graph = sparse.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    n_comp, labels = connected_components(graph, directed=True, connection="strong")
    cs, cd = labels[src], labels[dst]
    inside = cs == cd
    cyclic_comp = np.zeros(n_comp, dtype=bool)
    cyclic_comp[cs[inside]] = True
    pairs = np.unique(cs[~inside].astype(np.int64) * n_comp + cd[~inside])
    out_from, out_to = pairs // n_comp, pairs % n_comp
    outdeg = np.bincount(out_from, minlength=n_comp)
    reverse = sparse.csr_matrix(
        (np.ones(len(pairs), dtype=np.int8), (out_to, out_from)), shape=(n_comp, n_comp)
    )
    height = np.full(n_comp, -1, dtype=np.int64)
    frontier = np.flatnonzero(outdeg == 0)
    h = 0
    while len(frontier):
        height[frontier] = h
        preds = reverse[frontier].indices
        outdeg = outdeg - np.bincount(preds, minlength=n_comp)
        cand = np.unique(preds)
        frontier = cand[(outdeg[cand] == 0) & (height[cand] < 0)]
        h += 1
    state_height = height[labels]
    order = np.argsort(state_height, kind="stable")
    bounds = np.searchsorted(state_height[order], np.arange(h + 1))
    states, rows, starts, cyclic, matrices = [], [], [], [], []
    nonterminal = ~space.terminal
    for level in range(h):
        members = order[bounds[level]:bounds[level + 1]]
        members = members[nonterminal[members]]
        r, st = _state_rows(space, members)
        states.append(members)
        rows.append(r)
        starts.append(st)
        cyclic.append(bool(cyclic_comp[labels[members]].any()) if len(members) else False)
        matrices.append(t[r] if len(r) else None)
    return Levels(state_height, states, rows, starts, cyclic, matrices)
