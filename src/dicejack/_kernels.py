"""Numba-compiled hot loops, private to dicejack.

Each kernel writes into arrays its caller preallocates and validates; the public, checked API is in
`solver.py` and `learner.py`, which also keep plain reference implementations beside these kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# --- solver ---------------------------------------------------------------------------------


@njit(cache=True)
def backward_induction(
    low, n_sides, n_dice, tail, p_out, best_out, q_out, optimal_out, gap_out, write_q, tie_tol
):
    """Optimal values by backward induction over anti-diagonals x + y, descending.

    For a fixed opponent score y, let E_j(s) be the mover's win probability after rolling j more
    dice from score s (E_0(s) = 1 - P(y, s) below low, 1 inside [low, high], 0 above). Then
    E_j(s) = mean_{d=1..S} E_{j-1}(s + d), so E_j(x) = E_j(x+1) + (E_{j-1}(x+1) - E_{j-1}(x+S+1))/S:
    O(1) per (state, j), independent of n_sides. Q(x, y, j) = E_j(x) for that y.

    A ring buffer per y holds E_j(s) for the S+1 scores above the current one, so the working set
    is low * (S+1) * (K+1) floats and Q (if asked for) is only ever written.
    tail[k, j] = E_j(low + k) for k = 0..S (the same for every y).
    Always fills p_out (P) and best_out (lowest J within tie_tol of P); with write_q also q_out,
    optimal_out (J within tie_tol of P) and gap_out (P minus the best non-optimal Q, NaN if none).
    """
    S = n_sides
    K = n_dice
    W = S + 1
    buf = np.empty((low, W, K + 1))
    for y in range(low):
        for k in range(W):
            slot = (low + k) % W
            for j in range(K + 1):
                buf[y, slot, j] = tail[k, j]
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
            if write_q:
                q_out[x, y, 0] = 0.0
                optimal_out[x, y, 0] = False
                second = -np.inf
                for j in range(1, K + 1):
                    v = vals[j]
                    q_out[x, y, j] = v
                    is_opt = v >= best - tie_tol
                    optimal_out[x, y, j] = is_opt
                    if not is_opt and v > second:
                        second = v
                gap_out[x, y] = best - second if second > -np.inf else np.nan
            diag_p[x] = best
        # After the whole diagonal: E_0 of chain x at score y is 1 - P(x, y) (state <x, y> is on
        # this diagonal, and so is the state <y, x> whose j >= 1 values were just written there).
        for x in range(x0, x1 + 1):
            y = d - x
            buf[x, y % W, 0] = 1.0 - diag_p[x]


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
