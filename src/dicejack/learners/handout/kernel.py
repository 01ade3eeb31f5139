"""The handout learner's compiled self-play loops (numba), and the choice of J they inline.

Two loops of one algorithm: :func:`learner_self_play` for any NDice and either tie-break, and
:func:`two_dice_self_play`, the handout's own case (NDice = 2, ties to the lowest J) written out
without loops over J, about 1.7x faster; both do the same float operations in the same order and
draw the same numbers, so they give identical tables (a test holds them to each other and to the
plain reference). The loops write into arrays their caller
(:class:`dicejack.learners.handout.Handout`) preallocates and validates; the roll and the count
update are the shared :mod:`dicejack.learners.moves` (on flat views of the tables); the random
numbers are numpy's PCG64 stepped in place (:mod:`dicejack.learners.pcg`); the plain reference
tests hold them to is :mod:`dicejack.learners.handout.reference_loop`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicejack.learners.moves import counted_move, flat, move_buffers, roll_table, row
from dicejack.learners.pcg import next_double


@njit(cache=True, inline="always")
def _choose_dice(fcache, at, k, best, fbest, m, x):
    """The J that uniform x picks from the handout's p_1..p_K in the state whose f cache row
    starts at `at` (fcache[at] = T, fcache[at + j] = f_j; B = best; indices unsigned, see
    :mod:`dicejack.learners.moves`).

    p_i is computed only up to the chosen i for K <= 2; from K = 3 all of them, branch-free: the
    p_i are >= 0, so u is non-decreasing and the first i with x < u_i is 1 + #{i < K: u_i <= x}
    (same u_i, same J, no mispredicted exit). Kept apart and inlined: one function for both
    cases compiles to a slower loop for K = 2.
    """
    tt = fcache[np.uint64(at)]
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
                        g += fcache[np.uint64(at + j)]
                den = g * tt + k1m
                q = (1.0 - pb) / den if den != 0.0 else 0.0
                below = 0
                for i in range(1, k):
                    pi = pb if i == best else q * (tt * fcache[np.uint64(at + i)] + m)
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
                                    g += fcache[np.uint64(at + j)]
                            den = g * tt + k1m
                            if den == 0.0:
                                q = 0.0
                            else:
                                q = (1.0 - pb) / den
                        pi = q * (tt * fcache[np.uint64(at + i)] + m)
                    u += pi
                    if x < u:
                        jj = i
                        break
    return jj


@njit(cache=True)
def learner_self_play(
    win, lose, fcache, counters, cdf, guide, low, high, m, games, random_ties, pcg
):
    """Self-play `games` games of the handout's counting learner, updating the tables in place.

    Same algorithm, float operations and random-number order as the plain reference loop
    (:mod:`.reference`; the rules in :mod:`.session`'s docstring), so both give identical tables.
    Arrays:
      win, lose    int64 (L, L, K+1) counts, C-contiguous;
      fcache       float64 (L, L, K+1): [x, y, 0] = T, [x, y, j] = f_j, kept in step with the
                   counts (one division per recorded move instead of K per move);
      counters     int64 [games, moves], bumped after each whole game;
      cdf          float64 (K+1, K*S+1): cdf[j, t] = P(total of j dice <= t);
      guide        int64 (K+1, G): a start for the search of the first t with u < cdf[j, t]
                   near bucket floor(u*G); the search corrects both ways, so any guide is exact;
      pcg          uint64 [state_hi, state_lo, inc_hi, inc_lo]: the run's numpy PCG64 state
                   (:mod:`dicejack.learners.pcg`), stepped in local variables and written back
                   at the end, so tables, counters and state are consistent whenever control is
                   back in Python (:func:`dicejack.learners.pcg.stepping` puts it back into the
                   Generator).
    """
    k = win.shape[2] - 1
    width = k + 1
    w, lo_, fc = flat(win), flat(lose), flat(fcache)
    table = roll_table(cdf, guide)
    rows, js = move_buffers(low)
    hi = pcg[0]
    lo = pcg[1]
    inc_hi = pcg[2]
    inc_lo = pcg[3]
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            at = row(a, b, low, width)
            # B = the lowest J with the largest f_J.
            best = 1
            fbest = fc[np.uint64(at + 1)]
            for j in range(2, k + 1):
                fj = fc[np.uint64(at + j)]
                if fj > fbest:
                    fbest = fj
                    best = j
            if random_ties:
                tied = 0
                for j in range(1, k + 1):
                    if fc[np.uint64(at + j)] == fbest:
                        tied += 1
                if tied > 1:
                    u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
                    idx = min(int(u * tied), tied - 1)
                    for j in range(1, k + 1):
                        if fc[np.uint64(at + j)] == fbest:
                            if idx == 0:
                                best = j
                                break
                            idx -= 1
            # J by the handout's cumulative rule, with one uniform.
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            jj = _choose_dice(fc, at, k, best, fbest, m, u)
            # Roll total: the first t with uniform < P(total of jj dice <= t); the game ends (and
            # its moves are counted) when the mover reaches LTarget.
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            n, new, end = counted_move(w, lo_, fc, table, rows, js, n, at, a, jj, u, low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
    pcg[0] = hi
    pcg[1] = lo


def loop_for(n_dice: int, random_ties: bool):
    """The compiled loop for a game of `n_dice` dice and the tie-break: the written-out
    :func:`two_dice_self_play` for the handout's case, else :func:`learner_self_play` (both
    called alike, with identical results)."""
    return two_dice_self_play if n_dice == 2 and not random_ties else learner_self_play


@njit(cache=True)
def two_dice_self_play(win, lose, fcache, counters, cdf, guide, low, high, m, games,
                       random_ties, pcg):
    """:func:`learner_self_play` for NDice = 2 with ties to the lowest J (the handout's game;
    `random_ties` is False here, kept so that both loops are called alike): the same arrays,
    float operations and draws, with the choice written out for two J.

    B = 2 only when f_2 > f_1. With B = 1, J = 1 when x < p_1 = p_B; with B = 2, p_1 =
    (1 - p_B)(T f_1 + M)/(g T + M) with g = f_1 (the general loop's sums 0.0 + f_1 and
    0.0 + p_1 are kept: they are exact, and keep the operations the same). When T f_B + 2M is 0
    (M = 0 and no data), both J are equally likely: J = 1 when x < 0.5.
    """
    w, lo_, fc = flat(win), flat(lose), flat(fcache)
    table = roll_table(cdf, guide)
    rows, js = move_buffers(low)
    hi = pcg[0]
    lo = pcg[1]
    inc_hi = pcg[2]
    inc_lo = pcg[3]
    two_m = 2 * m
    for _ in range(games):
        a = 0
        b = 0
        n = 0
        while True:
            at = row(a, b, low, 3)
            tt = fc[np.uint64(at)]
            f1 = fc[np.uint64(at + 1)]
            f2 = fc[np.uint64(at + 2)]
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            if f2 > f1:  # B = 2
                tfb = tt * f2
                den_b = tfb + two_m
                if den_b == 0.0:
                    jj = 1 if u < 0.5 else 2
                else:
                    pb = (tfb + m) / den_b
                    den = (0.0 + f1) * tt + m
                    q = (1.0 - pb) / den if den != 0.0 else 0.0
                    jj = 1 if u < 0.0 + q * (tt * f1 + m) else 2
            else:  # B = 1
                tfb = tt * f1
                den_b = tfb + two_m
                if den_b == 0.0:
                    jj = 1 if u < 0.5 else 2
                else:
                    jj = 1 if u < 0.0 + (tfb + m) / den_b else 2
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            n, new, end = counted_move(w, lo_, fc, table, rows, js, n, at, a, jj, u, low, high)
            if end:
                break
            a = b
            b = new
        counters[0] += 1
        counters[1] += n
    pcg[0] = hi
    pcg[1] = lo
