"""The lean forward pass of the deck game's exact evaluator (:mod:`~.deck_evaluation`): a
round's states keep only the window of the score difference ``d`` they can have, and the next
round's states are merged inside the kernel, so the code's passing follower fits at the study's
deck.

A round is the sorted keys of its states (hands and deck, :mod:`dicejack.solver.deck_rules`),
``offsets`` (states + 1, int64) into one flat float64 ``pool`` and ``low`` (int32): state ``s``
holds the probabilities of columns ``low[s] .. low[s] + offsets[s + 1] - offsets[s] - 1`` (column
``d + swing * r``, as the dense rows number them), which cover every ``d`` it can reach.
A round goes in two passes over its states. :func:`_index_plain` enters every next state into an
open-addressing hash table of keys (linear probing; grown by :func:`rehash_plain` when half
full), widening the next state's window to each shifted source window; the table's keys are then
sorted, each slot given its state's rank, and the pool laid out. :func:`_spread_plain` pushes the
probabilities, each next state found in the table. The terms added into each probability are the
dense path's, in the same order, less its products with zero, so the results are bit-identical to
it (tests/solver/test_deck_evaluation.py holds them so).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack.games.deck_dollar import DeckDollar
from dicejack.solver.deck_rules import (
    MemoryBudget,
    compile_kernels,
    decode_plain,
    draws_plain,
    encode_plain,
    hashed_next_states,
    plays_plain,
    rehash_plain,
    score_plain,
    slot_plain,
    start_states,
)

__all__ = ["lean_final"]

#: The most next states one state has: 16 pairs of cards played times 9 draws.
FANOUT = 144


def _index_plain(keys, offsets, low, start, count, r, policy, half, passing, tsi, base, swing,
                 table, lo, hi):
    """Enters the next states of states start.. into the hash table (table, lo, hi: each one's
    window of columns), stopping before a state that could fill it past half: returns (the
    state stopped at, the entries now)."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    plays = np.zeros((4, 4))
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    limit = table.shape[0] // 2 - FANOUT
    for s in range(start, keys.shape[0]):
        if count > limit:
            return s, count
        decode_plain(keys[s], base, c)
        plays_plain(c, r % 2 == 0, policy, half, passing, tsi, plays)
        first = low[s]
        final = first + offsets[s + 1] - offsets[s] - 1
        for i in range(4):
            for j in range(4):
                if plays[i, j] == 0.0:
                    continue
                shift = score_plain(i, j) + swing
                mid[:] = c
                if i < 3:
                    mid[i] -= 1
                if j < 3:
                    mid[3 + j] -= 1
                for k in range(draws_plain(mid, after, dprobs)):
                    key = encode_plain(after[k], base)
                    h = slot_plain(table, key)
                    if table[h] < 0:
                        table[h], lo[h], hi[h] = key, first + shift, final + shift
                        count += 1
                    else:
                        lo[h] = min(lo[h], first + shift)
                        hi[h] = max(hi[h], final + shift)
    return keys.shape[0], count


