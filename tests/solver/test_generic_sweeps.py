"""The generic solver's lean path for compiled spaces (issue 45): Pig and PigReset are swept
from their compact matrix (StateSpace.compact: int32 successors, small codes into a table of
probabilities), scipy's matrix never made; the results are those of the scipy matrix's path
bit for bit and today's numbers; _finish's kernels equal their plain references and numpy's
formulas; the solve stays under 200 bytes per state."""

from __future__ import annotations

import dataclasses
import tracemalloc

import numpy as np
import pytest

from dicejack.games import PeekingBlackjack, Pig, Piglet, enumerate_game
from dicejack.games.pig import PigReset
from dicejack.solver.generic import solve_game, uniform_policy
from dicejack.solver.generic_sweeps import bellman, first_optimal, optimal_rows
from dicejack.solver.solution import TIE_TOLERANCE

#: The values at the initial state the generic solver gave before the compact path (commit
#: f3e4d4c, scipy's matrix), with their error bounds then.
BEFORE = {"pig30": (Pig(goal=30), 0.567914744493484, 1.69522304e-14),
          "reset20": (PigReset(goal=20), 0.6028576782549379, 5.61163429e-15),
          "reset9": (PigReset(goal=9, die=3), 0.5526914329037138, 8.48241222e-15)}


def _matrix_space(space):
    """The same space without its compact matrix: the solver takes scipy's."""
    return dataclasses.replace(space, compact=None, transitions=space.transitions)


@pytest.mark.parametrize("name", list(BEFORE))
def test_the_compact_path_is_the_matrix_path_and_todays_numbers(name):
    game, before, bound = BEFORE[name]
    space = enumerate_game(game)
    assert space.compact is not None and space.matrix is None
    lean = solve_game(space)
    assert space.matrix is None  # the solve made no scipy matrix
    full = solve_game(_matrix_space(space))
    for field in ("values", "q", "optimal", "best"):
        assert np.array_equal(getattr(lean, field), getattr(full, field)), field
    assert lean.error_bound == full.error_bound and lean.sweeps == full.sweeps
    assert abs(lean.value - before) <= 1e-12 and f"{lean.value:.12f}" == f"{before:.12f}"
    assert abs(lean.error_bound - bound) <= 1e-20
    # q, optimal and best by numpy from scipy's matrix, written here
    t = space.transitions
    assert np.array_equal(lean.q, t @ lean.values)
    at = lean.values[space.row_state]
    mover_min = (space.player == 1)[space.row_state]
    optimal = np.where(mover_min, -lean.q >= -at - TIE_TOLERANCE, lean.q >= at - TIE_TOLERANCE)
    assert np.array_equal(lean.optimal, optimal)
    live = np.flatnonzero(~space.terminal)
    for s in live[:: max(1, len(live) // 500)]:
        rows = space.rows(int(s))
        assert lean.best[s] == rows.start + int(np.argmax(optimal[rows.start:rows.stop]))
    assert np.all(lean.best[space.terminal] == -1)


@pytest.mark.parametrize("game", [Pig(goal=8, die=4), PigReset(goal=9, die=3), Piglet(goal=5),
                                  PeekingBlackjack()])
def test_the_finishing_kernels_equal_their_plain_references(game):
    space = enumerate_game(game)
    v = np.random.default_rng(45).random(space.n_states)
    v[space.terminal] = space.payoff[space.terminal]
    out = []
    for compiled in (True, False):
        q, backed = bellman(space, v, compiled)
        optimal = optimal_rows(space, backed, q, 1e-3, compiled)
        out.append((q, backed, optimal, first_optimal(space, optimal, compiled)))
    for a, b in zip(*out, strict=True):
        assert np.array_equal(a, b)
    q, backed = out[0][:2]
    reward = 0.0 if space.reward is None else space.reward
    assert np.array_equal(q, space.transitions @ v + reward)
    live = ~space.terminal
    sign = np.where(space.player == 1, -1.0, 1.0)
    best = np.maximum.reduceat(sign[space.row_state] * q, space.row_start[:-1][live])
    assert np.array_equal(backed[live], sign[live] * best)
    assert np.array_equal(backed[~live], space.payoff[~live])


def test_the_compact_matrix_is_scipys_bit_for_bit_and_made_only_when_read():
    space = enumerate_game(PigReset(goal=12))
    python = enumerate_game(PigReset(goal=12), exact=True)  # the protocol's own enumeration
    m = space.compact
    assert m.codes.dtype == np.uint8 and m.indices.dtype == np.int32 and len(m.table) < 40
    assert space.matrix is None
    t = space.transitions
    assert space.matrix is t and space.transitions is t  # made once, then kept
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(t, name), getattr(python.transitions, name)), name
    played = []
    for s in (space, _matrix_space(space)):  # a policy's values: the same kernels, either way
        from dicejack.solver.generic import evaluate_policy

        played.append(evaluate_policy(s, uniform_policy(s)))
    assert np.array_equal(*played)


def test_pig_reset_solves_under_200_bytes_per_state():
    solve_game(enumerate_game(PigReset(goal=6)))  # compiled already
    tracemalloc.start()
    try:
        sol = solve_game(enumerate_game(PigReset(goal=50)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sol.space.matrix is None
    assert peak / sol.space.n_states < 200  # scipy's matrix alone took 137
