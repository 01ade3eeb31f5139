"""The handout learner's compiled self-play loop (numba), and the choice of J it inlines.

The loop writes into arrays its caller (:class:`dicejack.learners.handout.Session`) preallocates
and validates; the roll and the count update are the shared :mod:`dicejack.learners.moves`; the
plain reference tests hold it to is :mod:`dicejack.learners.handout.reference`.
"""

from __future__ import annotations

from numba import njit

from dicejack.learners.moves import counted_move, move_buffers


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


@njit(cache=True)
def learner_self_play(
    win, lose, fcache, counters, cdf, guide, low, high, m, games, rng, random_ties
):
    """Self-play `games` games of the handout's counting learner, updating the tables in place.

    Same algorithm, float operations and random-number order as the plain reference loop
    (:mod:`.reference`; the rules in :mod:`.session`'s docstring), so both give identical tables.
    Arrays:
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
    xs, ys, js = move_buffers(low)
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
            # Roll total: the first t with uniform < P(total of jj dice <= t); the game ends (and
            # its moves are counted) when the mover reaches LTarget.
            n, new, end = counted_move(win, lose, fcache, cdf, guide, xs, ys, js, n, a, b, jj,
                                       rng.random(), low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
