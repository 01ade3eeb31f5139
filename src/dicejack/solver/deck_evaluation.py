"""The exact value of an observation-based policy of the deck divide-the-dollar game
(:mod:`dicejack.games.deck_dollar`) against the uniformly random opponent: a forward
computation over every reachable state, not a simulation.

A state at the start of a round is monte's hand, the opponent's hand and the deck's
composition (nine counts: the cards left in the deck are in a uniformly random order whatever
happened, so the composition is all that matters), with a distribution over the difference of
totals ``d`` (monte's minus the opponent's, in quarters). Round ``r``'s states are the sorted
array of their integer keys (the nine counts in mixed radix, ``counts[t] + 1`` per digit,
:mod:`dicejack.solver.deck_rules`) and their probabilities by column ``d + swing * r``
(``swing``: the most a round moves ``d``; 2, or 3 when a follower may pass). A round: the two
cards played (the policy's action probabilities at monte's observation, 1/3 for each of the
opponent's actions; :func:`~dicejack.solver.deck_rules.plays_plain` aggregates them into at most
16 pairs of card types), ``d`` shifted by the pair's score, then monte's and the opponent's
draws from the deck's composition (at most 9 pairs); the last round collapses every state into
one distribution of the final ``d``, whose sign is the reward. The deal is the multivariate
hypergeometric distribution of the two hands (exact, in Fractions, then rounded once).

Two layouts of the probabilities, bit-identical in their results: by default (``lean=True``,
:mod:`dicejack.solver.deck_lean`) each state keeps only its window of reachable ``d`` in one flat
pool and the next states are merged in a hash table inside the kernel; ``lean=False`` keeps a
dense ``(states, 2 * swing * r + 1)`` array, the next round's keys found first
(:func:`_successors_plain`, duplicates kept, then ``numpy.unique``) and the probabilities then
pushed (:func:`_push_plain`, each next state found by binary search).

:func:`full_information_bound` is an upper bound on every policy: backward induction over the
same states (reached by every action) for a player who sees both hands, the deck's composition
(not its order) and the totals (its docstring says why no observation-based or history-based
player can beat it); lean by default (:mod:`dicejack.solver.deck_bound`), dense rows on
request, bit-identical.

Measured (benchmarks/bench_deck_evaluation.py, 2 cores shared with other jobs): the study's
deck under the intent (``passing=False``) has about a million states over its 26 rounds (79,297
in the largest) and takes 1.3 to 4.3 s per policy, the lean arrays peaking near 35 MB (the
dense ones near 70 MB). Under the code's passing follower hands grow: 86.3 million states over
the 26 rounds for the uniform policy, 8.58 million in the largest round; the dense rows would
take about 10 GB a round, the lean windows fit in about 4 GB: 21 CPU-s (always smallest), 15
(median), 220 (largest), 613 (uniform) per policy, peak RSS 0.3-4.2 GB, each exact value inside
its 10^6-game simulation's 95% interval (``bench_deck_evaluation.py --passing --no-bound
--only K``). The full-information bound there (lean, :mod:`~.deck_bound`): 0.888982726211 in
546 to 629 CPU-s, peak RSS 3.9 GiB with ``spill=True`` (4.4 without; 0.834408011960 under
the intent, 2.9 CPU-s, the dense rows 7.3).

Each kernel is a plain Python function (the reference, run by the tests on small decks)
compiled by numba without a change (:func:`_kernel`: compiled callees under the plain names,
as :mod:`dicejack.solver.generic_sweeps` does); tests hold the two equal, and equal to a brute
force over the whole game tree (tests/solver/test_deck_evaluation.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import DeckDollar, policy_table, uniform_policy
from dicejack.solver.deck_bound import lean_bound
from dicejack.solver.deck_lean import lean_final
from dicejack.solver.deck_rules import (
    check_rows,
    compile_kernels,
    deal_distribution,
    decode_plain,
    dense_forward,
    draws_plain,
    encode_plain,
    pair_plain,
    plays_plain,
    score_plain,
    start_states,
)

__all__ = ["DeckEvaluation", "evaluate_deck_policy", "deal_distribution", "MEMORY_LIMIT",
           "full_information_bound"]


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
        decode_plain(keys[s], base, c)
        plays_plain(c, r % 2 == 0, policy, half, passing, tsi, table)
        for i in range(4):
            for j in range(4):
                if table[i, j] > 0.0:
                    mid[:] = c
                    if i < 3:
                        mid[i] -= 1
                    if j < 3:
                        mid[3 + j] -= 1
                    for k in range(draws_plain(mid, after, dprobs)):
                        if fill:
                            out[m] = encode_plain(after[k], base)
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
        decode_plain(keys[s], base, c)
        plays_plain(c, r % 2 == 0, policy, half, passing, tsi, table)
        for i in range(4):
            for j in range(4):
                p = table[i, j]
                if p == 0.0:
                    continue
                shift = score_plain(i, j) + swing
                if last:
                    for w in range(width):
                        nprobs[0, w + shift] += p * probs[s, w]
                    continue
                mid[:] = c
                if i < 3:
                    mid[i] -= 1
                if j < 3:
                    mid[3 + j] -= 1
                for k in range(draws_plain(mid, after, dprobs)):
                    t = np.searchsorted(nkeys, encode_plain(after[k], base))
                    q = p * dprobs[k]
                    for w in range(width):
                        nprobs[t, w + shift] += q * probs[s, w]


def _after_plain(c, a, b, lead_monte, r, half, passing, base, swing, nkeys, nvalues, last, acc,
                 mid, after, dprobs):
    """acc[w] = the expected next value (round r + 1's `nvalues`, or the reward sign(d) after
    the `last` round) of monte's action a and the opponent's b, at column w of round r (mid,
    after, dprobs: work space)."""
    mid[:] = c
    c1, c2 = pair_plain(c, lead_monte, a, b, half, passing)
    shift = score_plain(3 if c1 < 0 else c1, 3 if c2 < 0 else c2) + swing
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
    for k in range(draws_plain(mid, after, dprobs)):
        t = np.searchsorted(nkeys, encode_plain(after[k], base))
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
        decode_plain(keys[s], base, c)
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
_PLAIN = {"successors": _successors_plain, "push": _push_plain, "after": _after_plain,
          "backup": _backup_plain}


def _kernel(name: str, compiled: bool) -> Any:
    """The kernel `name` (successors, push, backup): compiled (numba, cached; each callee compiled
    under its plain name, :func:`~dicejack.solver.deck_rules.compile_kernels`) or the plain
    reference."""
    if not compiled:
        return _PLAIN[name]
    if not _KERNELS:
        _KERNELS.update(compile_kernels(_PLAIN, globals()))
    return _KERNELS[name]


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
#: hash table or the successor keys with duplicates and their sorted copy) may take before
#: :func:`evaluate_deck_policy` and :func:`full_information_bound` refuse (SolverError): 6 GiB,
#: room for the lean evaluation of the study's deck under the passing follower (about 4 GB).
MEMORY_LIMIT = 6 << 30


#: What to try when the dense rows would not fit.
_HINT = "a passing follower grows the state space: try passing=False or a smaller deck"


def _check_size(count: int, width: int, limit: int, r: int, alive: int = 0) -> None:
    """Refuses `count` x `width` more 8-byte values beside `alive` bytes over `limit`."""
    check_rows(count, width, limit, r, alive, _HINT)


def evaluate_deck_policy(game: DeckDollar, policy: Any, compiled: bool = True,
                         memory_limit: int = MEMORY_LIMIT, lean: bool = True) -> DeckEvaluation:
    """The exact value of `policy` (monte's seat; :func:`~dicejack.games.deck_dollar.policy_table`)
    in `game` against the uniformly random opponent (module docstring). `lean` (the default):
    each state keeps only its window of d and next states are merged in the kernel
    (:mod:`dicejack.solver.deck_lean`; bit-identical to the dense rows, `lean=False`). Raises
    SolverError before the arrays alive would take more than `memory_limit` bytes."""
    table = policy_table(policy)
    if lean:
        final, states, _ = lean_final(game, table, compiled, memory_limit)
    else:
        final, states = _dense_final(game, table, compiled, memory_limit)
    mid = game.swing * game.rounds
    win, draw, loss = float(final[mid + 1:].sum()), float(final[mid]), float(final[:mid].sum())
    return DeckEvaluation(win - loss, win, draw, loss, final, states)


def _dense_final(game: DeckDollar, table: np.ndarray, compiled: bool,
                 memory_limit: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """The final distribution of d and the states per round, every state a dense row."""
    base, tsi, keys, probs = start_states(game)
    return dense_forward(game, keys, probs, _kernel("successors", compiled),
                         _kernel("push", compiled), (table, game.half, game.passing, tsi, base),
                         memory_limit, _HINT)


def full_information_bound(game: DeckDollar, compiled: bool = True,
                           memory_limit: int = MEMORY_LIMIT, lean: bool = True,
                           spill: bool = False) -> float:
    """An upper bound on every policy's expected reward against the uniform opponent: the
    best expected reward of a player who sees monte's hand, the opponent's hand, the deck's
    composition (not its order) and the totals, and picks any action (leading: before the
    opponent's uniformly random answer; following: after seeing the opponent's card), by
    backward induction over the states every action reaches (those of the uniform policy).

    Why an upper bound: given that state, the deck left is in a uniformly random order and the
    opponent's next action is uniform whatever happened before, so the game is a Markov decision
    process in it; its optimum over Markov policies is its optimum over every policy that
    decides on anything that has happened (no player can do better by remembering). Every
    player that sees less -- an observation-based policy (its hand's smallest, median and
    largest card, the card showing), a finite-state machine reading the cards played, any
    policy on monte's own history -- is one of those. What it does not see is the future: the
    deck's order and the opponent's next choices stay chance. Looser than the best player
    who sees only what it may (its hand and the cards played): that one is not computed.

    `lean` (the default): each state keeps only its window of d, next states found in a hash
    table (:func:`dicejack.solver.deck_bound.lean_bound`; `spill`: earlier rounds' states in
    temporary files); bit-identical to the dense rows (`lean=False`). Raises SolverError
    before the arrays alive would pass `memory_limit` bytes."""
    if lean:
        return lean_bound(game, compiled, memory_limit, spill).value
    base, tsi, keys, probs = start_states(game)
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
