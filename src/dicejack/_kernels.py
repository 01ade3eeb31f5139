"""Numba-compiled hot loops, private to dicejack.

Each kernel writes into arrays its caller preallocates and validates; the public, checked API is in
`solver.py` and `learner.py`, which also keep plain reference implementations beside these kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# --- solver ---------------------------------------------------------------------------------


@njit(cache=True)
def _init_ring(low, n_sides, n_dice, tail):
    """Ring buffers buf[y, s % (S+1), j] holding E_j(s) for s = low..low+S (every y alike)."""
    W = n_sides + 1
    buf = np.empty((low, W, n_dice + 1))
    for y in range(low):
        for k in range(W):
            slot = (low + k) % W
            for j in range(n_dice + 1):
                buf[y, slot, j] = tail[k, j]
    return buf


@njit(cache=True)
def backward_values(low, n_sides, n_dice, tail, p_out, best_out, tie_tol):
    """Optimal values P by backward induction over anti-diagonals x + y, descending.

    For a fixed opponent score y, let E_j(s) be the mover's win probability after rolling j more
    dice from score s (E_0(s) = 1 - P(y, s) below low, 1 inside [low, high], 0 above). Then
    E_j(s) = mean_{d=1..S} E_{j-1}(s + d), so E_j(x) = E_j(x+1) + (E_{j-1}(x+1) - E_{j-1}(x+S+1))/S:
    O(1) per (state, j), independent of n_sides. Q(x, y, j) = E_j(x) for that y.

    A ring buffer per y holds E_j(s) for the S+1 scores above the current one, so the working set
    is low * (S+1) * (K+1) floats. tail[k, j] = E_j(low + k) for k = 0..S (the same for every y).
    Fills p_out (P) and best_out (lowest J within tie_tol of P).
    """
    S = n_sides
    K = n_dice
    W = S + 1
    buf = _init_ring(low, n_sides, n_dice, tail)
    diag_p = np.empty(low)
    vals = np.empty(K + 1)
    inv = 1.0 / S
    for d in range(2 * low - 2, -1, -1):
        x0 = max(0, d - low + 1)
        x1 = min(d, low - 1)
        for x in range(x0, x1 + 1):
            y = d - x
            old = x % W  # holds score x + S + 1 until overwritten with score x
            nxt = (x + 1) % W
            best = -np.inf
            # j descending: slot j-1 (score x+S+1) is read before it is overwritten.
            for j in range(K, 0, -1):
                v = buf[y, nxt, j] + (buf[y, nxt, j - 1] - buf[y, old, j - 1]) * inv
                buf[y, old, j] = v
                vals[j] = v
                if v > best:
                    best = v
            p_out[x, y] = best
            for j in range(K, 0, -1):
                if vals[j] >= best - tie_tol:
                    best_out[x, y] = j
            diag_p[x] = best
        # After the whole diagonal: E_0 of chain x at score y is 1 - P(x, y) (state <x, y> is on
        # this diagonal, and so is the state <y, x> whose j >= 1 values were just written there).
        for x in range(x0, x1 + 1):
            y = d - x
            buf[x, y % W, 0] = 1.0 - diag_p[x]


@njit(cache=True)
def backward_q(low, n_sides, n_dice, tail, p, q_out, optimal_out, gap_out, tie_tol):
    """Q, the optimal mask and the gap, given P, in one sequential pass (row x by row x).

    With P known, every chain y is independent, so rows can be produced in memory order and Q is
    written once, front to back. The floating-point operations per chain are exactly those of
    `backward_values`, so Q here is bit-identical to the Q that produced P.
    """
    S = n_sides
    K = n_dice
    W = S + 1
    buf = _init_ring(low, n_sides, n_dice, tail)
    inv = 1.0 / S
    for x in range(low - 1, -1, -1):
        old = x % W
        nxt = (x + 1) % W
        for y in range(low):
            best = -np.inf
            for j in range(K, 0, -1):
                v = buf[y, nxt, j] + (buf[y, nxt, j - 1] - buf[y, old, j - 1]) * inv
                buf[y, old, j] = v
                q_out[x, y, j] = v
                if v > best:
                    best = v
            buf[y, old, 0] = 1.0 - p[y, x]
            q_out[x, y, 0] = 0.0
            optimal_out[x, y, 0] = False
            second = -np.inf
            for j in range(1, K + 1):
                v = q_out[x, y, j]
                is_opt = v >= best - tie_tol
                optimal_out[x, y, j] = is_opt
                if not is_opt and v > second:
                    second = v
            gap_out[x, y] = best - second if second > -np.inf else np.nan


@njit(cache=True)
def forward_visits(low, high, n_dice, probs, pi_a, pi_b, mass_a, mass_b):
    """Propagate the probability of each state forward from <0,0> with A to move.

    pi_a / pi_b: (low, low, K+1) action distributions of players A and B. probs[j, t]: P(j dice
    total t). Fills mass_a[x, y] (probability that <x, y> occurs with A to move) and mass_b, and
    returns the probability that A wins. States are visited at most once per game (scores only
    grow), so mass is a visit probability.
    """
    n_sides = (probs.shape[1] - 1) // n_dice
    mass_a[:, :] = 0.0
    mass_b[:, :] = 0.0
    mass_a[0, 0] = 1.0
    a_wins = 0.0
    for d in range(0, 2 * low - 1):
        x0 = max(0, d - low + 1)
        x1 = min(d, low - 1)
        for x in range(x0, x1 + 1):
            y = d - x
            for who in range(2):
                if who == 0:
                    m = mass_a[x, y]
                else:
                    m = mass_b[x, y]
                if m == 0.0:
                    continue
                for j in range(1, n_dice + 1):
                    if who == 0:
                        w = pi_a[x, y, j]
                    else:
                        w = pi_b[x, y, j]
                    if w == 0.0:
                        continue
                    mw = m * w
                    for t in range(j, j * n_sides + 1):
                        pt = probs[j, t]
                        if pt == 0.0:
                            continue
                        s = x + t
                        if s < low:
                            if who == 0:
                                mass_b[y, s] += mw * pt
                            else:
                                mass_a[y, s] += mw * pt
                        elif s <= high:
                            if who == 0:
                                a_wins += mw * pt
                        else:
                            if who == 1:
                                a_wins += mw * pt
    return a_wins


# --- learner --------------------------------------------------------------------------------


@njit(cache=True)
def learner_self_play(
    win, lose, counters, cdf, low, high, n_sides, m, games, rng, random_ties
):
    """Self-play `games` games of the handout's counting learner, updating win/lose in place.

    The same algorithm, float operations and random-number order as the reference
    `learner._play_one_python` (see the `learner` module docstring), so both give identical
    tables. counters[0] (games) and counters[1] (moves) are bumped after each whole game, so
    tables, counters and `rng` (whose PCG64 state numba shares with the Python object) are
    consistent whenever control is back in Python. cdf[j, t] = P(total of j dice <= t).
    """
    k = win.shape[2] - 1
    km = k * m
    k1m = (k - 1) * m
    inv_k = 1.0 / k
    f = np.zeros(k + 1)
    p = np.zeros(k + 1)
    cap = 2 * low + 2  # each player moves at most `low` times in a game
    xs = np.empty(cap, np.int64)
    ys = np.empty(cap, np.int64)
    js = np.empty(cap, np.int64)
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            # f_J, T and B (lowest J on ties).
            total = win[a, b, 0] + lose[a, b, 0]
            best = 1
            fbest = -1.0
            for j in range(1, k + 1):
                w = win[a, b, j]
                d = w + lose[a, b, j]
                total += d
                if d > 0:
                    fj = float(w) / float(d)
                else:
                    fj = 0.5
                f[j] = fj
                if fj > fbest:
                    fbest = fj
                    best = j
            if random_ties:
                tied = 0
                for j in range(1, k + 1):
                    if f[j] == fbest:
                        tied += 1
                if tied > 1:
                    idx = min(int(rng.random() * tied), tied - 1)
                    for j in range(1, k + 1):
                        if f[j] == fbest:
                            if idx == 0:
                                best = j
                                break
                            idx -= 1
            # p_J: the handout's formulas, with the documented zero-denominator fallbacks.
            if k == 1:
                p[1] = 1.0
            else:
                tt = float(total)
                tfb = tt * f[best]
                den_b = tfb + km
                if den_b == 0.0:
                    for j in range(1, k + 1):
                        p[j] = inv_k
                else:
                    pb = (tfb + m) / den_b
                    g = 0.0
                    for j in range(1, k + 1):
                        if j != best:
                            g += f[j]
                    den = g * tt + k1m
                    rest = 1.0 - pb
                    for j in range(1, k + 1):
                        if j == best:
                            p[j] = pb
                        elif den == 0.0:
                            p[j] = rest / (k - 1)
                        else:
                            p[j] = rest * (tt * f[j] + m) / den
            # The handout's cumulative sampler (p_0 = 0).
            x = rng.random()
            jj = k
            u = 0.0
            for i in range(1, k):
                u += p[i]
                if x < u:
                    jj = i
                    break
            # Roll total: the first t in [J, J*S] with uniform < P(total <= t).
            x = rng.random()
            lo = jj
            hi = jj * n_sides
            while lo < hi:
                mid = (lo + hi) >> 1
                if x < cdf[jj, mid]:
                    hi = mid
                else:
                    lo = mid + 1
            xs[n] = a
            ys[n] = b
            js[n] = jj
            n += 1
            new = a + lo
            if new >= low:
                # The last mover (index n-1) won unless it passed UTarget.
                mover_won = new <= high
                for i in range(n):
                    same = ((n - 1 - i) & 1) == 0
                    if same == mover_won:
                        win[xs[i], ys[i], js[i]] += 1
                    else:
                        lose[xs[i], ys[i], js[i]] += 1
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
