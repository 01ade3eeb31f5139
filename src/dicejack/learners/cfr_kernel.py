"""The compiled twins of :mod:`dicejack.learners.cfr_reference` (numba): CFR and CFR+ iterations
(:func:`cfr_iterations`) and outcome-sampling MCCFR (:func:`outcome_sampling`, numpy's PCG64
stream stepped by :func:`dicejack.learners.pcg.next_double`: the same draws) over an information
game's tree as flat arrays, many iterations in one call, the same float operations in the same
order as the plain loops, so tests hold the two to identical regrets, policies and sums (the
arrays are described in :mod:`dicejack.learners.cfr`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from dicejack.learners.pcg import next_double

__all__ = ["cfr_iterations", "outcome_sampling"]


@njit(cache=True)
def _reach(mover, node_set, row_start, out_start, succ, prob, slot_start, current, reach):
    """Top-down: each node's reach by player 0, player 1 and chance (rows 0, 1, 2)."""
    reach[0, 0] = 1.0
    reach[1, 0] = 1.0
    reach[2, 0] = 1.0
    for n in range(len(mover)):
        q = mover[n]
        if q < 0:
            continue
        base = slot_start[node_set[n]] - row_start[n]
        for r in range(row_start[n], row_start[n + 1]):
            pi = current[base + r]
            r0 = reach[0, n] * pi if q == 0 else reach[0, n]
            r1 = reach[1, n] * pi if q == 1 else reach[1, n]
            for o in range(out_start[r], out_start[r + 1]):
                c = succ[o]
                reach[0, c] = r0
                reach[1, c] = r1
                reach[2, c] = reach[2, n] * prob[o]


@njit(cache=True)
def _values(p, weight, mover, node_set, row_start, out_start, succ, prob, utility, decides,
            slot_start, regret, cumulative, current, reach, value, row_value):
    """Bottom-up: each node's value (player 0's) under the current policy; at player p's
    decision nodes its regrets and its reach-weighted policy sums grow."""
    sign = 1.0 if p == 0 else -1.0
    other = 1 - p
    for n in range(len(mover) - 1, -1, -1):
        q = mover[n]
        if q < 0:
            value[n] = utility[n]
            continue
        s = node_set[n]
        base = slot_start[s] - row_start[n]
        v = 0.0
        for r in range(row_start[n], row_start[n + 1]):
            qa = 0.0
            for o in range(out_start[r], out_start[r + 1]):
                qa += prob[o] * value[succ[o]]
            row_value[r] = qa
            v += current[base + r] * qa
        value[n] = v
        if q != p or not decides[s]:
            continue
        cf = reach[other, n] * reach[2, n]
        own = weight * reach[p, n]
        for r in range(row_start[n], row_start[n + 1]):
            regret[base + r] += cf * (sign * row_value[r] - sign * v)
            cumulative[base + r] += own * current[base + r]


@njit(cache=True, inline="always")
def _match_one(lo, hi, plus, regret, current):
    total = 0.0
    for i in range(lo, hi):
        if plus and regret[i] < 0.0:
            regret[i] = 0.0
        if regret[i] > 0.0:
            total += regret[i]
    for i in range(lo, hi):
        if total > 0.0:
            current[i] = (regret[i] if regret[i] > 0.0 else 0.0) / total
        else:
            current[i] = 1.0 / (hi - lo)


@njit(cache=True)
def _match(p, plus, set_player, decides, slot_start, regret, current):
    """Player p's new policy by regret matching (plus: negative regrets reset to 0 first)."""
    for s in range(len(set_player)):
        if set_player[s] == p and decides[s]:
            _match_one(slot_start[s], slot_start[s + 1], plus, regret, current)


