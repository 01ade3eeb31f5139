"""CFR, CFR+ and outcome-sampling MCCFR in plain Python: the specification of the updates that
:mod:`dicejack.learners.cfr_kernel` compiles (:func:`cfr_iterations`, :func:`outcome_sampling`),
over the same flat arrays (as Python lists; described in :mod:`dicejack.learners.cfr`), the same
float operations in the same order and the same random draws, so tests hold the two to
identical regrets, policies and sums.

One iteration t (counted from 1), alternating updates as OpenSpiel's ``CFRSolver`` and
``CFRPlusSolver`` do them; for each player p in turn:

1. reach: top-down over the nodes (a child's index is above its parent's), each node's reach
   by player 0, player 1 and chance under the current policy;
2. values: bottom-up, each node's value to player 0 (a terminal's utility; a decision node's
   sum over its actions of the policy's probability times the action's value, the sum over its
   chance outcomes of probability times the child's value). At each of p's decision nodes,
   with v_a and v in p's own payoff: regret[a] += (the other player's reach x chance's reach) x
   (v_a - v), and cumulative[a] += w x (p's reach) x policy[a], with w = t (linear averaging,
   CFR+) or 1 (CFR);
3. matching: p's new policy at each of its keys is the positive part of its regrets over their
   sum (uniform when none is positive); CFR+ first resets negative regrets to 0 (regret
   matching+).

Player 1's turn sees player 0's new policy. The learned policy is the average: cumulative over
its sum at each key (uniform where the sum is 0). Forced moves (one action) are never updated.

Outcome-sampling MCCFR (Lanctot et al. 2009; OpenSpiel's ``OutcomeSamplingSolver``, baseline 0):
an iteration is one sampled play per player p in turn (:func:`episode`). Down the play, at
each key its policy is regret matching of its regrets now; p samples from exploration eps mixed
with it (eps/k + (1 - eps) policy[a], k actions), the other player from its policy, chance from
its probabilities, each with one uniform u (:func:`pick`: the first action whose running sum of
probabilities exceeds u, the last if rounding leaves none; no draw where there is one choice).
mine: p's reach under the policy; theirs: the other player's times chance's; sampled: the
sampling probability of the play so far (chance's included). Up the play from the terminal's
utility to p: the sampled action's estimate is value / q (q its sampling probability), the
node's estimate policy[a] x that; at p's decision keys (:func:`sampled_update`), regret[i] +=
c_i x theirs / sampled - (the node's estimate) x theirs / sampled, c_i the sampled action's
estimate for it and 0 for the others, and cumulative[i] += mine x policy[i] / sampled
(OpenSpiel's arithmetic, in its order). Regrets and sums start at
:data:`dicejack.learners.cfr.SAMPLING_PRIOR`, not 0 (so OpenSpiel's MCCFR starts them); the
average is read as for CFR.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cfr_iterations", "reach_pass", "value_pass", "regret_matching", "match_one",
           "outcome_sampling", "episode", "sampled_update", "pick"]


def reach_pass(arrays: dict, current: list[float], reach: list[list[float]]) -> None:
    """Step 1: each node's reach by player 0, player 1 and chance (`reach`'s three lists)."""
    mover, node_set, row_start = arrays["mover"], arrays["node_set"], arrays["row_start"]
    out_start, succ, prob, slot_start = (arrays["out_start"], arrays["succ"], arrays["prob"],
                                         arrays["slot_start"])
    r_0, r_1, r_c = reach
    r_0[0] = r_1[0] = r_c[0] = 1.0
    for n, q in enumerate(mover):
        if q < 0:
            continue
        base = slot_start[node_set[n]] - row_start[n]
        for r in range(row_start[n], row_start[n + 1]):
            pi = current[base + r]
            a0 = r_0[n] * pi if q == 0 else r_0[n]
            a1 = r_1[n] * pi if q == 1 else r_1[n]
            for o in range(out_start[r], out_start[r + 1]):
                c = succ[o]
                r_0[c] = a0
                r_1[c] = a1
                r_c[c] = r_c[n] * prob[o]


def value_pass(p: int, weight: float, arrays: dict, tables: dict, reach: list[list[float]],
               value: list[float], row_value: list[float]) -> None:
    """Step 2: each node's value into `value` (its actions' into `row_value`); player p's
    regrets and policy sums in `tables` grow."""
    mover, node_set, row_start = arrays["mover"], arrays["node_set"], arrays["row_start"]
    out_start, succ, prob, slot_start = (arrays["out_start"], arrays["succ"], arrays["prob"],
                                         arrays["slot_start"])
    utility, decides = arrays["utility"], arrays["decides"]
    regret, cumulative, current = tables["regret"], tables["cumulative"], tables["current"]
    sign = 1.0 if p == 0 else -1.0
    r_other, r_own, r_c = reach[1 - p], reach[p], reach[2]
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
        cf = r_other[n] * r_c[n]
        own = weight * r_own[n]
        for r in range(row_start[n], row_start[n + 1]):
            regret[base + r] += cf * (sign * row_value[r] - sign * v)
            cumulative[base + r] += own * current[base + r]


def regret_matching(p: int, plus: bool, arrays: dict, regret: list[float],
                    current: list[float]) -> None:
    """Step 3: player p's new policy into `current` (plus: regrets reset at 0 first)."""
    slot_start, decides = arrays["slot_start"], arrays["decides"]
    for s, owner in enumerate(arrays["set_player"]):
        if owner == p and decides[s]:
            match_one(slot_start[s], slot_start[s + 1], plus, regret, current)


