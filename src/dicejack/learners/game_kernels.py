"""The compiled twins of the self-play loops of :mod:`dicejack.learners.game_learners` (numba):
the same draws from the same PCG64 stream (:func:`dicejack.learners.pcg.next_double`, run
through :func:`~dicejack.learners.pcg.stepping`), the same arithmetic in the same order, so
that tests hold them to the plain loops table for table."""

from __future__ import annotations

import numpy as np
from numba import njit

from dicejack.learners.pcg import next_double

__all__ = ["q_game_self_play", "mc_es_self_play"]


@njit(cache=True, inline="always")
def _outcome(indptr, cum, succ, row, u):
    i = indptr[row]
    while u >= cum[i]:
        i += 1
    return succ[i]


@njit(cache=True, inline="always")
def _greedy(q, lo, hi, sign):
    best = lo
    top = sign * q[lo]
    for r in range(lo + 1, hi):
        v = sign * q[r]
        if v > top:
            best = r
            top = v
    return best


@njit(cache=True)
def q_game_self_play(q, n, visits, counters, row_start, indptr, succ, cum, sign, terminal,
                     payoff, eps0, eps_min, decay, alpha, cap, games, pcg):
    """Q-learning (alpha 0 = 1/n): GameQLearning's loop, compiled."""
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    for _ in range(games):
        eps = eps0 / (1.0 + counters[0] / decay)
        if eps < eps_min:
            eps = eps_min
        s = 0
        moves = 0
        while not terminal[s] and moves < cap:
            a, b = row_start[s], row_start[s + 1]
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            if u < eps:
                r = a + min(int(u / eps * (b - a)), b - a - 1)
            else:
                r = _greedy(q, a, b, sign[s])
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            nxt = _outcome(indptr, cum, succ, r, u)
            if terminal[nxt]:
                target = payoff[nxt]
            else:
                target = q[_greedy(q, row_start[nxt], row_start[nxt + 1], sign[nxt])]
            n[r] += 1
            step = 1.0 / n[r] if alpha == 0.0 else alpha
            q[r] += step * (target - q[r])
            visits[s] += 1
            s = nxt
            moves += 1
        counters[0] += 1
        counters[1] += moves
    pcg[0] = hi
    pcg[1] = lo


@njit(cache=True)
def mc_es_self_play(q, n, visits, counters, row_start, indptr, succ, cum, sign, terminal,
                    payoff, row_state, pairs, cap, games, pcg):
    """Monte Carlo with exploring starts: GameMCExploringStarts's loop, compiled."""
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    stamp = np.zeros(len(q), dtype=np.int64)
    order = np.empty(len(q), dtype=np.int64)
    npairs = len(pairs)
    for g in range(1, games + 1):
        u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
        r = pairs[min(int(u * npairs), npairs - 1)]
        s = row_state[r]
        seen = 0
        moves = 0
        while True:
            if stamp[r] != g:
                stamp[r] = g
                order[seen] = r
                seen += 1
            visits[s] += 1
            moves += 1
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            s = _outcome(indptr, cum, succ, r, u)
            if terminal[s] or moves >= cap:
                break
            r = _greedy(q, row_start[s], row_start[s + 1], sign[s])
        if terminal[s]:
            value = payoff[s]
            for i in range(seen):
                pair = order[i]
                n[pair] += 1
                q[pair] += (value - q[pair]) / n[pair]
        counters[0] += 1
        counters[1] += moves
    pcg[0] = hi
    pcg[1] = lo