def _spread_plain(keys, offsets, low, pool, r, policy, half, passing, tsi, base, swing, table,
                  rank, noffsets, nlow, npool, last):
    """Round r's probabilities pushed into round r + 1's (each next state's rank in the table's
    slot; its window at npool[noffsets[t]:], column nlow[t] first); the `last` round collapses
    into npool (the final distribution of d, every column)."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    plays = np.zeros((4, 4))
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    for s in range(keys.shape[0]):
        decode_plain(keys[s], base, c)
        plays_plain(c, r % 2 == 0, policy, half, passing, tsi, plays)
        src, width = offsets[s], offsets[s + 1] - offsets[s]
        for i in range(4):
            for j in range(4):
                p = plays[i, j]
                if p == 0.0:
                    continue
                shift = score_plain(i, j) + swing
                if last:
                    at = low[s] + shift
                    for w in range(width):
                        npool[at + w] += p * pool[src + w]
                    continue
                mid[:] = c
                if i < 3:
                    mid[i] -= 1
                if j < 3:
                    mid[3 + j] -= 1
                for k in range(draws_plain(mid, after, dprobs)):
                    t = rank[slot_plain(table, encode_plain(after[k], base))]
                    at = noffsets[t] - nlow[t] + low[s] + shift
                    q = p * dprobs[k]
                    for w in range(width):
                        npool[at + w] += q * pool[src + w]


_KERNELS: dict[str, Any] = {}
_PLAIN = {"slot": slot_plain, "rehash": rehash_plain, "index": _index_plain,
          "spread": _spread_plain}


def _kernel(name: str, compiled: bool) -> Any:
    """The kernel `name` (rehash, index, spread): compiled, or the plain reference."""
    if not compiled:
        return _PLAIN[name]
    if not _KERNELS:
        _KERNELS.update(compile_kernels(_PLAIN, globals()))
    return _KERNELS[name]


def _next_round(keys, offsets, low, r, args, budget, compiled):
    """Round r + 1's hash table (keys, ranks), sorted keys, offsets and low columns."""
    index, rehash = _kernel("index", compiled), _kernel("rehash", compiled)
    table, lo, hi = hashed_next_states(
        lambda at, count, *arrays: index(keys, offsets, low, at, count, r, *args, *arrays),
        keys.shape[0], r, budget, rehash)
    slots = np.flatnonzero(table >= 0)
    budget.take(40 * slots.shape[0], r, "the next states' keys and windows")
    order = np.argsort(table[slots], kind="stable")
    slots = slots[order]
    del order
    nkeys, nlow = table[slots], lo[slots]
    noffsets = np.zeros(slots.shape[0] + 1, dtype=np.int64)
    np.cumsum(hi[slots] - nlow + 1, out=noffsets[1:])
    budget.give(hi)
    del hi
    lo[slots] = np.arange(slots.shape[0], dtype=np.int32)  # the table's slots' ranks
    budget.alive -= 20 * slots.shape[0]  # slots and their order gone, ranks in lo
    return table, lo, nkeys, noffsets, nlow


def lean_final(game: DeckDollar, policy: np.ndarray, compiled: bool,
               memory_limit: int) -> tuple[np.ndarray, tuple[int, ...], int]:
    """The final distribution of d (column d + swing * rounds) of `policy` (a (40, 3) table)
    against the uniform opponent; the states per round; the peak bytes of the arrays alive.
    Raises SolverError before those would pass `memory_limit`."""
    base, tsi, keys, pool = start_states(game)
    offsets = np.arange(keys.shape[0] + 1, dtype=np.int64)
    low = np.zeros(keys.shape[0], dtype=np.int32)
    args = (policy, game.half, game.passing, tsi, base, game.swing)
    spread = _kernel("spread", compiled)
    budget = MemoryBudget(memory_limit)
    budget.take(keys.nbytes + offsets.nbytes + low.nbytes + pool.nbytes, 0, "the deal")
    states = []
    for r in range(game.rounds):
        states.append(int(keys.shape[0]))
        width = 2 * game.swing * (r + 1) + 1
        if r == game.rounds - 1:
            final = np.zeros(width)
            spread(keys, offsets, low, pool, r, *args, np.zeros(1, np.int64),
                   np.zeros(1, np.int32), offsets, low, final, True)
            return final, tuple(states), budget.peak
        table, rank, nkeys, noffsets, nlow = _next_round(keys, offsets, low, r, args, budget,
                                                         compiled)
        budget.take(8 * int(noffsets[-1]), r, f"{nkeys.shape[0]:,} states' windows of d")
        npool = np.zeros(int(noffsets[-1]))
        spread(keys, offsets, low, pool, r, *args, table, rank, noffsets, nlow, npool, False)
        budget.give(keys, offsets, low, pool, table, rank)
        keys, offsets, low, pool = nkeys, noffsets, nlow, npool
    raise AssertionError("unreachable")