def match_one(lo: int, hi: int, plus: bool, regret: list[float], current: list[float]) -> None:
    """One key's regret matching, its slots lo..hi-1 (plus: regrets reset at 0 first)."""
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


def cfr_iterations(arrays: dict, tables: dict, counters: list[int], players: int, plus: bool,
                   linear: bool, per_iteration: int, iterations: int) -> None:
    """`iterations` more iterations (module docstring) on `tables` (lists "regret",
    "cumulative", "current", changed in place); counters [iterations, updates] grow, the
    updates by `per_iteration` (the decision keys) each iteration. `arrays`: the tree's flat
    arrays as lists (:func:`dicejack.learners.cfr.tree_arrays`)."""
    n_nodes = len(arrays["mover"])
    reach = [[0.0] * n_nodes for _ in range(3)]
    value = [0.0] * n_nodes
    row_value = [0.0] * (len(arrays["row_start"]) and arrays["row_start"][-1])
    for _ in range(iterations):
        counters[0] += 1
        weight = float(counters[0]) if linear else 1.0
        for p in range(players):
            reach_pass(arrays, tables["current"], reach)
            value_pass(p, weight, arrays, tables, reach, value, row_value)
            regret_matching(p, plus, arrays, tables["regret"], tables["current"])
        counters[1] += per_iteration


def pick(u: float, weights: list[float]) -> int:
    """The first index whose running sum of `weights` exceeds u (the last if none does)."""
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        if u < acc:
            return i
    return len(weights) - 1


def episode(p: int, eps: float, arrays: dict, tables: dict, counters: list[int],
            rng: Any) -> None:
    """One sampled play for player p and its updates (module docstring)."""
    mover, node_set, row_start = arrays["mover"], arrays["node_set"], arrays["row_start"]
    out_start, succ, prob, slot_start = (arrays["out_start"], arrays["succ"], arrays["prob"],
                                         arrays["slot_start"])
    decides = arrays["decides"]
    regret, current = tables["regret"], tables["current"]
    path: list[tuple[int, int, float, float, float, float]] = []
    n, mine, theirs, sampled = 0, 1.0, 1.0, 1.0
    while mover[n] >= 0:
        s = node_set[n]
        first, last = slot_start[s], slot_start[s + 1]
        k, ours = last - first, mover[n] == p
        if decides[s]:
            match_one(first, last, False, regret, current)
        a, q = 0, 1.0
        if k > 1:
            mix = [eps / k + (1.0 - eps) * current[first + i] if ours else current[first + i]
                   for i in range(k)]
            a = pick(rng.random(), mix)
            q = mix[a]
        path.append((n, a, mine, theirs, sampled, q))
        if ours:
            mine *= current[first + a]
        else:
            theirs *= current[first + a]
        sampled *= q
        r = row_start[n] + a
        o = out_start[r]
        if out_start[r + 1] - o > 1:
            o += pick(rng.random(), prob[o:out_start[r + 1]])
            theirs *= prob[o]
            sampled *= prob[o]
        n = succ[o]
    value = arrays["utility"][n] if p == 0 else -arrays["utility"][n]
    for n, a, mine, theirs, sampled, q in reversed(path):
        s = node_set[n]
        first, last = slot_start[s], slot_start[s + 1]
        child = value / q
        estimate = current[first + a] * child
        if mover[n] == p and decides[s]:
            sampled_update(tables, first, last, a, child, estimate, mine, theirs, sampled)
            counters[1] += 1
        value = estimate


def sampled_update(tables: dict, first: int, last: int, a: int, child: float, estimate: float,
                   mine: float, theirs: float, sampled: float) -> None:
    """One key's regrets and policy sums on a sampled play (module docstring): slots
    first..last-1, the sampled action a, its estimate `child`, the key's `estimate`."""
    regret, cumulative, current = tables["regret"], tables["cumulative"], tables["current"]
    for i in range(first, last):
        mine_i = child if i - first == a else 0.0
        regret[i] += mine_i * theirs / sampled - estimate * theirs / sampled
        cumulative[i] += mine * current[i] / sampled


def outcome_sampling(arrays: dict, tables: dict, counters: list[int], players: int, eps: float,
                     iterations: int, rng: Any) -> None:
    """`iterations` more iterations of outcome-sampling MCCFR (module docstring), drawing from
    the numpy Generator `rng`; counters [iterations, updates] grow (an update: one key's
    regrets on a sampled play)."""
    for _ in range(iterations):
        counters[0] += 1
        for p in range(players):
            episode(p, eps, arrays, tables, counters, rng)
