"""The compiled twin of :func:`dicejack.learners.cfr_reference.cfr_iterations` (numba): CFR and
CFR+ iterations over an information game's tree as flat arrays, many iterations in one call, the
same float operations in the same order as the plain loop, so tests hold the two to identical
regrets, policies and sums (the arrays are described in :mod:`dicejack.learners.cfr`)."""

from __future__ import annotations

from numba import njit

__all__ = ["cfr_iterations"]


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


@njit(cache=True)
def _match(p, plus, set_player, decides, slot_start, regret, current):
    """Player p's new policy by regret matching (plus: negative regrets reset to 0 first)."""
    for s in range(len(set_player)):
        if set_player[s] != p or not decides[s]:
            continue
        lo, hi = slot_start[s], slot_start[s + 1]
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
