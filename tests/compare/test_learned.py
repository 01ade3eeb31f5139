"""compare.learned: the constructors that never guess. q-values handed as counts are refused
with the constructor to use; q-values and policies alone have their own constructors; slips in
printed tables or a table of J are warnings, not silent zeros."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dicejack import compare, solver
from dicejack.compare import CompareError, CompareWarning
from dicejack.learners import formulas, handout
from tests.games import HANDOUT


@pytest.fixture(scope="module")
def sol():
    return solver.solve(HANDOUT)


def test_q_values_handed_as_counts_are_refused_with_the_constructor_to_use(sol):
    rng = np.random.default_rng(0)
    q = rng.random(HANDOUT.table_shape)
    visits = rng.integers(0, 5, size=HANDOUT.table_shape)
    with pytest.raises(CompareError, match=r"learned_from_q\(game, q, visits\)"):
        compare.compare(HANDOUT, sol, (q, visits))
    with pytest.raises(CompareError, match="fractions or negative"):
        compare.learned_from_counts(HANDOUT, -visits, visits)


def test_learned_from_q_equals_the_counts_it_was_made_from(sol):
    run = handout.learn(HANDOUT, 100.0, 20_000, 3)
    plays = run.win + run.lose
    q = np.where(plays > 0, run.win / np.maximum(plays, 1), 0.0)
    from_q = compare.compare(HANDOUT, sol, compare.learned_from_q(HANDOUT, q, plays))
    from_counts = compare.compare(HANDOUT, sol, run)
    assert from_q.metrics == pytest.approx(from_counts.metrics, nan_ok=True)
    # the same q as returns in [-1, 1]
    returns = compare.learned_from_q(HANDOUT, 2 * q - 1, plays, returns=True)
    again = compare.compare(HANDOUT, sol, returns)
    assert again.metrics == pytest.approx(from_counts.metrics, nan_ok=True)


def test_a_policy_alone_has_no_probability_metrics_and_the_policy_ones_exact(sol):
    table = sol.best.copy()
    table[0, 0] = 3 - table[0, 0]
    for policy in (table, lambda x, y: int(table[x, y])):
        c = compare.compare(HANDOUT, sol, policy)
        assert np.isnan(c.metrics["rmse_onpath"]) and np.isnan(c.metrics["mae_onpath"])
        assert c.metrics["exploitability"] == pytest.approx(solver.exploitability(HANDOUT, table))
        assert c.metrics["agreement_all"] == pytest.approx((HANDOUT.states - 1) / HANDOUT.states)
    # a mixed policy: its own distribution, not a greedy reading of it
    dist = np.zeros(HANDOUT.table_shape)
    dist[:, :, 1:] = 0.5
    c = compare.compare(HANDOUT, sol, dist)
    assert c.metrics["exploitability"] == pytest.approx(solver.exploitability(HANDOUT, dist))
    assert c.metrics["score_vs_optimal"] < 0.45


def test_a_zero_based_table_of_j_is_refused_unless_said_and_plus_one_fixes_it(sol):
    zero_based = sol.best - 1
    with pytest.raises(CompareError, match=r"0-based policy \(actions 0\.\.1, J = action \+ 1\) "
                       r"pass zero_based=True"):
        compare.compare(HANDOUT, sol, zero_based)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        said = compare.compare(HANDOUT, sol, zero_based, zero_based=True)
        fixed = compare.compare(HANDOUT, sol, compare.action_to_dice(zero_based))
    assert said.metrics["agreement_all"] == fixed.metrics["agreement_all"] == 1.0
    assert said.metrics["exploitability"] == pytest.approx(0.0, abs=1e-12)


def test_a_table_of_j_marks_no_data_with_minus_one_or_nan_only(sol):
    table = sol.best.astype(float)
    table[3, 4] = np.nan
    table[5, 6] = -1
    learned = compare.learned_from_policy(HANDOUT, table)
    assert learned.has_data.sum() == HANDOUT.states - 2
    assert not learned.has_data[3, 4] and not learned.has_data[5, 6]


def test_transposed_printed_tables_are_a_warning(sol):
    run = handout.learn(HANDOUT, 100.0, 200_000, 1)
    best, prob = formulas.learned_tables(run.win, run.lose)
    with pytest.warns(CompareWarning, match="look transposed"):
        compare.compare(HANDOUT, sol, (best.T, prob.T))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare.compare(HANDOUT, sol, (best, prob))
        compare.compare(HANDOUT, sol, (best.T, prob.T), hints=False)


def test_an_openspiel_like_policy_without_the_bridge_says_what_to_import(sol):
    class Foreign:
        def action_probabilities(self, state):
            return {0: 1.0}

    with pytest.raises(CompareError, match="import dicejack.envs.openspiel"):
        compare.learned_from_policy(HANDOUT, Foreign())
