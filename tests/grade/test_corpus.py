"""Grading measured on the independent student corpus (tests/students), not on dicejack's own
output: every faithful printing convention passes at about the nominal rate and never fails;
the bug classes students really make are caught; the print-only slips are caught by the
print-rule checks (review, never fail); copies are flagged.

A small game keeps this fast; benchmarks/bench_grading_corpus.py measures five larger games
(docs/grading.md quotes its tables)."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import grade
from dicejack.formats.submission import read_submission_text
from dicejack.grade.evidence.print_model import PRINT_RULES
from dicejack.grade.scoring.copied import mark_copies
from dicejack.grade.scoring.rubric import ALPHA_PRINT, P_INCONSISTENT
from dicejack.grade.settings import REFERENCE_SEED
from tests import students
from tests.games import SMALL as GAME

pytestmark = pytest.mark.slow  # the corpus: every student program, many seeds

M = 100.0
GAMES = 20_000
SETS = 3  # independent reference sets
RUNS = 12  # fresh runs per faithful convention and set
BUG_RUNS = 5  # per bug and set
PLAIN_PYTHON_RUNS = 2  # the slow plain-Python student, per set
SLIP_RUNS = 6  # per print-only slip and set
#: print-only slips the checks must see at least a third of the time on this game (measured:
#: about half); printed-by-wins changes the print only where two J are nearly tied and is
#: measured only (docs/grading.md, "Print-rule checks")
REQUIRED_SLIPS = ("printed-by-plays", "printed-prob-of-most-played")
#: bugs the grader must catch; raw-wincount and fj-zero are near-equivalent (measured only)
REQUIRED = ("pb-factor-misplaced", "xy-swapped", "last-sampled", "integer-division", "greedy",
            "m-tenth", "m-tenfold")


def _grade_corpus(group: dict[str, students.Student], runs: int, base: int):
    """{name: [(p, verdict, print-rule flag), ...]} over SETS reference sets, fresh seeds per
    set."""
    out: dict[str, list[tuple[float, str, str]]] = {}
    for s in range(SETS):
        refs = grade.reference_runs(
            grade.GradeConfig(GAME, M, GAMES, seed=REFERENCE_SEED + 10_000 * s),
            cache_dir=False)
        for i, (name, student) in enumerate(group.items()):
            n = runs if student.compiled else PLAIN_PYTHON_RUNS
            for r in range(n):
                seed = base + 100_000 * s + 1_000 * i + r
                text = students.run_student(student, GAME.n_sides, GAME.low, GAME.high,
                                            GAME.n_dice, M, GAMES, seed)
                g = grade.grade_text(refs, text, name=f"{name}-{seed}")
                assert g.status == "ok", (name, g.error)
                out.setdefault(name, []).append((g.consistency_p, g.verdict, g.print_check.flag))
    return out


@pytest.fixture(scope="module")
def faithful():
    return _grade_corpus(students.FAITHFUL, RUNS, 7_000_000)


@pytest.fixture(scope="module")
def buggy():
    return _grade_corpus(students.BUGS, BUG_RUNS, 8_000_000)


@pytest.fixture(scope="module")
def slips():
    return _grade_corpus(students.SLIPS, SLIP_RUNS, 8_500_000)


def _share(rows, test) -> float:
    return float(np.mean([test(p, v) for p, v, _ in rows]))


def _flagged(rows) -> float:
    return float(np.mean([bool(flag) for _, _, flag in rows]))


def test_faithful_conventions_pass_at_the_nominal_rate(faithful):
    rows = [row for v in faithful.values() for row in v]
    assert len(faithful) == len(students.FAITHFUL) and len(rows) > 400
    alarms = _share(rows, lambda p, v: p < P_INCONSISTENT)
    printed = _flagged(rows)
    not_passing = _share(rows, lambda p, v: v != "pass")
    assert alarms <= P_INCONSISTENT + 0.03, alarms
    assert printed <= ALPHA_PRINT + 0.03, printed
    assert not_passing <= 0.05 + 0.05, not_passing
    for name, v in faithful.items():
        # a convention the null did not cover would sit far above nominal (0/0 read as "no
        # data" sent most of them to review before); 15% leaves room for 36 runs' spread
        # (the plain-Python student has too few runs here for a per-convention check)
        if students.FAITHFUL[name].compiled:
            assert _share(v, lambda p, v: p < 0.05) <= 0.15, (name, v)


def test_faithful_programs_never_fail(faithful):
    fails = {name: sum(v == "fail" for _, v, _ in rows) for name, rows in faithful.items()}
    assert sum(fails.values()) == 0, fails


def test_real_bugs_are_caught(buggy):
    caught = {name: _share(rows, lambda p, v: v != "pass") for name, rows in buggy.items()}
    for name in REQUIRED:
        assert caught[name] >= 0.8, caught


def test_print_only_slips_are_caught_for_review(slips):
    assert set(slips) == set(students.SLIP_NAMES)
    for name, rows in slips.items():
        assert all(v != "fail" for _, v, _ in rows), (name, rows)  # review, never fail
        assert all(flag in ("", *PRINT_RULES) for _, _, flag in rows)
    for name in REQUIRED_SLIPS:
        rows = slips[name]
        right = np.mean([flag == name for _, _, flag in rows])
        assert right >= 1 / 3, (name, rows)
        assert all(v == "review" for _, v, flag in rows if flag), (name, rows)


def test_copies_of_corpus_outputs_are_flagged():
    refs = grade.reference_runs(grade.GradeConfig(GAME, M, GAMES), cache_dir=False)
    texts = []
    for i, (name, student) in enumerate(students.FAITHFUL.items()):
        if student.compiled:
            for r in range(3):
                texts.append((f"{name}-{r}", students.run_student(
                    student, GAME.n_sides, GAME.low, GAME.high, GAME.n_dice, M, GAMES,
                    9_000_000 + 1_000 * i + r)))
    # one output re-printed by another "student" in another layout, rounded to 3 decimals
    orig_name, orig = texts[4]
    sub = read_submission_text(orig, GAME.low, GAME.n_dice)
    prob = np.where(sub.no_data, -1.0, sub.probability)
    copy = ("best dice\n" + "\n".join(" ".join(map(str, row)) for row in sub.policy)
            + "\nprobability\n"
            + "\n".join(" ".join(f"{v:.3f}" if v >= 0 else "-1" for v in row) for row in prob))
    batch = [*texts, ("copy", copy), ("exact", orig)]
    grades = mark_copies(refs, [grade.grade_text(refs, t, name=n) for n, t in batch])
    flagged = {g.submission: g.similar_to for g in grades if g.similar_to}
    assert set(flagged) == {orig_name, "copy", "exact"}, flagged
    assert set(flagged[orig_name]) == {"copy", "exact"}
