"""The compiled twins of the self-play loops of :mod:`dicejack.learners.game_learners` (numba):
the same draws from the same PCG64 stream (:func:`dicejack.learners.pcg.next_double`, run
through :func:`~dicejack.learners.pcg.stepping`), the same arithmetic in the same order, so
that tests hold them to the plain loops table for table."""

from __future__ import annotations

import numpy as np
from numba import njit

from dicejack.learners.pcg import next_double

__all__ = ["q_game_self_play", "mc_es_self_play", "counting_self_play"]


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


@njit(cache=True, inline="always", error_model="numpy")
def _counting_choice(n, lose, lo, hi, m, x):
    """The row that uniform x picks among lo..hi-1 by the handout's rule, as
    :func:`dicejack.learners.formulas.estimates` and :func:`~dicejack.learners.formulas.
    move_probabilities` compute it (f_J = W / (W + L), 0.5 untried; B the lowest best; the same
    float operations in the same order, row lo + J - 1 being J), then the handout's sampler
    (running sum of p_1.., the first J with x below it, else K). Inlined into the move loop:
    numba's call of a separate function passes each array as seven words on the stack and checks
    a status on return, a tenth of a move's time."""
    k = hi - lo
    if k == 1:
        return lo
    total = 0
    best = lo
    fbest = -1.0
    for r in range(lo, hi):
        d = n[r] + lose[r]
        total += d
        f = float(n[r]) / float(d) if d > 0 else 0.5
        if f > fbest:
            fbest = f
            best = r
    tt = float(total)
    tfb = tt * fbest
    den_b = tfb + k * m
    u = 0.0
    if den_b == 0.0:
        for r in range(lo, hi - 1):
            u += 1.0 / k
            if x < u:
                return r
        return hi - 1
    pb = (tfb + m) / den_b
    g = 0.0
    for r in range(lo, hi):
        if r != best:
            d = n[r] + lose[r]
            g += float(n[r]) / float(d) if d > 0 else 0.5
    den = g * tt + (k - 1) * m
    q = (1.0 - pb) / den if den != 0.0 else 0.0
    for r in range(lo, hi - 1):
        if r == best:
            u += pb
        else:
            d = n[r] + lose[r]
            f = float(n[r]) / float(d) if d > 0 else 0.5
            u += q * (tt * f + m)
        if x < u:
            return r
    return hi - 1


@njit(cache=True, error_model="numpy")
def counting_self_play(n, lose, visits, counters, row_start, indptr, succ, cum, terminal,
                       payoff, player, m, cap, games, pcg):
    """The handout's counting learner on a protocol game: GameCounting's loop, compiled. The
    moves of a game are kept (row, mover) and counted when it ends at a terminal state (a game
    cut at `cap` moves counts nothing). The move loop stops when the move buffers are full and
    they grow (doubled) outside it: with an array reassigned inside the move loop, numba keeps it
    in memory and counts references to the arrays there, which gave the inlined choice several
    atomic reference-count calls (NRT_incref/NRT_decref) a move (benchmarks/bench_game_learners.py:
    dicejack/C 0.66x; out of line, 0.84-0.88x)."""
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    made = np.empty(64, dtype=np.int64)
    movers = np.empty(64, dtype=np.int64)
    for _ in range(games):
        s = 0
        moves = 0
        while True:
            room = min(len(made), cap)
            while not terminal[s] and moves < room:
                x, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
                r = _counting_choice(n, lose, row_start[s], row_start[s + 1], m, x)
                made[moves] = r
                movers[moves] = player[s]
                visits[s] += 1
                x, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
                s = _outcome(indptr, cum, succ, r, x)
                moves += 1
            if terminal[s] or moves >= cap:
                break
            made = _doubled(made, moves)
            movers = _doubled(movers, moves)
        if terminal[s]:
            winner = 0 if payoff[s] == 1.0 else 1
            for i in range(moves):
                if movers[i] == winner:
                    n[made[i]] += 1
                else:
                    lose[made[i]] += 1
        counters[0] += 1
        counters[1] += moves
    pcg[0] = hi
    pcg[1] = lo


@njit(cache=True)
def _doubled(buffer, used):
    """A buffer twice as long holding the first `used` entries of `buffer`."""
    more = np.empty(2 * len(buffer), dtype=buffer.dtype)
    more[:used] = buffer[:used]
    return more
