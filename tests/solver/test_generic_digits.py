"""Every printed digit of the generic solver's value is right (issue 45): Pig to 30 against an
independent computation written here from the rules, the old stop rule shown to miss."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.linalg import spsolve

from dicejack.games import HandoutGame, PeekingBlackjack, Pig, Piglet, enumerate_game
from dicejack.games.pig import PigReset
from dicejack.solver.generic import solve_game, uniform_policy
from dicejack.solver.generic_output import game_solution_text


def _pig_system(goal: int, die: int, hold: np.ndarray) -> tuple[sparse.csr_matrix, np.ndarray]:
    """P = C P + b for the mover's view P[i, j, k] (flat), rolling except where `hold`."""
    n = goal ** 3
    i, j, k = (a.ravel() for a in np.indices((goal, goal, goal)))
    cell = np.arange(n)
    roll = ~hold
    rows, cols, vals, b = [], [], [], np.zeros(n)
    rows.append(cell[roll])  # a pig: the opponent moves at (j, i, 0); P = 1 - theirs
    cols.append((j[roll] * goal + i[roll]) * goal)
    vals.append(np.full(roll.sum(), -1.0 / die))
    b[roll] += 1.0 / die
    for face in range(2, die + 1):
        won = roll & (i + k + face >= goal)
        b[won] += 1.0 / die
        go = roll & ~won
        rows.append(cell[go])
        cols.append((i[go] * goal + j[go]) * goal + k[go] + face)
        vals.append(np.full(go.sum(), 1.0 / die))
    top = np.minimum(i + k, goal - 1)  # holding with i + k >= goal is never needed: it has won
    rows.append(cell[hold])
    cols.append((j[hold] * goal + top[hold]) * goal)
    vals.append(np.full(hold.sum(), -1.0))
    b[hold] += 1.0
    c = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(n, n))
    return c, b


def reference_pig(goal: int, die: int = 6) -> float:
    """P(first player wins): value iteration on Neller and Presser's equations to 1e-10, then
    policy iteration with direct sparse solves until the policy is stable (exact to rounding)."""
    n = goal ** 3
    i, _, k = (a.ravel() for a in np.indices((goal, goal, goal)))
    valid = i + k < goal
    may_hold = valid & (k > 0)
    c_roll, b_roll = _pig_system(goal, die, np.zeros(n, dtype=bool))
    c_hold, b_hold = _pig_system(goal, die, may_hold)
    c_hold, b_hold = c_hold.multiply(may_hold[:, None]).tocsr(), np.where(may_hold, b_hold, -1)
    p = np.zeros(n)
    for _ in range(100_000):
        new = np.where(valid, np.maximum(c_roll @ p + b_roll, c_hold @ p + b_hold), 0.0)
        change, p = float(np.abs(new - p).max()), new
        if change <= 1e-10:
            break
    keep = np.flatnonzero(valid)
    hold = may_hold & (c_hold @ p + b_hold > c_roll @ p + b_roll)
    for _ in range(50):
        c, b = _pig_system(goal, die, hold)
        a = (sparse.identity(n, format="csr") - c)[keep][:, keep]
        p = np.zeros(n)
        p[keep] = spsolve(a.tocsc(), b[keep])
        again = may_hold & (c_hold @ p + b_hold > c_roll @ p + b_roll + 1e-15)
        if np.array_equal(again, hold):
            return float(p[0])
        hold = again
    raise AssertionError("the reference's policy iteration did not settle")


def test_pig_30_prints_every_digit_right():
    space = enumerate_game(Pig(goal=30))
    exact = reference_pig(30)
    sol = solve_game(space)
    assert f"{sol.value:.12f}" == f"{exact:.12f}"
    assert abs(sol.value - exact) <= sol.error_bound < 1e-13
    assert f"{exact:.12f}" in game_solution_text(sol)
    # the old stop (no value changes by more than 1e-13 in a synchronous sweep) misses a digit
    old = solve_game(space, method="value-iteration", tolerance=1e-13)
    assert f"{old.value:.12f}" != f"{exact:.12f}"
    assert old.error_bound is None


@pytest.mark.parametrize("goal", [5, 12])
def test_small_pigs_equal_the_reference_and_policy_iteration(goal):
    space = enumerate_game(Pig(goal=goal))
    sol = solve_game(space)
    exact = reference_pig(goal)
    assert abs(sol.value - exact) <= sol.error_bound
    pi = solve_game(space, method="policy-iteration")
    assert np.max(np.abs(sol.values - pi.values)) <= sol.error_bound


@pytest.mark.parametrize("game", [Pig(goal=8, die=4), Piglet(goal=5), PigReset(goal=9, die=3),
                                  PeekingBlackjack(), HandoutGame(4, 6, 7, 2)])
def test_the_compiled_sweeps_equal_their_plain_reference(game):
    from dicejack.solver.generic_sweeps import SMALL_COMPONENT, components, solve_in_place

    space = enumerate_game(game)
    out = []
    small = 5 if isinstance(game, PigReset) else SMALL_COMPONENT  # PigReset: sweeps, extrapolated
    for compiled in (True, False):
        v = space.payoff.copy()
        out.append((v, *solve_in_place(space, v, compiled=compiled, small=small),
                    *components(space, compiled=compiled, small=small)))
    (v1, *rest1), (v2, *rest2) = out
    assert np.array_equal(v1, v2) and rest1[:4] == rest2[:4]
    assert np.array_equal(rest1[4], rest2[4]) and np.array_equal(rest1[5], rest2[5])
    weights = uniform_policy(space)
    fixed = space.player == 0  # player 0 plays uniformly, player 1 responds
    played = []
    for compiled in (True, False):
        v = space.payoff.copy()
        played.append((v, solve_in_place(space, v, compiled, weights, fixed)))
    assert np.array_equal(played[0][0], played[1][0]) and played[0][1] == played[1][1]


@pytest.mark.parametrize("game", [Pig(goal=10), PigReset(goal=12), Piglet(goal=4)])
def test_components_are_scipys_in_an_order_that_solves(game):
    from scipy.sparse.csgraph import connected_components

    from dicejack.solver.generic_sweeps import components

    space = enumerate_game(game)
    n_comp, start, members = components(space)
    comp_of = np.empty(space.n_states, dtype=np.int64)
    for c in range(n_comp):
        comp_of[members[start[c]:start[c + 1]]] = c
    t = space.transitions
    src = np.repeat(space.row_state, np.diff(t.indptr))
    graph = sparse.csr_matrix((np.ones(len(src)), (src, t.indices)),
                              shape=(space.n_states,) * 2)
    count, labels = connected_components(graph, directed=True, connection="strong")
    assert count == n_comp
    pairs = set(zip(labels.tolist(), comp_of.tolist(), strict=True))
    assert len(pairs) == n_comp  # the same partition
    assert np.all(comp_of[t.indices] <= comp_of[src])  # every edge leads to an earlier one
