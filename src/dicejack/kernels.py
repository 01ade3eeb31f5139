"""Numba-compiled hot loops (the solver's sweeps for large games, the learner's self-play).

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
    Fills p_out (P) and best_out (lowest J within tie_tol of P). Results of a diagonal are
    written out after it, in a loop of their own: the writes stride across rows.
    """
    S = n_sides
    K = n_dice
    W = S + 1
    buf = _init_ring(low, n_sides, n_dice, tail)
    diag_p = np.empty(low)
    diag_best = np.empty(low, dtype=np.int64)
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
            lowest = K
            for j in range(K, 0, -1):
                if vals[j] >= best - tie_tol:
                    lowest = j
            diag_p[x] = best
            diag_best[x] = lowest
        # After the whole diagonal: E_0 of chain x at score y is 1 - P(x, y) (state <x, y> is on
        # this diagonal, and so is the state <y, x> whose j >= 1 values were just written there).
        for x in range(x0, x1 + 1):
            y = d - x
            buf[x, y % W, 0] = 1.0 - diag_p[x]
            p_out[x, y] = diag_p[x]
            best_out[x, y] = diag_best[x]


@njit(cache=True)
def backward_q(low, n_sides, n_dice, tail, p_t, q_out, optimal_out, gap_out, tie_tol):
    """Q, the optimal mask and the gap, given P (as p_t = P transposed), row x by row x.

    With P known every chain y is independent, so all y advance together from x + 1 to x in
    a loop over contiguous memory (ring[slot, j, y]), and Q is written once, front to back.
    The floating-point operations per chain are exactly those of `backward_values`, so this Q
    is bit-identical to the one that produced P.
    """
    S = n_sides
    K = n_dice
    W = S + 1
    ring = np.empty((W, K + 1, low))
    for k in range(W):
        slot = (low + k) % W
        for j in range(K + 1):
            ring[slot, j, :] = tail[k, j]
    inv = 1.0 / S
    best = np.empty(low)
    second = np.empty(low)
    for x in range(low - 1, -1, -1):
        old = x % W
        nxt = (x + 1) % W
        for j in range(K, 0, -1):
            a = ring[nxt, j]
            a_prev = ring[nxt, j - 1]
            b_prev = ring[old, j - 1]
            out = ring[old, j]
            for y in range(low):
                out[y] = a[y] + (a_prev[y] - b_prev[y]) * inv
        row_p = p_t[x]
        r0 = ring[old, 0]
        for y in range(low):
            r0[y] = 1.0 - row_p[y]  # E_0 of chain y at score x: 1 - P(y, x)
        # Best and best non-optimal value per y, vectorised over y (j = 1..K, rows of `ring`).
        best[:] = ring[old, 1]
        for j in range(2, K + 1):
            row = ring[old, j]
            for y in range(low):
                if row[y] > best[y]:
                    best[y] = row[y]
        second[:] = -np.inf
        for j in range(1, K + 1):
            row = ring[old, j]
            for y in range(low):
                v = row[y]
                if v < best[y] - tie_tol and v > second[y]:
                    second[y] = v
        q_row = q_out[x]
        opt_row = optimal_out[x]
        gap_row = gap_out[x]
        for y in range(low):
            threshold = best[y] - tie_tol
            q_row[y, 0] = 0.0
            opt_row[y, 0] = False
            for j in range(1, K + 1):
                v = ring[old, j, y]
                q_row[y, j] = v
                opt_row[y, j] = v >= threshold
            gap_row[y] = best[y] - second[y] if second[y] > -np.inf else np.nan


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


@njit(cache=True, inline="always")
def _choose_dice(fcache, a, b, k, best, fbest, m, x):
    """The J that uniform x picks from the handout's p_1..p_K in state <a, b> (B = best).

    p_i is computed only up to the chosen i for K <= 2; from K = 3 all of them, branch-free: the
    p_i are >= 0, so u is non-decreasing and the first i with x < u_i is 1 + #{i < K: u_i <= x}
    (same u_i, same J, no mispredicted exit). Kept apart and inlined: one function for both
    cases compiles to a slower loop for K = 2.
    """
    tt = fcache[a, b, 0]
    km = k * m
    k1m = (k - 1) * m
    jj = k
    if k > 1:
        tfb = tt * fbest
        den_b = tfb + km
        u = 0.0
        if den_b == 0.0:
            for i in range(1, k):
                u += 1.0 / k
                if x < u:
                    jj = i
                    break
        else:
            pb = (tfb + m) / den_b
            if k >= 3:  # branch-free, see the docstring
                g = 0.0
                for j in range(1, k + 1):
                    if j != best:
                        g += fcache[a, b, j]
                den = g * tt + k1m
                q = (1.0 - pb) / den if den != 0.0 else 0.0
                below = 0
                for i in range(1, k):
                    pi = pb if i == best else q * (tt * fcache[a, b, i] + m)
                    u += pi
                    below += u <= x
                jj = 1 + below
            else:
                q = -1.0
                for i in range(1, k):
                    if i == best:
                        pi = pb
                    else:
                        if q < 0.0:
                            g = 0.0
                            for j in range(1, k + 1):
                                if j != best:
                                    g += fcache[a, b, j]
                            den = g * tt + k1m
                            if den == 0.0:
                                q = 0.0
                            else:
                                q = (1.0 - pb) / den
                        pi = q * (tt * fcache[a, b, i] + m)
                    u += pi
                    if x < u:
                        jj = i
                        break
    return jj


