"""Numba-compiled self-play loops of the bundled learners (q-learning, mc-epsilon, ucb, thompson).

Each loop is the compiled twin of the reference in :mod:`dicejack.learners.reference` (whose
docstrings specify every rule): the same generator draws in the same order and the same float64
expressions in the same order, so both give identical tables. Every loop updates the arrays its
caller allocated, and bumps counters = [games, moves] after each whole game, so that tables,
counters and the generator are consistent whenever control is back in Python. q-learning,
mc-epsilon and ucb step numpy's PCG64 in place (`pcg`, the last argument: see
:mod:`dicejack.learners.pcg`; the caller runs them through :func:`~dicejack.learners.pcg.stepping`);
thompson draws normals and uniforms from the Generator itself (numba shares its state), as its
Gamma draws need numpy's normal sampler.

Shared arguments: cdf (K+1, K*S+1) with cdf[j, t] = P(total of j dice <= t), guide (K+1, G) a
start for the search of the first t with x < cdf[j, t] (:func:`dicejack.learners.base.roll_tables`),
low and high (LTarget, UTarget). The counting loops keep fcache (L, L, K+1) in step with the
counts: [x, y, 0] = T (moves made from <x, y>, as a float), [x, y, j] = the handout's f_j. Every
(L, L, ...) table is used through a flat view, a state's entries from its row
(:mod:`dicejack.learners.moves`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dicejack.learners.moves import counted_move, flat, move_buffers, roll, roll_table, row
from dicejack.learners.pcg import next_double

THIRD = 1.0 / 3.0


@njit(cache=True, inline="always")
def _epsilon(games, eps0, eps_min, decay):
    e = eps0 / (1.0 + games / decay)
    return eps_min if e < eps_min else e


@njit(cache=True, inline="always")
def _epsilon_greedy(values, at, k, eps, u):
    """J from one uniform u: with probability eps uniform over 1..K (u / eps spread over the
    K choices), else the lowest J with the largest values[at + J] (a state's row of a flat
    table)."""
    if u < eps:
        return 1 + min(int(u / eps * k), k - 1)
    jj = 1
    top = values[np.uint64(at + 1)]
    for j in range(2, k + 1):
        if values[np.uint64(at + j)] > top:
            top = values[np.uint64(at + j)]
            jj = j
    return jj


@njit(cache=True)
def mc_epsilon_self_play(
    win, lose, fcache, counters, cdf, guide, low, high, eps0, eps_min, decay, games, pcg
):
    """mc-epsilon: epsilon-greedy on the handout's f_J (lowest J on ties), the handout's counts."""
    k = win.shape[2] - 1
    w, ls, fc = flat(win), flat(lose), flat(fcache)
    table = roll_table(cdf, guide)
    rows, js = move_buffers(low)
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    for _ in range(games):
        eps = _epsilon(counters[0], eps0, eps_min, decay)
        a = 0
        b = 0
        n = 0
        while True:
            at = row(a, b, low, k + 1)
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            jj = _epsilon_greedy(fc, at, k, eps, u)
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            n, new, end = counted_move(w, ls, fc, table, rows, js, n, at, a, jj, u, low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
    pcg[0] = hi
    pcg[1] = lo


@njit(cache=True)
def ucb_self_play(win, lose, fcache, counters, cdf, guide, low, high, c, games, pcg):
    """ucb: the lowest untried J, else the largest f_J + c sqrt(log T / n_J); the handout's
    counts."""
    k = win.shape[2] - 1
    w, ls, fc = flat(win), flat(lose), flat(fcache)
    table = roll_table(cdf, guide)
    rows, js = move_buffers(low)
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            at = row(a, b, low, k + 1)
            jj = 0
            for j in range(1, k + 1):
                i = np.uint64(at + j)
                if w[i] + ls[i] == 0:
                    jj = j
                    break
            if jj == 0:
                lg = math.log(fc[np.uint64(at)])
                jj = 1
                i = np.uint64(at + 1)
                top = fc[i] + c * math.sqrt(lg / float(w[i] + ls[i]))
                for j in range(2, k + 1):
                    i = np.uint64(at + j)
                    v = fc[i] + c * math.sqrt(lg / float(w[i] + ls[i]))
                    if v > top:
                        top = v
                        jj = j
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            n, new, end = counted_move(w, ls, fc, table, rows, js, n, at, a, jj, u, low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
    pcg[0] = hi
    pcg[1] = lo


@njit(cache=True, inline="always")
def _gamma(rng, d, c):
    """Marsaglia and Tsang's Gamma(d + 1/3) draw, as reference.gamma_draw."""
    while True:
        x = rng.standard_normal()
        v = 1.0 + c * x
        while v <= 0.0:
            x = rng.standard_normal()
            v = 1.0 + c * x
        v = v * v * v
        u = rng.random()
        xx = x * x
        if u < 1.0 - 0.0331 * xx * xx:
            return d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return d * v


