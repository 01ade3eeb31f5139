"""The print-rule checks (grade.print_rules): the rules applied to counts by hand, the family's
calibration (a held-out faithful run is never flagged; too few held-out runs: not run), and a
print-only slip caught for review with its flag and hint."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dicejack import grade
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.print_model import PRINT_RULES, rule_tables
from dicejack.grade.evidence.print_rules import print_check
from dicejack.grade.outputs.student_reports import report_markdown
from dicejack.grade.scoring.rubric import (
    ALPHA_PRINT,
    FLAG_HINTS,
    P_INCONSISTENT,
    P_REVIEW,
    REVIEW_FLAGS,
    verdict_for,
)
from dicejack.learners import handout

GAME = Game(6, 15, 17, 2)  # the handout's game


def _counts(*states):
    """(1, 1, 3) WinCount / LoseCount tables from (win, lose) per J = 1, 2 of one state."""
    win = np.zeros((1, 1, 3), dtype=np.int64)
    lose = np.zeros_like(win)
    for j, (w, n) in enumerate(states, start=1):
        win[0, 0, j], lose[0, 0, j] = w, n
    return win, lose


def test_each_rule_prints_what_it_says():
    # J = 1: 60 wins of 100 plays (0.6); J = 2: 13 of 20 (0.65, the best estimate)
    win, lose = _counts((60, 40), (13, 7))
    expect = {"faithful": ([2], 0.65), "printed-by-wins": ([1], 0.6),
              "printed-by-plays": ([1], 0.6), "printed-prob-of-most-played": ([2], 0.6)}
    for rule, (js, value) in expect.items():
        sets, v = rule_tables(win, lose, rule)
        assert np.flatnonzero(sets[0, 0]).tolist() == js, rule
        assert v[0, 0] == pytest.approx(value), rule


def test_rules_leave_ties_open_and_print_zero_without_data():
    win, lose = _counts((3, 1), (6, 2))  # 0.75 both; J = 2 has more wins and plays
    sets, v = rule_tables(win, lose, "faithful")
    assert np.flatnonzero(sets[0, 0]).tolist() == [1, 2] and v[0, 0] == 0.75
    sets, v = rule_tables(win, lose, "printed-by-wins")
    assert np.flatnonzero(sets[0, 0]).tolist() == [2]
    empty_win, empty_lose = _counts((0, 0), (0, 0))
    for rule in ("faithful", *PRINT_RULES):
        sets, v = rule_tables(empty_win, empty_lose, rule)
        assert not sets.any() and v[0, 0] == 0.0


@pytest.fixture(scope="module")
def refs():
    return grade.reference_runs(grade.GradeConfig(GAME, 100.0, 20_000), cache_dir=False)


def _printed(refs, seed, rule, decimals=4):
    run = handout.learn(GAME, 100.0, 20_000, seed)
    sets, v = rule_tables(run.win, run.lose, rule)
    policy = np.where(v > 0, sets.argmax(axis=-1), 0)
    return policy, np.where(sets.any(axis=-1), np.round(v, decimals), -1.0)


def test_a_held_out_run_is_never_flagged(refs):
    # each held-out run is one of the draws its own statistic is ranked among: p >= 2 / (C+1)
    for c in range(0, refs.held_best.shape[0], 6):
        value = np.where(refs.held_best[c] >= 1, refs.held_probability[c], 0.0)
        pc = print_check(refs, refs.held_best[c], value, None)
        assert pc.runs and pc.flag == "" and pc.p_value >= 2 / 61 - 1e-12, (c, pc)


def test_the_slip_that_fits_is_flagged_for_review_with_its_hint(refs):
    flagged = []
    for seed in range(1, 9):
        policy, prob = _printed(refs, 5_000 + seed, "printed-by-plays")
        g = grade.grade_tables(refs, policy, prob)
        assert g.verdict != "fail"
        if g.print_check.flag:
            flagged.append(g)
    # measured: most of these 8 outputs are caught; all that are, as the slip they are
    assert len(flagged) >= 4, len(flagged)
    for g in flagged:
        assert g.print_check.flag == "printed-by-plays" and g.verdict == "review"
        assert "printed-by-plays" in g.flags and g.print_check.p_value <= ALPHA_PRINT
        report = report_markdown(refs, g)
        assert "not the J played most" in report and "Print-rule checks" in report


def test_faithful_printing_of_the_same_runs_is_not_flagged(refs):
    for seed in range(1, 9):
        policy, prob = _printed(refs, 5_000 + seed, "faithful")
        assert grade.grade_tables(refs, policy, prob).print_check.flag == ""


def test_too_few_held_out_runs_cannot_reach_the_level():
    small = grade.reference_runs(grade.GradeConfig(GAME, 100.0, 5_000, references=20,
                                                   calibration=30), cache_dir=False)
    policy, prob = _printed(small, 1, "printed-by-plays")
    pc = grade.grade_tables(small, policy, prob).print_check
    assert not pc.runs and pc.flag == "" and math.isnan(pc.p_value)
    assert "not run" in grade.grade_tables(small, policy, prob).print_check.sentence()


def test_the_family_shares_the_review_level():
    assert P_INCONSISTENT + ALPHA_PRINT == pytest.approx(P_REVIEW)
    assert verdict_for(100.0, P_INCONSISTENT * 1.01, ()) == "pass"
    assert verdict_for(100.0, P_INCONSISTENT * 0.99, ()) == "review"
    for rule in PRINT_RULES:
        assert rule in REVIEW_FLAGS and rule in FLAG_HINTS
        assert verdict_for(100.0, 0.5, (rule,)) == "review"
