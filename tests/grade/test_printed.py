"""What a printed table means: every no-data, lost-state and tie convention grades alike."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.printed import graded_tables, printed_decimals
from dicejack.learners import formulas, handout

from .support import GAME, GAMES, M, grade_of, tables


def test_graded_tables_read_every_no_data_convention_as_zero():
    pol = np.array([[2, 0, 1, -1, 2, 1]]).repeat(6, axis=0)[:6, :6]
    prob = np.array([[0.6, 0.0, 0.0, -1.0, np.nan, 1.5]]).repeat(6, axis=0)
    game = Game(n_sides=3, low=6, high=7, n_dice=2)
    j, value, valid = graded_tables(game, pol, prob, np.isnan(prob) | (prob == -1))
    # estimate 0.6 keeps its J; "0/0.0", "1/0.0", "-1/-1", "2/nan" and an out-of-range 1.5
    # are all value 0 with no graded J
    np.testing.assert_array_equal(j[0], [2, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(value[0], [0.6, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(valid[0], [True, False, True, False, True, True])


def _print_conventions(run, rng):
    """dicejack's tables printed in the ways the handout leaves open."""
    best, prob = formulas.learned_tables(run.win, run.lose)
    tied = formulas.tied_best(run.win, run.lose)
    random_tie = best.copy()
    for x, y in zip(*np.nonzero(tied.sum(axis=-1) > 1), strict=True):
        random_tie[x, y] = rng.choice(np.flatnonzero(tied[x, y]))
    none = best == 0
    lost = prob == 0
    return {
        "lowest J, -1": (best, prob),
        "random tied J": (random_tie, prob),
        "0 / 0": (np.where(none | lost, 0, best), np.where(none, 0.0, prob)),
        "random J / 0.0": (np.where(none, rng.integers(1, 3, best.shape), best),
                           np.where(none, 0.0, prob)),
        "J / nan": (np.where(none, 1, best), np.where(none, np.nan, prob)),
    }


def test_printing_conventions_get_the_same_grade(refs):
    """Every convention the handout leaves open gives exactly the same statistic and score."""
    rng = np.random.default_rng(3)
    for seed in (21, 22, 23):
        run = handout.learn(GAME, M, GAMES, seed, tie_break="random")
        grades = {name: grade_of(refs, b, p, no_data=np.isnan(p) | (p == -1))
                  for name, (b, p) in _print_conventions(run, rng).items()}
        first = grades["lowest J, -1"]
        for name, g in grades.items():
            assert g.consistency.statistic == pytest.approx(first.consistency.statistic), name
            assert g.score == first.score and g.flags == first.flags, name


def test_no_data_conventions(refs):
    best, prob = tables(seed=8)
    unvisited = best == 0
    assert unvisited.any()
    as_printed = grade_of(refs, best, prob)
    # 0 / 0 for "nothing", NaN probability, or J = 1 beside -1: the same grade, no flags.
    zeros = grade_of(refs, best, np.where(unvisited, 0.0, prob))
    nans = grade_of(refs, best, np.where(unvisited, np.nan, prob), no_data=unvisited)
    ones = grade_of(refs, np.where(unvisited, 1, best), prob)
    for g in (zeros, nans, ones):
        assert g.score == as_printed.score and g.flags == as_printed.flags
        assert g.consistency_p == pytest.approx(as_printed.consistency_p)


def test_random_tie_break_and_two_decimals_still_pass(refs):
    best, prob = tables(seed=6, tie_break="random")
    assert grade_of(refs, best, prob).verdict == "pass"
    for seed in (1, 2, 8):
        best, prob = tables(seed=seed)
        full = grade_of(refs, best, prob)
        rounded = grade_of(refs, best, np.where(prob >= 0, np.round(prob, 2), -1.0))
        # the references and the null are rounded likewise: the same verdict, a close p
        assert rounded.consistency.decimals == 2 and rounded.verdict == full.verdict == "pass"
        assert abs(np.log(rounded.consistency_p / full.consistency_p)) < 1.0


def test_printed_decimals_up_to_numpys_eight():
    third = np.array([1 / 3, 0.5])
    assert printed_decimals(third) is None  # full precision
    assert printed_decimals(np.round(third, 8)) == 8  # numpy's default print
    assert printed_decimals(np.array([0.5312, 0.25])) == 4
    assert printed_decimals(np.array([0.1, 0.2, 0.3])) == 1


def test_eight_decimals_are_compared_with_references_rounded_alike(refs):
    """A table printed with numpy's 8 decimals grades like the same table at full precision
    (without rounding the references, 0.33333333 would rank below every run's 1/3)."""
    for seed in (31, 32):
        best, prob = tables(seed=seed, games=300)
        full = grade_of(refs, best, prob)
        eight = grade_of(refs, best, np.where(prob >= 0, np.round(prob, 8), -1.0))
        assert eight.decimals == 8
        assert eight.consistency.statistic == pytest.approx(full.consistency.statistic)
