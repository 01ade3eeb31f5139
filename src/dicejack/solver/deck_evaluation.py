"""The exact value of an observation-based policy of the deck divide-the-dollar game
(:mod:`dicejack.games.deck_dollar`) against the uniformly random opponent: a forward
computation over every reachable state, not a simulation.

A state at the start of a round is monte's hand, the opponent's hand and the deck's
composition (nine counts: the cards left in the deck are in a uniformly random order whatever
happened, so the composition is all that matters), with a distribution over the difference of
totals ``d`` (monte's minus the opponent's, in quarters). Round ``r``'s states are the sorted
array of their integer keys (the nine counts in mixed radix, ``counts[t] + 1`` per digit) and a
``(states, 2 * swing * r + 1)`` float64 array of probabilities, column ``d + swing * r``
(``swing``: the most a round moves ``d``; 2, or 3 when a follower may pass). A round: the two
cards played (the policy's action probabilities at monte's observation, 1/3 for each of the
opponent's actions; :func:`_plays_plain` aggregates them into at most 16 pairs of card types),
``d`` shifted by the pair's score, then monte's and the opponent's draws from the deck's
composition (at most 9 pairs). The next round's keys are found first (:func:`_successors_plain`,
then ``numpy.unique``), then the probabilities pushed (:func:`_push_plain`, each next state found
by binary search); the last round collapses every state into one distribution of the final
``d``, whose sign is the reward. The deal is the multivariate hypergeometric distribution of
the two hands (exact, in Fractions, then rounded once).

:func:`full_information_bound` is an upper bound on every policy: backward induction over the
same states (reached by every action) for a player who sees both hands and the deck.

Measured (benchmarks/bench_deck_evaluation.py, 2 shared cores): the study's deck under the
intent (``passing=False``) has about a million states over its 26 rounds (79,297 in the largest)
and takes 1.4 to 4.3 s per policy, arrays peaking near 70 MB. Under the code's passing follower
hands grow and the states reach millions per round (8.2 million by round 17; 10.0 million over
all rounds already at a 45-card deck): the dense d columns would take about 10 GB per round, so
:data:`MEMORY_LIMIT` refuses it; only about 1 column in 6 is nonzero (a per-state window of d
is the way to fit it, not done here).

Each kernel is a plain Python function (the reference, run by the tests on small decks)
compiled by numba without a change (:func:`_kernel`: compiled callees under the plain names,
as :mod:`dicejack.solver.generic_sweeps` does); tests hold the two equal, and equal to a brute
force over the whole game tree (tests/solver/test_deck_evaluation.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import TRUE_STATE_INDEX, DeckDollar, policy_table, uniform_policy
from dicejack.solver.solution import SolverError

__all__ = ["DeckEvaluation", "evaluate_deck_policy", "deal_distribution", "MEMORY_LIMIT",
           "full_information_bound"]


def _nth_plain(c, off, k):
    """The card type at sorted index k of the hand whose counts are c[off:off + 3]."""
    if k < c[off]:
        return 0
    if k < c[off] + c[off + 1]:
        return 1
    return 2


def _low_plain(c, off):
    return 0 if c[off] > 0 else (1 if c[off + 1] > 0 else 2)


def _high_plain(c, off):
    return 2 if c[off + 2] > 0 else (1 if c[off + 1] > 0 else 0)


def _card_plain(c, off, showing, action, half, passing):
    """The card type the hand c[off:off + 3] plays (the code's play_action on counts), -1 for
    a pass."""
    if action == 1:
        return _nth_plain(c, off, half)
    if showing == 3:
        return _low_plain(c, off) if action == 0 else _high_plain(c, off)
    if action == 0:
        for t in range(3):
            if c[off + t] > 0 and t + showing > 2:
                return t
        return _high_plain(c, off)
    for t in range(2, -1, -1):
        if c[off + t] > 0 and t + showing <= 2:
            return t
    return -1 if passing else _low_plain(c, off)


def _observe_plain(c, showing, half, tsi):
    return tsi[showing * 27 + _low_plain(c, 0) * 9 + _nth_plain(c, 0, half) * 3 + _high_plain(c, 0)]


def _plays_plain(c, lead_monte, policy, half, passing, tsi, table):
    """table[i, j] = P(monte plays type i, the opponent type j) this round (3: a pass)."""
    table[:, :] = 0.0
    if lead_monte:
        o = _observe_plain(c, 3, half, tsi)
        for a in range(3):
            if policy[o, a] > 0.0:
                c1 = _card_plain(c, 0, 3, a, half, passing)
                for b in range(3):
                    c2 = _card_plain(c, 3, c1, b, half, passing)
                    table[c1, 3 if c2 < 0 else c2] += policy[o, a] / 3.0
    else:
        for b in range(3):
            c2 = _card_plain(c, 3, 3, b, half, passing)
            o = _observe_plain(c, c2, half, tsi)
            for a in range(3):
                if policy[o, a] > 0.0:
                    c1 = _card_plain(c, 0, c2, a, half, passing)
                    table[3 if c1 < 0 else c1, c2] += policy[o, a] / 3.0


def _encode_plain(c, base):
    key = 0
    for k in range(9):
        key = key * base[k] + c[k]
    return key


def _decode_plain(key, base, c):
    for k in range(8, -1, -1):
        c[k] = key % base[k]
        key //= base[k]


def _draws_plain(c, after, probs):
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


def _score_plain(i, j):
    """d's change when monte plays type i and the opponent type j (3: a pass)."""
    v1 = i + 1 if i < 3 else 0
    v2 = j + 1 if j < 3 else 0
    return v1 - v2 if v1 + v2 <= 4 else 0


def _successors_plain(keys, r, policy, half, passing, tsi, base, out, fill):
    """The keys of round r + 1's states (duplicates kept) written to out when `fill`; returns
    how many there are."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    table = np.zeros((4, 4))
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    m = 0
    for s in range(keys.shape[0]):
        _decode_plain(keys[s], base, c)
        _plays_plain(c, r % 2 == 0, policy, half, passing, tsi, table)
        for i in range(4):
            for j in range(4):
                if table[i, j] > 0.0:
                    mid[:] = c
                    if i < 3:
                        mid[i] -= 1
                    if j < 3:
                        mid[3 + j] -= 1
                    for k in range(_draws_plain(mid, after, dprobs)):
                        if fill:
                            out[m] = _encode_plain(after[k], base)
                        m += 1
    return m


def _push_plain(keys, probs, r, policy, half, passing, tsi, base, swing, nkeys, nprobs, last):
    """Round r's probabilities pushed into round r + 1's (nkeys, nprobs); the `last` round
    collapses into nprobs[0] (the final distribution of d)."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    table = np.zeros((4, 4))
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    width = probs.shape[1]
    for s in range(keys.shape[0]):
        _decode_plain(keys[s], base, c)
        _plays_plain(c, r % 2 == 0, policy, half, passing, tsi, table)
        for i in range(4):
            for j in range(4):
                p = table[i, j]
                if p == 0.0:
                    continue
                shift = _score_plain(i, j) + swing
                if last:
                    for w in range(width):
                        nprobs[0, w + shift] += p * probs[s, w]
                    continue
                mid[:] = c
                if i < 3:
                    mid[i] -= 1
                if j < 3:
                    mid[3 + j] -= 1
                for k in range(_draws_plain(mid, after, dprobs)):
                    t = np.searchsorted(nkeys, _encode_plain(after[k], base))
                    q = p * dprobs[k]
                    for w in range(width):
                        nprobs[t, w + shift] += q * probs[s, w]


def _pair_plain(c, lead_monte, a, b, half, passing):
    """The two card types (monte's, the opponent's; -1 a pass) when monte takes action a and
    the opponent action b."""
    if lead_monte:
        c1 = _card_plain(c, 0, 3, a, half, passing)
        return c1, _card_plain(c, 3, c1, b, half, passing)
    c2 = _card_plain(c, 3, 3, b, half, passing)
    return _card_plain(c, 0, c2, a, half, passing), c2


def _after_plain(c, a, b, lead_monte, r, half, passing, base, swing, nkeys, nvalues, last, acc,
                 mid, after, dprobs):
    """acc[w] = the expected next value (round r + 1's `nvalues`, or the reward sign(d) after
    the `last` round) of monte's action a and the opponent's b, at column w of round r (mid,
    after, dprobs: work space)."""
    mid[:] = c
    c1, c2 = _pair_plain(c, lead_monte, a, b, half, passing)
    shift = _score_plain(3 if c1 < 0 else c1, 3 if c2 < 0 else c2) + swing
    acc[:] = 0.0
    if last:
        for w in range(acc.shape[0]):
            d = w + shift - swing * (r + 1)
            acc[w] = 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
        return
    if c1 >= 0:
        mid[c1] -= 1
    if c2 >= 0:
        mid[3 + c2] -= 1
    for k in range(_draws_plain(mid, after, dprobs)):
        t = np.searchsorted(nkeys, _encode_plain(after[k], base))
        for w in range(acc.shape[0]):
            acc[w] += dprobs[k] * nvalues[t, w + shift]


def _backup_plain(keys, values, r, half, passing, base, swing, nkeys, nvalues, last):
    """Round r's full-information values (module docstring) from round r + 1's: monte leading
    picks its card before the opponent's answer (max of the mean), monte following after
    seeing the opponent's card (mean of the max)."""
    c = np.empty(9, dtype=np.int64)
    mid = np.empty(9, dtype=np.int64)
    after = np.empty((9, 9), dtype=np.int64)
    dprobs = np.empty(9)
    width = values.shape[1]
    acc = np.empty(width)
    best = np.empty(width)
    lead_monte = r % 2 == 0
    for s in range(keys.shape[0]):
        _decode_plain(keys[s], base, c)
        values[s, :] = -np.inf if lead_monte else 0.0
        for outer in range(3):
            best[:] = 0.0 if lead_monte else -np.inf
            for inner in range(3):
                a, b = (outer, inner) if lead_monte else (inner, outer)
                _after_plain(c, a, b, lead_monte, r, half, passing, base, swing, nkeys, nvalues,
                             last, acc, mid, after, dprobs)
                for w in range(width):
                    if lead_monte:
                        best[w] += acc[w] / 3.0
                    elif acc[w] > best[w]:
                        best[w] = acc[w]
            for w in range(width):
                if lead_monte:
                    values[s, w] = max(values[s, w], best[w])
                else:
                    values[s, w] += best[w] / 3.0


_KERNELS: dict[str, Any] = {}
_PLAIN = {"nth": _nth_plain, "low": _low_plain, "high": _high_plain, "card": _card_plain,
          "observe": _observe_plain, "plays": _plays_plain, "encode": _encode_plain,
          "decode": _decode_plain, "draws": _draws_plain, "score": _score_plain,
          "successors": _successors_plain, "push": _push_plain, "pair": _pair_plain,
          "after": _after_plain, "backup": _backup_plain}


def _kernel(name: str, compiled: bool) -> Any:
    """The kernel `name` (successors, push, backup): compiled (numba, cached; each callee compiled
    under its plain name) or the plain reference."""
    if not compiled:
        return _PLAIN[name]
    if not _KERNELS:
        from types import FunctionType

        from numba import njit

        scope = dict(globals())
        for key, plain in _PLAIN.items():
            clone = FunctionType(plain.__code__, scope, plain.__name__)
            _KERNELS[key] = njit(cache=True, nogil=True)(clone)
            scope[plain.__name__] = _KERNELS[key]
    return _KERNELS[name]


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


@dataclass(frozen=True)
class DeckEvaluation:
    """A policy's exact result against the uniform opponent: expected reward, P(win), P(draw),
    P(loss); the final distribution of d (``final[k]`` is d = k - swing * rounds, quarters);
    the reachable states per round (hands and deck, d aside) and their total."""

    expected: float
    win: float
    draw: float
    loss: float
    final: np.ndarray
    states: tuple[int, ...]

    @property
    def total_states(self) -> int:
        return sum(self.states)


#: The most bytes the arrays alive at once (a round's keys and values, the next round's, the
#: successor keys with duplicates and their sorted copy) may take before
#: :func:`evaluate_deck_policy` and :func:`full_information_bound` refuse (SolverError).
MEMORY_LIMIT = 2 << 30


def _check_size(count: int, width: int, limit: int, r: int, alive: int = 0) -> None:
    """Refuses `count` x `width` more 8-byte values beside `alive` bytes over `limit`."""
    if alive + count * width * 8 > limit:
        raise SolverError(
            f"round {r + 1} needs {count:,} x {width} more 8-byte values, over the memory limit "
            f"of {limit / 2**30:.1f} GiB (a passing follower grows the state space: try "
            f"passing=False or a smaller deck)")


def evaluate_deck_policy(game: DeckDollar, policy: Any, compiled: bool = True,
                         memory_limit: int = MEMORY_LIMIT) -> DeckEvaluation:
    """The exact value of `policy` (monte's seat; :func:`~dicejack.games.deck_dollar.policy_table`)
    in `game` against the uniformly random opponent (module docstring). Raises SolverError
    before a round's arrays would take more than `memory_limit` bytes: the study's deck fits
    (about 0.3 GB) with ``passing=False``; with the code's passing follower it has millions of
    states per round and does not."""
    table = policy_table(policy)
    base, tsi, keys, probs = _start(game)
    probs = probs.reshape(-1, 1)
    args = (game.half, game.passing, tsi, base)
    successors, push = _kernel("successors", compiled), _kernel("push", compiled)
    states = []
    for r in range(game.rounds):
        states.append(int(keys.shape[0]))
        last = r == game.rounds - 1
        if last:
            nkeys = np.zeros(1, dtype=np.int64)
        else:
            count = successors(keys, r, table, *args, np.empty(0, np.int64), False)
            _check_size(count, 2, memory_limit, r, keys.nbytes + probs.nbytes)  # and unique's
            out = np.empty(count, dtype=np.int64)
            successors(keys, r, table, *args, out, True)
            nkeys = np.unique(out)
            del out
        _check_size(nkeys.shape[0], probs.shape[1] + 2 * game.swing, memory_limit, r,
                    keys.nbytes + probs.nbytes + nkeys.nbytes)
        nprobs = np.zeros((nkeys.shape[0], probs.shape[1] + 2 * game.swing))
        push(keys, probs, r, table, *args, game.swing, nkeys, nprobs, last)
        keys, probs = nkeys, nprobs
    final = probs[0]
    mid = game.swing * game.rounds
    win, draw, loss = float(final[mid + 1:].sum()), float(final[mid]), float(final[:mid].sum())
    return DeckEvaluation(win - loss, win, draw, loss, final, tuple(states))


def _start(game: DeckDollar) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(base, tsi, the deal's sorted keys, their probabilities)."""
    base = np.array([n + 1 for n in game.counts] * 3, dtype=np.int64)
    if math.prod(int(b) for b in base) >= 1 << 62:
        raise SolverError(f"deck counts {game.counts} are too large to key a state in 63 bits")
    deal = deal_distribution(game)
    keys = np.array([_encode_plain(np.array(c), base) for c in deal], dtype=np.int64)
    order = np.argsort(keys)
    probs = np.array([float(p) for p in deal.values()])[order]
    return base, np.asarray(TRUE_STATE_INDEX, dtype=np.int64), keys[order], probs


def full_information_bound(game: DeckDollar, compiled: bool = True,
                           memory_limit: int = MEMORY_LIMIT) -> float:
    """An upper bound on every policy's expected reward against the uniform opponent: the
    best of a player who sees everything (both hands, the deck's composition, the totals) and
    picks any action (its card after the opponent's when following), by backward induction
    over the states every action reaches (those of the uniform policy). Looser than the best
    player who sees only what it may (its hand and the cards played): that one is not computed."""
    base, tsi, keys, probs = _start(game)
    args = (game.half, game.passing, tsi, base)
    successors = _kernel("successors", compiled)
    rounds = [keys]
    for r in range(game.rounds - 1):
        count = successors(rounds[-1], r, uniform_policy(), *args, np.empty(0, np.int64), False)
        _check_size(count, 2, memory_limit, r, sum(k.nbytes for k in rounds))
        out = np.empty(count, dtype=np.int64)
        successors(rounds[-1], r, uniform_policy(), *args, out, True)
        rounds.append(np.unique(out))
    backup = _kernel("backup", compiled)
    nkeys, nvalues = np.zeros(1, dtype=np.int64), np.zeros((1, 1))
    for r in range(game.rounds - 1, -1, -1):
        width = 2 * game.swing * r + 1
        _check_size(rounds[r].shape[0], width, memory_limit, r,
                    sum(k.nbytes for k in rounds) + nvalues.nbytes)
        values = np.empty((rounds[r].shape[0], width))
        backup(rounds[r], values, r, game.half, game.passing, base, game.swing, nkeys, nvalues,
               r == game.rounds - 1)
        nkeys, nvalues = rounds[r], values
    return float(probs @ nvalues[:, 0])
