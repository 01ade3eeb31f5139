"""The deck game's full-information upper bound (:func:`~.deck_evaluation.full_information_bound`),
lean: each state keeps only its window of the score difference ``d``, so the code's passing
follower fits at the study's deck.

A forward pass finds each round's states (the keys of :mod:`dicejack.solver.deck_rules`) as
every action reaches them (all nine pairs of actions of the two players, so the uniform
policy's reach) and, per state, the window of columns ``low .. low + width - 1`` (column
``d + swing * r``, as the dense rows number them) covering every ``d`` it can have: the next
states are merged in an open-addressing hash table (linear probing, grown when half full) by
:func:`_index_plain`, each widening its window to every shifted source window. Every round's
keys, ``low`` and ``width`` (int64, int16, int16: 12 bytes a state) are kept, in memory or,
``spill=True``, in temporary files read back one round at a time. The backward pass keeps two
rounds' values (one flat float64 pool per round, each state's window at its offset):
:func:`_backup_plain` values a round from the next (found in a hash table of its sorted keys,
:func:`_insert_plain`). Its terms are the dense path's (:func:`~.deck_evaluation._backup_plain`),
in the same order, each pair of cards' expected next value computed once (the actions that play
the same two cards have the same one), so the bound is bit-identical to the dense one
(tests/solver/test_deck_bound.py holds them so, and the compiled kernels to their plain
references).

Measured (``benchmarks/bench_deck_evaluation.py --bound``, 2 cores shared with other jobs): the
study's deck under the intent (``passing=False``), 0.834408011960 in 2.9 CPU-s against the
dense rows' 7.3 (ratio 0.40; tracemalloc peak 46 MB against 79, ratio 0.58), bit-identical;
under the code's passing follower (86.3 million states over 26 rounds, 8.58 million in the
largest; the dense rows are refused there), 0.888982726211 in 546 to 629 CPU-s, peak RSS
3.9 GiB with ``spill=True``, 4.4 GiB without (``--passing --only '' --bound lean --spill``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
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
    pair_plain,
    rehash_plain,
    score_plain,
    slot_plain,
    start_states,
)

__all__ = ["lean_bound", "BoundRun"]

#: The most next states one state has: 9 pairs of cards played times 9 draws.
FANOUT = 81


def _pairs_plain(c, lead_monte, half, passing, cards, which):
    """The distinct pairs of card types (cards[m] = monte's, the opponent's; -1 a pass) the nine
    pairs of actions (a, b) play at counts c, which[3 * a + b] = m; returns how many."""
    n = 0
    for a in range(3):
        for b in range(3):
            c1, c2 = pair_plain(c, lead_monte, a, b, half, passing)
            m = 0
            while m < n and (cards[m, 0] != c1 or cards[m, 1] != c2):
                m += 1
            if m == n:
                cards[m, 0], cards[m, 1] = c1, c2
                n += 1
            which[3 * a + b] = m
    return n


def _index_plain(keys, low, width, start, count, r, half, passing, base, swing, table, lo, hi):
    """Enters the next states of states start.. into the hash table (table, lo, hi: each one's
    window of columns), stopping before a state that could fill it past half: returns (the
    state stopped at, the entries now)."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    cards = np.empty((9, 2), dtype=np.int64)
    which = np.empty(9, dtype=np.int64)
    limit = table.shape[0] // 2 - FANOUT
    for s in range(start, keys.shape[0]):
        if count > limit:
            return s, count
        decode_plain(keys[s], base, c)
        first = np.int64(low[s])
        final = first + width[s] - 1
        for m in range(_pairs_plain(c, r % 2 == 0, half, passing, cards, which)):
            c1, c2 = cards[m, 0], cards[m, 1]
            shift = score_plain(3 if c1 < 0 else c1, 3 if c2 < 0 else c2) + swing
            mid[:] = c
            if c1 >= 0:
                mid[c1] -= 1
            if c2 >= 0:
                mid[3 + c2] -= 1
            for k in range(draws_plain(mid, after, dprobs)):
                h = slot_plain(table, encode_plain(after[k], base))
                if table[h] < 0:
                    table[h], lo[h], hi[h] = encode_plain(after[k], base), first + shift, \
                        final + shift
                    count += 1
                else:
                    lo[h] = min(lo[h], first + shift)
                    hi[h] = max(hi[h], final + shift)
    return keys.shape[0], count


