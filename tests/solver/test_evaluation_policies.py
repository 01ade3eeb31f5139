"""Every policy form the docs list (docs/ecosystem.md, "Policies alone"), validated: J counts from
1, so a 0 is refused as a 0-based policy with the way to say so (zero_based=True reads it as
actions 0..K-1); -1 and NaN are the only "no data" markers, and only in tables; a callable
answers every state. Finding 2 of issue 37: a callable returning 0 and the optimal table minus
one were read as "no data, play uniformly"."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import compare, solver
from dicejack.solver import SolverError, ZeroBasedError
from dicejack.solver.solution import no_data_mask, policy_distribution
from tests.games import HANDOUT, SMALL

GAME = SMALL


@pytest.fixture(scope="module")
def sol():
    return solver.solve(GAME)


def _uniform_exploitability() -> float:
    dist = np.zeros(GAME.table_shape)
    dist[:, :, 1:] = 1 / GAME.n_dice
    return solver.exploitability(GAME, dist)


# ----------------------------------------------------------------------------------- callable
def test_a_callable_returning_0_is_refused_as_0_based_and_read_so_when_said(sol):
    with pytest.raises(ZeroBasedError, match=r"plays 0 dice at <0,0> \(it returned 0\), but J "
                       r"counts from 1 \(1\.\.2\): for a 0-based policy \(actions 0\.\.1, J = "
                       r"action \+ 1\) pass zero_based=True"):
        solver.exploitability(GAME, lambda x, y: 0)
    best = sol.best
    zero_based = lambda x, y: int(best[x, y]) - 1  # noqa: E731
    for call in (solver.exploitability, solver.best_response, compare.learned_from_policy):
        with pytest.raises((SolverError, compare.CompareError), match="zero_based=True"):
            call(GAME, zero_based)
    assert solver.exploitability(GAME, zero_based, zero_based=True) == pytest.approx(0, abs=1e-12)
    assert solver.evaluate(GAME, zero_based, sol, zero_based=True) == pytest.approx(sol.p00)
    c = compare.compare(GAME, sol, zero_based, zero_based=True)
    assert c.metrics["agreement_all"] == 1.0


@pytest.mark.parametrize("answer", [-1, float("nan"), 3, 1.0, True, None])
def test_a_callable_has_no_no_data_answer_and_no_other_number(answer):
    with pytest.raises(SolverError, match=r"at <0,0>.*(dice 1\.\.2|1\.\.2 in every)") as err:
        solver.exploitability(GAME, lambda x, y: answer)
    assert not isinstance(err.value, ZeroBasedError)
    with pytest.raises(SolverError, match=r"actions 0\.\.1"):
        solver.exploitability(GAME, lambda x, y: 2, zero_based=True)


# ------------------------------------------------------------------------------ table of J
def test_a_table_of_j_with_0_is_refused_and_minus_one_is_no_data(sol):
    minus_one = sol.best - 1  # the optimal table, 0-based: was read as "no data" where J = 1
    with pytest.raises(ZeroBasedError, match=r"plays 0 dice at <\d+,\d+> \(\d+ states in all\)"):
        solver.exploitability(GAME, minus_one)
    assert solver.exploitability(GAME, minus_one, zero_based=True) == pytest.approx(0, abs=1e-12)
    no_data = np.full(GAME.shape, -1)
    assert solver.exploitability(GAME, no_data) == pytest.approx(_uniform_exploitability())
    with pytest.raises(SolverError, match=r"no data \(-1 or NaN\) at <0,0>; fill='error'"):
        solver.exploitability(GAME, no_data, fill="error")
    # zero_based: -1 is still "no data", and K is out of range
    assert solver.exploitability(GAME, no_data, zero_based=True) == pytest.approx(
        _uniform_exploitability())
    with pytest.raises(SolverError, match=r"policy has 2 as action at <0,0>; must be an action "
                       r"0\.\.1"):
        solver.exploitability(GAME, np.full(GAME.shape, 2), zero_based=True)
    with pytest.raises(SolverError, match=r"policy has -2 dice at <0,0>; must be 1\.\.2"):
        solver.exploitability(GAME, np.full(GAME.shape, -2))


def test_a_float_table_marks_no_data_with_nan_or_minus_one_only(sol):
    table = sol.best.astype(float)
    table[1, 2], table[3, 4] = np.nan, -1.0
    dist = policy_distribution(GAME, table)
    assert np.allclose(dist[1, 2, 1:], 0.5) and np.allclose(dist[3, 4, 1:], 0.5)
    assert no_data_mask(GAME, table).sum() == 2
    table[5, 5] = 0.0
    with pytest.raises(ZeroBasedError, match="at <5,5>"):
        policy_distribution(GAME, table)
    table[5, 5] = 1.5
    with pytest.raises(SolverError, match="whole numbers"):
        policy_distribution(GAME, table)
    table[5, 5] = np.inf
    with pytest.raises(SolverError, match="whole numbers"):
        policy_distribution(GAME, table)


# -------------------------------------------------------------------------- distribution
def test_a_distribution_marks_no_data_with_a_row_of_nan_only(sol):
    dist = solver.optimal_distribution(sol).copy()
    dist[2, 3] = np.nan
    filled = policy_distribution(GAME, dist)
    assert filled[2, 3].tolist() == [0.0, 0.5, 0.5]
    learned = compare.learned_from_policy(GAME, dist)
    assert not learned.has_data[2, 3] and learned.has_data.sum() == GAME.states - 1
    with pytest.raises(SolverError, match="no data \\(NaN\\) at <2,3>; fill='error'"):
        policy_distribution(GAME, dist, fill="error")
    dist[2, 3] = 0.0  # a row of zeros is not "no data": it sums to 0
    with pytest.raises(SolverError, match="sum to 1 per state \\(a state without data: a row of "
                       "NaN\\)"):
        policy_distribution(GAME, dist)
    dist[2, 3] = [0.0, 0.5, np.nan]
    with pytest.raises(SolverError, match="partly NaN at <2,3>"):
        policy_distribution(GAME, dist)


def test_compare_on_the_handouts_game_refuses_the_optimal_table_minus_one():
    """The issue's numbers: the optimal table minus one read as 'no data' gave 0.388."""
    sol = solver.solve(HANDOUT)
    with pytest.raises(compare.CompareError, match="zero_based=True"):
        compare.compare(HANDOUT, sol, sol.best - 1)
    c = compare.compare(HANDOUT, sol, sol.best - 1, zero_based=True)
    assert c.metrics["exploitability"] == pytest.approx(0.0, abs=1e-12)


def test_seat_pair_arguments_are_checked(sol):
    with pytest.raises(SolverError, match="not both"):
        solver.exploitability(GAME, sol, first=sol)
    with pytest.raises(SolverError, match="both first= and second="):
        solver.exploitability(GAME, first=sol)
    with pytest.raises(SolverError, match="needs a policy"):
        solver.exploitability(GAME)
    # one policy in both seats: the pair's number is the policy's
    rng = np.random.default_rng(5)
    table = rng.integers(1, 3, size=GAME.shape)
    assert solver.exploitability(GAME, first=table, second=table) == pytest.approx(
        solver.exploitability(GAME, table), abs=1e-15)
    br = solver.best_response(GAME, table)
    values = solver.seat_values(GAME, table, table)
    assert (values.first, values.second) == (br.first, br.second)
    assert values.nash_conv == pytest.approx(2 * br.exploitability)