@njit(cache=True)
def cfr_iterations(mover, node_set, row_start, out_start, succ, prob, utility, set_player,
                   decides, slot_start, regret, cumulative, current, reach, value, row_value,
                   counters, players, plus, linear, per_iteration, iterations):
    """`iterations` more iterations (the reference's docstring: the rule)."""
    for _ in range(iterations):
        counters[0] += 1
        weight = float(counters[0]) if linear else 1.0
        for p in range(players):
            _reach(mover, node_set, row_start, out_start, succ, prob, slot_start, current,
                   reach)
            _values(p, weight, mover, node_set, row_start, out_start, succ, prob, utility,
                    decides, slot_start, regret, cumulative, current, reach, value, row_value)
            _match(p, plus, set_player, decides, slot_start, regret, current)
        counters[1] += per_iteration


@njit(cache=True)
def _episode(p, eps, mover, node_set, row_start, out_start, succ, prob, utility, decides,
             slot_start, regret, cumulative, current, path, reach, counters, hi, lo, inc_hi,
             inc_lo):
    """One sampled play for player p and its updates (the reference's docstring)."""
    n, d = 0, 0
    mine, theirs, sampled = 1.0, 1.0, 1.0
    while mover[n] >= 0:
        s = node_set[n]
        first, last = slot_start[s], slot_start[s + 1]
        k = last - first
        ours = mover[n] == p
        if decides[s]:
            _match_one(first, last, False, regret, current)
        a, q = 0, 1.0
        if k > 1:
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            acc, a = 0.0, k - 1
            for i in range(k):
                w = eps / k + (1.0 - eps) * current[first + i] if ours else current[first + i]
                acc += w
                if u < acc:
                    a = i
                    break
            q = eps / k + (1.0 - eps) * current[first + a] if ours else current[first + a]
        path[d, 0] = n
        path[d, 1] = a
        reach[d, 0] = mine
        reach[d, 1] = theirs
        reach[d, 2] = sampled
        reach[d, 3] = q
        if ours:
            mine *= current[first + a]
        else:
            theirs *= current[first + a]
        sampled *= q
        r = row_start[n] + a
        o = out_start[r]
        if out_start[r + 1] - o > 1:
            u, hi, lo = next_double(hi, lo, inc_hi, inc_lo)
            acc, pick = 0.0, out_start[r + 1] - 1
            for j in range(o, out_start[r + 1]):
                acc += prob[j]
                if u < acc:
                    pick = j
                    break
            o = pick
            theirs *= prob[o]
            sampled *= prob[o]
        n = succ[o]
        d += 1
    value = utility[n] if p == 0 else -utility[n]
    for e in range(d - 1, -1, -1):
        n, a = path[e, 0], path[e, 1]
        s = node_set[n]
        first, last = slot_start[s], slot_start[s + 1]
        child = value / reach[e, 3]
        estimate = current[first + a] * child
        if mover[n] == p and decides[s]:
            theirs, sampled = reach[e, 1], reach[e, 2]
            for i in range(first, last):
                mine_i = child if i - first == a else 0.0
                regret[i] += mine_i * theirs / sampled - estimate * theirs / sampled
                cumulative[i] += reach[e, 0] * current[i] / reach[e, 2]
            counters[1] += 1
        value = estimate
    return hi, lo


@njit(cache=True)
def outcome_sampling(mover, node_set, row_start, out_start, succ, prob, utility, decides,
                     slot_start, regret, cumulative, current, depth, counters, players, eps,
                     iterations, pcg):
    """`iterations` more iterations of outcome-sampling MCCFR (the reference's docstring),
    drawing from the PCG64 state `pcg` (:func:`dicejack.learners.pcg.stepping`)."""
    hi, lo, inc_hi, inc_lo = pcg[0], pcg[1], pcg[2], pcg[3]
    path = np.zeros((depth, 2), dtype=np.int64)
    reach = np.zeros((depth, 4))
    for _ in range(iterations):
        counters[0] += 1
        for p in range(players):
            hi, lo = _episode(p, eps, mover, node_set, row_start, out_start, succ, prob,
                              utility, decides, slot_start, regret, cumulative, current, path,
                              reach, counters, hi, lo, inc_hi, inc_lo)
    pcg[0] = hi
    pcg[1] = lo
