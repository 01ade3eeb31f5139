"""`grade --run` on the corpus of standalone student programs (tests/students/programs/, written
from the handout): every language and input convention found, faithful programs not failing,
the planted bugs and slips caught and named, and every hostile program one row saying why
while the batch goes on. A language whose compiler is missing here is skipped, saying so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig
from dicejack.grade import programs as pg
from dicejack.grade.programs.tiebreak import ROLE as TIEBREAK_ROLE
from dicejack.runtime import sandbox as sb

CORPUS = Path(__file__).resolve().parents[2] / "students" / "programs"
ASSIGNED = pg.Settings(6, 10, 12, 2, 10.0, 2000)
#: The assigned run once; two runs at each of the fixed probes of earlier versions (the
#: print-flag count needs two).
PLAN = """
[[setting]]
sides = 6
low = 40
high = 42
dice = 2
m = 100
games = 20000
runs = 2

[[setting]]
sides = 6
low = 20
high = 22
dice = 2
m = 1000
games = 2000
runs = 2
"""
NEEDS = {"cpp_argv": "g++", "java_stdin": "javac", "java_by_wins": "javac", "c_file": "gcc",
         "c_by_plays": "gcc", "c_compile_error": "gcc"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3"),
]


def _runner(timeout: float) -> pg.Runner:
    try:
        box = sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")
    return pg.Runner(box, sb.Limits(wall_seconds=timeout, cpu_seconds=int(timeout)))


def _available(names: list[str]) -> list[str]:
    return [n for n in names if shutil.which(NEEDS.get(Path(n).name, "python3"))]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("refs")


@pytest.fixture(scope="module")
def corpus(cache, tmp_path_factory):
    names = _available(["faithful/learn_argv.py", "faithful/learn_stdin_lines.py",
                        "faithful/java_stdin", "faithful/c_file", "faithful/cpp_argv",
                        "bugs/wrong_m.py",
                        "bugs/java_by_wins", "bugs/c_by_plays", "bugs/c_compile_error",
                        "bugs/fixed_table.py"])
    out = tmp_path_factory.mktemp("out")
    config = GradeConfig(Game(6, 10, 12, 2), 10.0, 2000)
    plan = pg.parse_plan(PLAN, assigned=ASSIGNED, runs=1)
    batch = pg.grade_programs(config, plan, [CORPUS / n for n in names], _runner(120.0),
                              cache_dir=cache, out=out / "gradebook.csv",
                              runs_out=out / "runs.csv")
    return {s.label: s for s in batch.students}, out


def _student(corpus, name):
    students, _ = corpus
    if name not in students:
        pytest.skip(f"{NEEDS.get(name)} is not installed: {name} not run")
    return students[name]


@pytest.mark.parametrize("name, convention", [
    ("learn_argv.py", "argv: {sides} {low} {high} {dice} {m} {games}"),
    ("learn_stdin_lines.py", "stdin: {sides} | {low} | {high} | {dice} | {m} | {games}"),
    ("java_stdin", "stdin: {dice} {sides} {low} {high} {m} {games}"),
    ("c_file", "file input.txt: {sides} {low} {high} {dice} {m} {games}"),
    ("cpp_argv", "argv: {dice} {sides} {low} {high} {m} {games}"),
])
def test_faithful_programs_are_found_and_do_not_fail(corpus, name, convention):
    s = _student(corpus, name)
    assert s.convention == convention
    assert s.grade.status == "ok" and s.grade.verdict in ("pass", "review"), s.grade.error
    # the plan's five runs (a review may add tie-break runs: tiebreak.ROLE), none failed
    planned = [r for r in s.runs if r.setting.role != TIEBREAK_ROLE]
    assert len(planned) == 5 and all(not r.failed for r in s.runs)
    assert f"input {convention}" in s.grade.layout


@pytest.mark.parametrize("name", ["java_by_wins", "c_by_plays"])
def test_print_only_slips_are_caught_by_the_probes(corpus, name):
    s = _student(corpus, name)
    assert s.grade.verdict in ("review", "fail")  # never a pass
    assert any(f.startswith("printed-") for f in s.grade.flags), s.grade.flags
    assert s.joint is not None and s.joint.slip_flags >= 2


def test_a_wrong_m_is_inconsistent_and_named(corpus):
    s = _student(corpus, "wrong_m.py")
    assert s.grade.verdict in ("review", "fail") and "inconsistent" in s.grade.flags
    assert "m-tenth" in s.grade.flags and "m-tenfold" not in s.grade.flags


def test_faithful_programs_are_never_named_a_wrong_m(corpus):
    students, _ = corpus
    for name in ("learn_argv.py", "learn_stdin_lines.py", "java_stdin", "c_file", "cpp_argv"):
        if name in students:
            assert not {"m-tenth", "m-tenfold"} & set(students[name].grade.flags), name


def test_a_compile_error_is_the_rows_reason(corpus):
    s = _student(corpus, "c_compile_error")
    assert s.grade.status == "error" and "does not compile" in s.grade.error
    assert "undeclared_total" in s.grade.error


def test_fixed_tables_are_flagged_ignores_settings(corpus):
    """No input convention fits: held for a look (never a fail from detection's guess)."""
    s = _student(corpus, "fixed_table.py")
    assert s.grade.verdict == "review" and "ignores-settings" in s.grade.flags
    assert "input-unknown" in s.grade.flags and s.grade.held == "review"
    assert "10x10 tables" in s.grade.error and "--input" in s.grade.error


def test_the_lms_gets_decided_grades_only_by_default(corpus):
    """As `grade`: with no lms_hold, review and unreadable rows are held back from the LMS."""
    students, _ = corpus
    assert students, "no program ran"
    for s in students.values():
        g = s.grade
        expected = ("unreadable" if g.status == "error" and g.verdict != "review"
                    else "review" if g.verdict == "review" else "")
        assert g.held == expected, (s.label, g.status, g.verdict, g.held)
    assert any(s.grade.held for s in students.values())


def test_the_gradebook_and_the_runs_csv(corpus):
    students, out = corpus
    gradebook = (out / "gradebook.csv").read_text().splitlines()
    assert len(gradebook) == 1 + len(students)
    runs = (out / "runs.csv").read_text().splitlines()
    assert runs[0] == ",".join(pg.RUNS_HEADER)
    assert len(runs) == 1 + sum(len(s.runs) for s in students.values())
    page = (out / "runs.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Holm-adjusted" in page
    assert all(f"<h2>{name}" in page for name in students)


def test_printouts_made_beforehand_cannot_pass_probes_drawn_from_a_secret(cache, tmp_path):
    """A program printing tables made beforehand (by a faithful learner) for the assigned
    settings, the tiny game and fixed probes gets through a plan of those settings, every run
    graded; at probes drawn from a secret its tables are of the wrong size and it fails."""
    from tests.students import FAITHFUL, run_student

    student = next(s for s in FAITHFUL.values() if s.compiled)
    fixed = pg.parse_plan(PLAN, assigned=ASSIGNED, runs=2)
    known = {}

    def key_of(st: pg.Settings) -> str:
        return " ".join(st.values()[f] for f in ("sides", "low", "high", "dice", "m", "games"))

    for st in [pg.TINY, *(s.settings for s in fixed.settings)]:
        known[key_of(st)] = [run_student(student, st.sides, st.low, st.high, st.dice, st.m,
                                         st.games, seed) for seed in (11, 12, 13)]
    # what it prints for settings it does not know: the assigned ones' tables (never the tiny
    # game's, which would fit detection under every order: a tie, held)
    fallback = key_of(ASSIGNED)
    folder = tmp_path / "cheat"
    folder.mkdir()
    (folder / "learn.py").write_text(
        f"import random, sys\nT = {known!r}\nkey = ' '.join(sys.argv[1:])\n"
        f"print(random.choice(T.get(key, T[{fallback!r}])))\n")
    config = GradeConfig(Game(6, 10, 12, 2), 10.0, 2000)
    argv = (pg.parse_convention("argv: {sides} {low} {high} {dice} {m} {games}"),)
    before = pg.grade_programs(config, fixed, [folder], _runner(60.0), cache_dir=cache,
                               conventions=argv).students[0]
    assert before.grade.status == "ok" and not any(r.failed for r in before.runs)
    drawn = pg.default_plan(ASSIGNED, 2, secret="printouts made beforehand")
    after = pg.grade_programs(config, drawn, [folder], _runner(60.0), cache_dir=cache,
                              conventions=argv).students[0]
    assert after.grade.verdict == "fail" and "probe run" in after.grade.error
    # and so does the detection that found its convention by the tiny game's tables
    found = pg.grade_programs(config, drawn, [folder], _runner(60.0), cache_dir=cache)
    assert found.students[0].convention.startswith("argv") and found.grades[0].verdict == "fail"


HOSTILE = {
    "fork_bomb.py": "timed out",
    "memory_hog.py": ("MemoryError", "timed out"),  # zeroing 1 GiB is slow on a busy machine
    "infinite_loop.py": ("timed out", "CPU-time"),
    "huge_output.py": "output limit",
    "snoop.py": "no tables read",
    "phone_home.py": "Network is unreachable",
    "sleeper.py": "timed out",
}


def test_hostile_programs_each_end_as_one_row(cache):
    names = [f"hostile/{n}" for n in HOSTILE] + ["faithful/learn_argv.py"]
    config = GradeConfig(Game(6, 10, 12, 2), 10.0, 2000)
    plan = pg.parse_plan("", assigned=ASSIGNED, runs=1)
    batch = pg.grade_programs(config, plan, [CORPUS / n for n in names], _runner(10.0),
                              cache_dir=cache)
    rows = {s.label: s.grade for s in batch.students}
    assert set(rows) == {*HOSTILE, "learn_argv.py"}
    for name, why in HOSTILE.items():
        g = rows[name]
        # a build's failure fails; no input convention found at the tiny game is held
        assert g.status == "error" and g.verdict in ("fail", "review") and g.held, name
        reasons = why if isinstance(why, tuple) else (why,)
        assert any(r in g.error for r in reasons), (name, g.error)
    assert rows["learn_argv.py"].status == "ok"  # the batch went on


def test_what_the_intake_decided_is_in_the_students_notes(cache, tmp_path):
    """Two files of one student wanting one name: the LMS's latest is graded and the row's notes
    say which was kept."""
    if shutil.which("javac") is None:
        pytest.skip("javac is not installed")
    flat = tmp_path / "download"
    flat.mkdir()
    (flat / "ann_7_10_Learner.java").write_text("public class Learner { /* a draft */ }\n")
    (flat / "ann_7_12_Learner-1.java").write_text(
        (CORPUS / "layouts" / "canvas_java" / "student_1003_5003_Learner.java").read_text())
    tiny = pg.Settings(6, 7, 9, 2, 10.0, 300)
    config = GradeConfig(Game(6, 7, 9, 2), 10.0, 300)
    plan = pg.RunPlan((pg.PlannedSetting(tiny, "assigned", 1),))
    batch = pg.grade_programs(config, plan, [flat], _runner(60.0), cache_dir=cache,
                              conventions=(pg.parse_convention(
                                  "argv: {sides} {low} {high} {dice} {m} {games}"),))
    (only,) = batch.students
    assert only.grade.status == "ok" and only.grade.student == "7"
    assert "kept the latest, ann_7_12_Learner-1.java" in only.grade.notes