def _insert_plain(keys, table, rank):
    """A hash table of the sorted `keys`: each one's slot holds it, its rank in `rank`."""
    for i in range(keys.shape[0]):
        h = slot_plain(table, keys[i])
        table[h], rank[h] = keys[i], i


def _expect_plain(c, c1, c2, r, first, width, base, swing, table, rank, noffsets, nlow, npool,
                  last, acc, mid, after, dprobs):
    """acc[:width] = the expected next value of monte playing c1 and the opponent c2 at
    columns first.. of round r (the dense _after_plain's terms, in its order)."""
    shift = score_plain(3 if c1 < 0 else c1, 3 if c2 < 0 else c2) + swing
    if last:
        for w in range(width):
            d = first + w + shift - swing * (r + 1)
            acc[w] = 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
        return
    acc[:width] = 0.0
    mid[:] = c
    if c1 >= 0:
        mid[c1] -= 1
    if c2 >= 0:
        mid[3 + c2] -= 1
    for k in range(draws_plain(mid, after, dprobs)):
        t = rank[slot_plain(table, encode_plain(after[k], base))]
        at = noffsets[t] - nlow[t] + first + shift
        for w in range(width):
            acc[w] += dprobs[k] * npool[at + w]


def _backup_plain(keys, offsets, low, pool, r, half, passing, base, swing, table, rank,
                  noffsets, nlow, npool, last):
    """Round r's full-information values (pool, each state's window at its offset) from round
    r + 1's: monte leading picks its card before the opponent's answer (max of the mean), monte
    following after seeing the opponent's card (mean of the max)."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    cards = np.empty((9, 2), dtype=np.int64)
    which = np.empty(9, dtype=np.int64)
    most = 2 * swing * r + 1
    acc = np.empty((9, most))
    best = np.empty(most)
    lead_monte = r % 2 == 0
    for s in range(keys.shape[0]):
        decode_plain(keys[s], base, c)
        first, at = np.int64(low[s]), offsets[s]
        width = offsets[s + 1] - at
        for m in range(_pairs_plain(c, lead_monte, half, passing, cards, which)):
            _expect_plain(c, cards[m, 0], cards[m, 1], r, first, width, base, swing, table, rank,
                          noffsets, nlow, npool, last, acc[m], mid, after, dprobs)
        for w in range(width):
            pool[at + w] = -np.inf if lead_monte else 0.0
        for outer in range(3):
            best[:width] = 0.0 if lead_monte else -np.inf
            for inner in range(3):
                m = which[3 * outer + inner] if lead_monte else which[3 * inner + outer]
                for w in range(width):
                    if lead_monte:
                        best[w] += acc[m, w] / 3.0
                    elif acc[m, w] > best[w]:
                        best[w] = acc[m, w]
            for w in range(width):
                if lead_monte:
                    pool[at + w] = max(pool[at + w], best[w])
                else:
                    pool[at + w] += best[w] / 3.0


_KERNELS: dict[str, Any] = {}
_PLAIN = {"slot": slot_plain, "rehash": rehash_plain, "pairs": _pairs_plain,
          "index": _index_plain, "insert": _insert_plain, "expect": _expect_plain,
          "backup": _backup_plain}


def _kernel(name: str, compiled: bool) -> Any:
    """The kernel `name` (rehash, index, insert, backup): compiled, or the plain reference."""
    if not compiled:
        return _PLAIN[name]
    if not _KERNELS:
        _KERNELS.update(compile_kernels(_PLAIN, globals()))
    return _KERNELS[name]


class _Rounds:
    """Every round's keys, low and width: in memory, or in files under `folder` (each read
    back when asked for); the bytes held in memory counted in the budget."""

    def __init__(self, folder: Path | None, budget: MemoryBudget) -> None:
        self.folder, self.budget, self.held = folder, budget, {}

    def put(self, r: int, arrays: tuple[np.ndarray, ...]) -> None:
        if self.folder is None:
            self.held[r] = arrays
            return
        for name, array in zip(("keys", "low", "width"), arrays, strict=True):
            np.save(self.folder / f"{r}-{name}.npy", array)
        self.budget.give(*arrays)

    def get(self, r: int) -> tuple[np.ndarray, ...]:
        """Round r's arrays (in memory from here on, in the budget's count)."""
        if self.folder is None:
            return self.held.pop(r)
        arrays = tuple(np.load(self.folder / f"{r}-{name}.npy")
                       for name in ("keys", "low", "width"))
        self.budget.take(sum(a.nbytes for a in arrays), r, "its states, read back")
        return arrays


def _next_round(keys, low, width, r, args, budget, compiled):
    """Round r + 1's sorted keys, low and width (int64, int16, int16) as every action reaches
    them."""
    index, rehash = _kernel("index", compiled), _kernel("rehash", compiled)
    table, lo, hi = hashed_next_states(
        lambda at, count, *arrays: index(keys, low, width, at, count, r, *args, *arrays),
        keys.shape[0], r, budget, rehash)
    slots = np.flatnonzero(table >= 0)
    budget.take(28 * slots.shape[0], r, "the next states' keys and windows")
    slots = slots[np.argsort(table[slots], kind="stable")]
    out = (table[slots], lo[slots].astype(np.int16), (hi[slots] - lo[slots] + 1).astype(np.int16))
    budget.give(table, lo, hi, slots)
    return out


def _offsets(width: np.ndarray) -> np.ndarray:
    offsets = np.zeros(width.shape[0] + 1, dtype=np.int64)
    np.cumsum(width, out=offsets[1:])
    return offsets


@dataclass(frozen=True)
class BoundRun:
    """A lean bound's result: the bound, the states per round, the peak bytes of the arrays
    alive (files spilled aside)."""

    value: float
    states: tuple[int, ...]
    peak: int


def lean_bound(game: DeckDollar, compiled: bool, memory_limit: int,
               spill: bool = False) -> BoundRun:
    """The full-information upper bound of `game` (module docstring), bit-identical to the
    dense one. `spill`: earlier rounds' states in temporary files, not in memory. Raises
    SolverError before the arrays alive would pass `memory_limit` bytes."""
    base, _, keys, probs = start_states(game)
    budget = MemoryBudget(memory_limit, "spill=True, passing=False or a smaller deck")
    with tempfile.TemporaryDirectory(prefix="dicejack-bound-") as folder:
        rounds = _Rounds(Path(folder) if spill else None, budget)
        current = (keys, np.zeros(keys.shape[0], np.int16), np.ones(keys.shape[0], np.int16))
        budget.take(sum(a.nbytes for a in current) + probs.nbytes, 0, "the deal")
        states = []
        args = (game.half, game.passing, base, game.swing)
        for r in range(game.rounds):
            states.append(int(current[0].shape[0]))
            after = None if r == game.rounds - 1 else _next_round(*current, r, args, budget,
                                                                   compiled)
            rounds.put(r, current)
            current = after
        value = _backward(game, rounds, base, budget, compiled)
    return BoundRun(float(probs @ value), tuple(states), budget.peak)


def _backward(game: DeckDollar, rounds: _Rounds, base: np.ndarray, budget: MemoryBudget,
              compiled: bool) -> np.ndarray:
    """Round 0's values (one a state: its window is d = 0) by backward induction."""
    backup, insert = _kernel("backup", compiled), _kernel("insert", compiled)
    table, rank = np.full(1, -1, np.int64), np.zeros(1, np.int64)
    noffsets, nlow, npool = np.zeros(2, np.int64), np.zeros(1, np.int16), np.zeros(1)
    for r in range(game.rounds - 1, -1, -1):
        keys, low, width = rounds.get(r)
        budget.take(8 * (keys.shape[0] + 1), r, "its offsets")
        offsets = _offsets(width)
        budget.take(8 * int(offsets[-1]), r, f"{keys.shape[0]:,} states' windows of values")
        pool = np.empty(int(offsets[-1]))
        backup(keys, offsets, low, pool, r, game.half, game.passing, base, game.swing, table,
               rank, noffsets, nlow, npool, r == game.rounds - 1)
        budget.give(table, rank, noffsets, nlow, npool)
        if r > 0:
            size = 1 << max(10, int(2 * keys.shape[0]).bit_length())
            budget.take(16 * size, r, "its hash table")
            table, rank = np.full(size, -1, np.int64), np.empty(size, np.int64)
            insert(keys, table, rank)
        budget.give(keys, width)
        noffsets, nlow, npool = offsets, low, pool
        del keys, width
    return npool