@njit(cache=True, inline="always")
def roll(cdf, guide, jj, x):
    """The total of jj dice from one uniform x: the first t with x < cdf[jj, t] (exactly
    :func:`dicejack.game.roll_total`), searched from the guide's start in both directions."""
    gsz = guide.shape[1]
    t = guide[jj, min(int(x * gsz), gsz - 1)]
    while t > jj and x < cdf[jj, t - 1]:
        t -= 1
    while not (x < cdf[jj, t]):
        t += 1
    return t


@njit(cache=True, inline="always")
def record_counts(win, lose, fcache, xs, ys, js, n, mover_won):
    """The handout's update after a game of n moves (the last mover, index n-1, won when
    `mover_won`), keeping the f cache of every updated cell in step ([.., 0] = T)."""
    for i in range(n):
        xi = xs[i]
        yi = ys[i]
        ji = js[i]
        if (((n - 1 - i) & 1) == 0) == mover_won:
            win[xi, yi, ji] += 1
        else:
            lose[xi, yi, ji] += 1
        w = win[xi, yi, ji]
        fcache[xi, yi, ji] = float(w) / float(w + lose[xi, yi, ji])
        fcache[xi, yi, 0] += 1.0


@njit(cache=True)
def learner_self_play(
    win, lose, fcache, counters, cdf, guide, low, high, m, games, rng, random_ties
):
    """Self-play `games` games of the handout's counting learner, updating the tables in place.

    Same algorithm, float operations and random-number order as the reference in `learner.py`
    (see that module's docstring), so both give identical tables. Arrays:
      win, lose    int64 (L, L, K+1) counts;
      fcache       float64 (L, L, K+1): [x, y, 0] = T, [x, y, j] = f_j, kept in step with the
                   counts (one division per recorded move instead of K per move);
      counters     int64 [games, moves], bumped after each whole game, so tables, counters and
                   `rng` (whose PCG64 state numba shares with the Python object) are consistent
                   whenever control is back in Python;
      cdf          float64 (K+1, K*S+1): cdf[j, t] = P(total of j dice <= t);
      guide        int64 (K+1, G): a start for the search of the first t with u < cdf[j, t]
                   near bucket floor(u*G); the search corrects both ways, so any guide is exact.
    """
    k = win.shape[2] - 1
    cap = 2 * low + 2  # each player moves at most `low` times in a game
    xs = np.empty(cap, np.int64)
    ys = np.empty(cap, np.int64)
    js = np.empty(cap, np.int64)
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            # B = the lowest J with the largest f_J.
            best = 1
            fbest = fcache[a, b, 1]
            for j in range(2, k + 1):
                fj = fcache[a, b, j]
                if fj > fbest:
                    fbest = fj
                    best = j
            if random_ties:
                tied = 0
                for j in range(1, k + 1):
                    if fcache[a, b, j] == fbest:
                        tied += 1
                if tied > 1:
                    idx = min(int(rng.random() * tied), tied - 1)
                    for j in range(1, k + 1):
                        if fcache[a, b, j] == fbest:
                            if idx == 0:
                                best = j
                                break
                            idx -= 1
            # J by the handout's cumulative rule, with one uniform.
            jj = _choose_dice(fcache, a, b, k, best, fbest, m, rng.random())
            # Roll total: the first t with uniform < P(total of jj dice <= t).
            t = roll(cdf, guide, jj, rng.random())
            xs[n] = a
            ys[n] = b
            js[n] = jj
            n += 1
            new = a + t
            if new >= low:
                # The last mover (index n-1) won unless it passed UTarget.
                record_counts(win, lose, fcache, xs, ys, js, n, new <= high)
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