@njit(cache=True)
def thompson_self_play(win, lose, fcache, gcache, counters, cdf, guide, low, high, games, rng):
    """thompson: the lowest J with the largest Beta(1 + win_J, 1 + lose_J) draw; the handout's
    counts. gcache (L, L, K+1, 4) holds Marsaglia-Tsang's (d, c) for 1 + win and for 1 + lose
    of every (x, y, j), kept in step with the counts."""
    k = win.shape[2] - 1
    w, ls, fc, gc = flat(win), flat(lose), flat(fcache), flat(gcache)
    table = roll_table(cdf, guide)
    rows, js = move_buffers(low)
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            at = row(a, b, low, k + 1)
            jj = 1
            if k > 1:
                top = -1.0
                for j in range(1, k + 1):
                    g = 4 * (at + j)
                    gw = _gamma(rng, gc[np.uint64(g)], gc[np.uint64(g + 1)])
                    gl = _gamma(rng, gc[np.uint64(g + 2)], gc[np.uint64(g + 3)])
                    v = gw / (gw + gl)
                    if v > top:
                        top = v
                        jj = j
            n, new, end = counted_move(w, ls, fc, table, rows, js, n, at, a, jj, rng.random(),
                                       low, high)
            if end:
                mover_won = end == 1
                for i in range(n):  # the constants of the one count each move changed
                    cell = rows[i] + js[i]
                    g = 4 * cell
                    if (((n - 1 - i) & 1) == 0) == mover_won:
                        d = (1.0 + w[np.uint64(cell)]) - THIRD
                        gc[np.uint64(g)] = d
                        gc[np.uint64(g + 1)] = 1.0 / math.sqrt(9.0 * d)
                    else:
                        d = (1.0 + ls[np.uint64(cell)]) - THIRD
                        gc[np.uint64(g + 2)] = d
                        gc[np.uint64(g + 3)] = 1.0 / math.sqrt(9.0 * d)
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n


@njit(cache=True)
def q_self_play(
    q, visits, counters, cdf, guide, low, high, eps0, eps_min, decay, alpha, games, pcg
):
    """q-learning: epsilon-greedy on Q (lowest J on ties), Q(s, J) moved after every move towards
    1 (win), 0 (bust) or 1 - max_J' Q(<y, new>, J'); step 1/N(s, J) when alpha <= 0, else
    alpha."""
    k = q.shape[2] - 1
    width = k + 1
    qf, vf = flat(q), flat(visits)
    table = roll_table(cdf, guide)
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    for _ in range(games):
        eps = _epsilon(counters[0], eps0, eps_min, decay)
        a = 0
        b = 0
        n = 0
        while True:
            at = row(a, b, low, width)
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            jj = _epsilon_greedy(qf, at, k, eps, u)
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            new = a + roll(table, jj, u)
            if new > high:
                target = 0.0
            elif new >= low:
                target = 1.0
            else:
                nxt = row(b, new, low, width)
                top = qf[np.uint64(nxt + 1)]
                for j in range(2, k + 1):
                    if qf[np.uint64(nxt + j)] > top:
                        top = qf[np.uint64(nxt + j)]
                target = 1.0 - top
            cell = at + jj
            cnt = vf[np.uint64(cell)] + 1
            vf[np.uint64(cell)] = cnt
            old = qf[np.uint64(cell)]
            if alpha > 0.0:
                qf[np.uint64(cell)] = old + alpha * (target - old)
            else:
                qf[np.uint64(cell)] = old + (target - old) / cnt
            n += 1
            if new >= low:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
    pcg[0] = hi
    pcg[1] = lo
