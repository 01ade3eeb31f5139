"""The deck divide-the-dollar game's rules on counts (:mod:`dicejack.games.deck_dollar`), as
plain kernels the exact evaluators compile: a state is nine counts (monte's hand, the
opponent's, the deck, by card type 0..2), keyed as one integer in mixed radix; what a hand plays
for an action, the observation, the pairs of cards a round plays and their probabilities, the
draws after a round; the deal's exact distribution and the first round's states. And what
the evaluators (deck_evaluation, deck_lean, deck_bound, deck_fsm_evaluation) share around them:
the next states' growing hash table (:func:`hashed_next_states`), the memory budget
(:class:`MemoryBudget`, :func:`check_rows`) and the dense forward pass (:func:`dense_forward`).

The plain functions here are references and callees at once: :func:`compile_kernels` compiles
them with numba without a change (each callee under its plain name, as
:mod:`dicejack.solver.generic_sweeps` does) together with a caller module's own kernels.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import FunctionType
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import TRUE_STATE_INDEX, DeckDollar
from dicejack.solver.solution import SolverError

__all__ = ["nth_plain", "low_plain", "high_plain", "card_plain", "observe_plain", "plays_plain",
           "encode_plain", "decode_plain", "draws_plain", "score_plain", "pair_plain", "RULES",
           "compile_kernels", "deal_distribution", "start_states"]

def nth_plain(c, off, k):
    """The card type at sorted index k of the hand whose counts are c[off:off + 3]."""
    if k < c[off]:
        return 0
    if k < c[off] + c[off + 1]:
        return 1
    return 2


def low_plain(c, off):
    return 0 if c[off] > 0 else (1 if c[off + 1] > 0 else 2)


def high_plain(c, off):
    return 2 if c[off + 2] > 0 else (1 if c[off + 1] > 0 else 0)


def card_plain(c, off, showing, action, half, passing):
    """The card type the hand c[off:off + 3] plays (the code's play_action on counts), -1 for
    a pass."""
    if action == 1:
        return nth_plain(c, off, half)
    if showing == 3:
        return low_plain(c, off) if action == 0 else high_plain(c, off)
    if action == 0:
        for t in range(3):
            if c[off + t] > 0 and t + showing > 2:
                return t
        return high_plain(c, off)
    for t in range(2, -1, -1):
        if c[off + t] > 0 and t + showing <= 2:
            return t
    return -1 if passing else low_plain(c, off)


def observe_plain(c, showing, half, tsi):
    return tsi[showing * 27 + low_plain(c, 0) * 9 + nth_plain(c, 0, half) * 3 + high_plain(c, 0)]


def plays_plain(c, lead_monte, policy, half, passing, tsi, table):
    """table[i, j] = P(monte plays type i, the opponent type j) this round (3: a pass)."""
    table[:, :] = 0.0
    if lead_monte:
        o = observe_plain(c, 3, half, tsi)
        for a in range(3):
            if policy[o, a] > 0.0:
                c1 = card_plain(c, 0, 3, a, half, passing)
                for b in range(3):
                    c2 = card_plain(c, 3, c1, b, half, passing)
                    table[c1, 3 if c2 < 0 else c2] += policy[o, a] / 3.0
    else:
        for b in range(3):
            c2 = card_plain(c, 3, 3, b, half, passing)
            o = observe_plain(c, c2, half, tsi)
            for a in range(3):
                if policy[o, a] > 0.0:
                    c1 = card_plain(c, 0, c2, a, half, passing)
                    table[3 if c1 < 0 else c1, c2] += policy[o, a] / 3.0


def encode_plain(c, base):
    key = 0
    for k in range(9):
        key = key * base[k] + c[k]
    return key


def decode_plain(key, base, c):
    for k in range(8, -1, -1):
        c[k] = key % base[k]
        key //= base[k]


def draws_plain(c, after, probs):
    """The deals after a round (monte draws first, then the opponent, while the deck lasts)
    from the counts c: after[m] the counts, probs[m] the probability; returns how many."""
    n = c[6] + c[7] + c[8]
    if n == 0:
        after[0, :] = c
        probs[0] = 1.0
        return 1
    m = 0
    for t in range(3):
        if c[6 + t] == 0:
            continue
        if n == 1:
            after[m, :] = c
            after[m, 6 + t] -= 1
            after[m, t] += 1
            probs[m] = 1.0
            m += 1
            continue
        for u in range(3):
            left = c[6 + u] - (1 if u == t else 0)
            if left > 0:
                after[m, :] = c
                after[m, 6 + t] -= 1
                after[m, t] += 1
                after[m, 6 + u] -= 1
                after[m, 3 + u] += 1
                probs[m] = c[6 + t] / n * left / (n - 1)
                m += 1
    return m


def score_plain(i, j):
    """d's change when monte plays type i and the opponent type j (3: a pass)."""
    v1 = i + 1 if i < 3 else 0
    v2 = j + 1 if j < 3 else 0
    return v1 - v2 if v1 + v2 <= 4 else 0


def pair_plain(c, lead_monte, a, b, half, passing):
    """The two card types (monte's, the opponent's; -1 a pass) when monte takes action a and
    the opponent action b."""
    if lead_monte:
        c1 = card_plain(c, 0, 3, a, half, passing)
        return c1, card_plain(c, 3, c1, b, half, passing)
    c2 = card_plain(c, 3, 3, b, half, passing)
    return card_plain(c, 0, c2, a, half, passing), c2



def slot_plain(table, key):
    """The slot of `key` in the hash table (its own, or the empty one, -1, where it goes)."""
    mask = table.shape[0] - 1
    h = key ^ (key >> 29)
    h = h * 0x5BD1E995
    h = (h ^ (h >> 32)) & mask
    while table[h] != key and table[h] >= 0:
        h = (h + 1) & mask
    return h


def rehash_plain(table, lo, hi, ntable, nlo, nhi):
    """The hash table's entries moved into a larger one."""
    for i in range(table.shape[0]):
        if table[i] >= 0:
            h = slot_plain(ntable, table[i])
            ntable[h], nlo[h], nhi[h] = table[i], lo[i], hi[i]


#: The rule kernels by short name (callees of the evaluators' kernels).
RULES = {"nth": nth_plain, "low": low_plain, "high": high_plain, "card": card_plain,
         "observe": observe_plain, "plays": plays_plain, "encode": encode_plain,
         "decode": decode_plain, "draws": draws_plain, "score": score_plain, "pair": pair_plain,
         "slot": slot_plain, "rehash": rehash_plain}


def compile_kernels(plain: dict[str, Any], scope: dict[str, Any]) -> dict[str, Any]:
    """:data:`RULES` and `plain` (a caller's kernels by short name) compiled by numba (cached,
    nogil), each resolving its callees, by their plain names, to the compiled ones; `scope` is
    the caller module's globals."""
    from numba import njit

    scope = dict(scope)
    compiled = {}
    for key, function in {**RULES, **plain}.items():
        clone = FunctionType(function.__code__, scope, function.__name__)
        compiled[key] = njit(cache=True, nogil=True)(clone)
        scope[function.__name__] = compiled[key]
    return compiled


def _hands(counts: tuple[int, ...], size: int) -> list[tuple[int, int, int]]:
    return [(a, b, size - a - b) for a in range(min(size, counts[0]) + 1)
            for b in range(min(size - a, counts[1]) + 1) if size - a - b <= counts[2]]


def deal_distribution(game: DeckDollar) -> dict[tuple[int, ...], Fraction]:
    """The deal's exact distribution: nine counts (monte's hand, the opponent's, the deck) to
    its probability (the multivariate hypergeometric law of two hands from the deck)."""
    counts, h = game.counts, game.hand_size
    out = {}
    for one in _hands(counts, h):
        rest = tuple(n - k for n, k in zip(counts, one, strict=True))
        p1 = Fraction(math.prod(math.comb(n, k) for n, k in zip(counts, one, strict=True)),
                      math.comb(sum(counts), h))
        for two in _hands(rest, h):
            p2 = Fraction(math.prod(math.comb(n, k) for n, k in zip(rest, two, strict=True)),
                          math.comb(sum(rest), h))
            deck = tuple(n - k for n, k in zip(rest, two, strict=True))
            out[one + two + deck] = p1 * p2
    return out



def start_states(game: DeckDollar) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(base, tsi, the deal's sorted keys, their probabilities)."""
    base = np.array([n + 1 for n in game.counts] * 3, dtype=np.int64)
    if math.prod(int(b) for b in base) >= 1 << 62:
        raise SolverError(f"deck counts {game.counts} are too large to key a state in 63 bits")
    deal = deal_distribution(game)
    keys = np.array([encode_plain(np.array(c), base) for c in deal], dtype=np.int64)
    order = np.argsort(keys)
    probs = np.array([float(p) for p in deal.values()])[order]
    return base, np.asarray(TRUE_STATE_INDEX, dtype=np.int64), keys[order], probs


class MemoryBudget:
    """The bytes of the arrays alive, their peak, and the refusal (SolverError, one line, ending
    with `hint`) past `limit`."""

    def __init__(self, limit: int, hint: str = "passing=False or a smaller deck") -> None:
        self.limit, self.alive, self.peak, self.hint = limit, 0, 0, hint

    def take(self, nbytes: int, r: int, what: str) -> None:
        if self.alive + nbytes > self.limit:
            raise SolverError(
                f"round {r + 1} needs {nbytes / 2**20:,.0f} MiB more for {what} beside "
                f"{self.alive / 2**20:,.0f} MiB, over the memory limit of "
                f"{self.limit / 2**30:.1f} GiB (try {self.hint})")
        self.alive += nbytes
        self.peak = max(self.peak, self.alive)

    def give(self, *arrays: np.ndarray) -> None:
        self.alive -= sum(a.nbytes for a in arrays)


def hashed_next_states(fill: Any, n: int, r: int, budget: MemoryBudget,
                       rehash: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The next round's hash table (keys, -1 where empty; the low and high column of each
    state's window) filled by ``fill(at, count, table, lo, hi) -> (at, count)`` from round
    `r`'s `n` states: it stops early when the table is half full, and the table is doubled
    (`rehash`) and filled on until every state is in; each array counted in `budget`."""
    size = 1 << max(10, int(4 * n - 1).bit_length())
    budget.take(16 * size, r, "the next states' hash table")
    table, lo, hi = np.full(size, -1, np.int64), np.empty(size, np.int32), np.empty(size, np.int32)
    at, count = 0, 0
    while True:
        at, count = fill(at, count, table, lo, hi)
        if at == n:
            return table, lo, hi
        budget.take(32 * size, r, "the next states' hash table, grown")
        bigger = (np.full(2 * size, -1, np.int64), np.empty(2 * size, np.int32),
                  np.empty(2 * size, np.int32))
        rehash(table, lo, hi, *bigger)
        budget.give(table, lo, hi)
        (table, lo, hi), size = bigger, 2 * size


def check_rows(count: int, width: int, limit: int, r: int, alive: int = 0,
               hint: str = "passing=False or a smaller deck") -> None:
    """Refuses (SolverError, one line ending with `hint`) `count` x `width` more 8-byte values
    beside `alive` bytes over `limit`."""
    if alive + count * width * 8 > limit:
        raise SolverError(
            f"round {r + 1} needs {count:,} x {width} more 8-byte values, over the memory limit "
            f"of {limit / 2**30:.1f} GiB ({hint})")


def dense_forward(game: Any, keys: np.ndarray, probs: np.ndarray, successors: Any, push: Any,
                  args: tuple[Any, ...], memory_limit: int,
                  hint: str) -> tuple[np.ndarray, tuple[int, ...]]:
    """The forward computation with every state a dense row of d: from round 0's sorted `keys`
    and their probabilities, each round's next keys (``successors(keys, r, *args, out, fill)``
    counted, then written, then made unique) and probabilities
    (``push(keys, probs, r, *args, swing, nkeys, nprobs, last)``); the final distribution of d
    and the states per round. Sizes checked first (:func:`check_rows`)."""
    probs = probs.reshape(-1, 1)
    states = []
    for r in range(game.rounds):
        states.append(int(keys.shape[0]))
        last = r == game.rounds - 1
        if last:
            nkeys = np.zeros(1, dtype=np.int64)
        else:
            count = successors(keys, r, *args, np.empty(0, np.int64), False)
            check_rows(count, 2, memory_limit, r, keys.nbytes + probs.nbytes, hint)
            out = np.empty(count, dtype=np.int64)
            successors(keys, r, *args, out, True)
            nkeys = np.unique(out)
            del out
        width = probs.shape[1] + 2 * game.swing
        check_rows(nkeys.shape[0], width, memory_limit, r,
                   keys.nbytes + probs.nbytes + nkeys.nbytes, hint)
        nprobs = np.zeros((nkeys.shape[0], width))
        push(keys, probs, r, *args, game.swing, nkeys, nprobs, last)
        keys, probs = nkeys, nprobs
    return probs[0], tuple(states)
