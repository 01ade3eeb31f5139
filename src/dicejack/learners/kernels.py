"""Numba-compiled self-play loops of the bundled learners (q-learning, mc-epsilon, ucb, thompson).

Each loop is the compiled twin of the reference in :mod:`dicejack.learners.reference` (whose
docstrings specify every rule): the same generator draws in the same order and the same float64
expressions in the same order, so both give identical tables. Every loop updates the arrays its
caller allocated, and bumps counters = [games, moves] after each whole game, so that tables,
counters and the generator (whose PCG64 state numba shares with the Python object) are consistent
whenever control is back in Python.

Shared arguments: cdf (K+1, K*S+1) with cdf[j, t] = P(total of j dice <= t), guide (K+1, G) a
start for the search of the first t with x < cdf[j, t] (:func:`dicejack.learners.base.roll_tables`),
low and high (LTarget, UTarget). The counting loops keep fcache (L, L, K+1) in step with the
counts: [x, y, 0] = T (moves made from <x, y>, as a float), [x, y, j] = the handout's f_j.
"""

from __future__ import annotations

import math

from numba import njit

from dicejack.learners.moves import counted_move, move_buffers, roll

THIRD = 1.0 / 3.0


@njit(cache=True, inline="always")
def _epsilon(games, eps0, eps_min, decay):
    e = eps0 / (1.0 + games / decay)
    return eps_min if e < eps_min else e


@njit(cache=True, inline="always")
def _epsilon_greedy(values, a, b, k, eps, u):
    """J from one uniform u: with probability eps uniform over 1..K (u / eps spread over the
    K choices), else the lowest J with the largest values[a, b, J]."""
    if u < eps:
        return 1 + min(int(u / eps * k), k - 1)
    jj = 1
    top = values[a, b, 1]
    for j in range(2, k + 1):
        if values[a, b, j] > top:
            top = values[a, b, j]
            jj = j
    return jj


@njit(cache=True)
def mc_epsilon_self_play(
    win, lose, fcache, counters, cdf, guide, low, high, eps0, eps_min, decay, games, rng
):
    """mc-epsilon: epsilon-greedy on the handout's f_J (lowest J on ties), the handout's counts."""
    k = win.shape[2] - 1
    xs, ys, js = move_buffers(low)
    for _ in range(games):
        eps = _epsilon(counters[0], eps0, eps_min, decay)
        a = 0
        b = 0
        n = 0
        while True:
            jj = _epsilon_greedy(fcache, a, b, k, eps, rng.random())
            n, new, end = counted_move(win, lose, fcache, cdf, guide, xs, ys, js, n, a, b, jj,
                                       rng.random(), low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n


@njit(cache=True)
def ucb_self_play(win, lose, fcache, counters, cdf, guide, low, high, c, games, rng):
    """ucb: the lowest untried J, else the largest f_J + c sqrt(log T / n_J); the handout's
    counts."""
    k = win.shape[2] - 1
    xs, ys, js = move_buffers(low)
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            jj = 0
            for j in range(1, k + 1):
                if win[a, b, j] + lose[a, b, j] == 0:
                    jj = j
                    break
            if jj == 0:
                lg = math.log(fcache[a, b, 0])
                jj = 1
                top = fcache[a, b, 1] + c * math.sqrt(lg / float(win[a, b, 1] + lose[a, b, 1]))
                for j in range(2, k + 1):
                    v = fcache[a, b, j] + c * math.sqrt(lg / float(win[a, b, j] + lose[a, b, j]))
                    if v > top:
                        top = v
                        jj = j
            n, new, end = counted_move(win, lose, fcache, cdf, guide, xs, ys, js, n, a, b, jj,
                                       rng.random(), low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n


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
    xs, ys, js = move_buffers(low)
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            jj = 1
            if k > 1:
                top = -1.0
                for j in range(1, k + 1):
                    gw = _gamma(rng, gcache[a, b, j, 0], gcache[a, b, j, 1])
                    gl = _gamma(rng, gcache[a, b, j, 2], gcache[a, b, j, 3])
                    v = gw / (gw + gl)
                    if v > top:
                        top = v
                        jj = j
            n, new, end = counted_move(win, lose, fcache, cdf, guide, xs, ys, js, n, a, b, jj,
                                       rng.random(), low, high)
            if end:
                mover_won = end == 1
                for i in range(n):  # the constants of the one count each move changed
                    xi = xs[i]
                    yi = ys[i]
                    ji = js[i]
                    if (((n - 1 - i) & 1) == 0) == mover_won:
                        d = (1.0 + win[xi, yi, ji]) - THIRD
                        gcache[xi, yi, ji, 0] = d
                        gcache[xi, yi, ji, 1] = 1.0 / math.sqrt(9.0 * d)
                    else:
                        d = (1.0 + lose[xi, yi, ji]) - THIRD
                        gcache[xi, yi, ji, 2] = d
                        gcache[xi, yi, ji, 3] = 1.0 / math.sqrt(9.0 * d)
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n


@njit(cache=True)
def q_self_play(
    q, visits, counters, cdf, guide, low, high, eps0, eps_min, decay, alpha, games, rng
):
    """q-learning: epsilon-greedy on Q (lowest J on ties), Q(s, J) moved after every move towards
    1 (win), 0 (bust) or 1 - max_J' Q(<y, new>, J'); step 1/N(s, J) when alpha <= 0, else
    alpha."""
    k = q.shape[2] - 1
    for _ in range(games):
        eps = _epsilon(counters[0], eps0, eps_min, decay)
        a = 0
        b = 0
        n = 0
        while True:
            jj = _epsilon_greedy(q, a, b, k, eps, rng.random())
            new = a + roll(cdf, guide, jj, rng.random())
            if new > high:
                target = 0.0
            elif new >= low:
                target = 1.0
            else:
                top = q[b, new, 1]
                for j in range(2, k + 1):
                    if q[b, new, j] > top:
                        top = q[b, new, j]
                target = 1.0 - top
            cnt = visits[a, b, jj] + 1
            visits[a, b, jj] = cnt
            old = q[a, b, jj]
            if alpha > 0.0:
                q[a, b, jj] = old + alpha * (target - old)
            else:
                q[a, b, jj] = old + (target - old) / cnt
            n += 1
            if new >= low:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
