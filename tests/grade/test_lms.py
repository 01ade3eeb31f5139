"""Grades out: the LMS grades CSV (generic, Canvas, Moodle), Gradescope's results.json checked
against its documented keys and types, and a student's self-check on the terminal."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import warnings

import numpy as np
import pytest

import dicejack.grade.outputs.lms as grade_lms
from dicejack import grade
from dicejack.cli import main
from dicejack.grade import Grade
from dicejack.grade.outputs.gradebook import GRADEBOOK_HEADER
from dicejack.grade.outputs.lms import (
    GRADESCOPE_VISIBILITY,
    LMS_FORMATS,
    gradescope_results,
    is_lms_csv,
    student_scores,
)

from .support import CONFIG, GAMES, grade_of, layouts, tables, write

GAME_ARGS = ["--sides", "4", "--low", "8", "--high", "9", "--dice", "2", "-m", "100",
             "--games", str(GAMES)]


def _g(submission, status="ok", score=90.0, verdict="pass", student="", name="", lms="",
       error="", flags=()):
    return Grade(submission=submission, status=status, score=score, verdict=verdict, error=error,
                 student=student, student_name=name, lms=lms, flags=tuple(flags))


BATCH = [
    _g("s.zip!__MACOSX/", "skipped", 0.0, "", error="macOS archive metadata, not searched"),
    _g("s.zip!smithjohn_12345_1_out.txt", score=72.5, verdict="review", student="12345",
       name="smithjohn", lms="canvas", flags=["low-quality"]),
    _g("s.zip!smithjohn_12345_2_out2.txt", score=95.0, student="12345", name="smithjohn",
       lms="canvas"),
    _g("s.zip!leeann_23456_3_main.py", "skipped", 0.0, "", student="23456", name="leeann",
       lms="canvas", error="source code, not the program's printed output"),
    _g("s.zip!doejane_34567_text.html", "error", 0.0, "fail", student="34567", name="doejane",
       lms="canvas", error="found no numeric table"),
    _g("m.zip!Ann Lee_1001_assignsubmission_file_/out.txt", score=100.0, student="1001",
       name="Ann Lee", lms="moodle"),
    _g("g.zip!submission_222/out.txt", score=88.0, student="200;two@example.edu",
       name="Pair One; Pair Two", lms="gradescope"),
    _g("subs/=cmd|x.txt", score=61.0, verdict="review"),
]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_student_scores_one_line_per_student():
    lines = {s.student: s for s in student_scores(BATCH)}
    assert list(lines) == ["12345", "23456", "34567", "1001", "200", "two@example.edu",
                           "=cmd|x"]
    smith = lines["12345"]
    assert smith.score == 95.0 and smith.verdict == "pass"
    assert "2 files: kept s.zip!smithjohn_12345_2_out2.txt (the latest)" in smith.note
    assert lines["23456"].score is None and "main.py skipped (source code" in lines["23456"].note
    assert lines["34567"].score == 0.0 and "not graded: found no numeric table" in lines[
        "34567"].note
    assert lines["two@example.edu"].name == "Pair Two" and lines["200"].score == 88.0
    assert "no LMS identifier" in lines["=cmd|x"].note


def test_generic_lms_csv():
    rows = _rows(grade_lms.lms_csv(BATCH))
    assert rows[0] == ["student", "score", "max_score", "name", "verdict", "submissions", "note"]
    assert [r[:5] for r in rows[1:]] == [
        ["12345", "95.0", "100", "smithjohn", "pass"],
        ["23456", "", "100", "leeann", ""],
        ["34567", "0.0", "100", "doejane", "fail"],
        ["1001", "100.0", "100", "Ann Lee", "pass"],
        ["200", "88.0", "100", "Pair One", "pass"],
        ["two@example.edu", "88.0", "100", "Pair Two", "pass"],
        ["'=cmd|x", "61.0", "100", "", "review"],  # never a spreadsheet formula
    ]
    assert rows[1][5] == "s.zip!smithjohn_12345_1_out.txt;s.zip!smithjohn_12345_2_out2.txt"


def test_canvas_and_moodle_columns():
    rows = _rows(grade_lms.lms_csv(BATCH, "canvas", assignment="Lab 3 (4711)"))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 3 (4711)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "100"]
    assert rows[2] == ["smithjohn", "12345", "", "", "", "95.0"]
    assert rows[5] == ["Ann Lee", "", "", "1001", "", "100.0"]  # not a Canvas id: SIS Login ID
    now = dt.datetime(2024, 3, 1, 9, 30)
    rows = _rows(grade_lms.lms_csv(BATCH, "moodle", now=now))
    assert rows[0] == ["Identifier", "Full name", "Grade", "Last modified (grade)"]
    assert rows[4] == ["Participant 1001", "Ann Lee", "100.0", "2024-03-01 09:30:00"]
    rows = _rows(grade_lms.lms_csv(BATCH, "Blackboard", assignment="Lab 3 |4711"))
    assert rows[0] == ["Username", "Last Name", "First Name", "Lab 3 |4711 [Total Pts: 100 Score]"]
    assert rows[1] == ["12345", "", "", "95.0"]
    assert is_lms_csv(grade_lms.lms_csv(BATCH, "blackboard").encode())
    with pytest.raises(grade.GradeError, match="generic, canvas, moodle, blackboard"):
        grade_lms.lms_csv(BATCH, "excel")


GRADESCOPE_KEYS = {"score": (int, float), "max_score": (int, float), "output": str,
                   "tests": list}
TEST_KEYS = {"name": str, "score": (int, float), "max_score": (int, float), "output": str,
             "visibility": str}


def _check_results(data: dict) -> None:
    """results.json as Gradescope documents it (gradescope-autograders.readthedocs.io/specs)."""
    json.loads(json.dumps(data, allow_nan=False))  # valid JSON: no NaN
    for key, kind in GRADESCOPE_KEYS.items():
        assert isinstance(data[key], kind), key
    assert data["visibility"] in GRADESCOPE_VISIBILITY
    assert 0 <= data["score"] <= data["max_score"] == 100
    assert data["tests"]
    for t in data["tests"]:
        for key, kind in TEST_KEYS.items():
            assert isinstance(t[key], kind), (key, t)
        assert t["visibility"] in GRADESCOPE_VISIBILITY
        assert 0 <= t["score"] <= t["max_score"] and t["status"] in ("passed", "failed")
    assert sum(t["max_score"] for t in data["tests"]) == pytest.approx(data["max_score"])
    assert sum(t["score"] for t in data["tests"]) == pytest.approx(data["score"], abs=0.1)


def test_gradescope_results_keys_and_types(refs):
    best, prob = tables(seed=41)
    good = grade.grade_text(refs, layouts(best, prob)["grid"], name="output.txt")
    data = gradescope_results(refs, good, visibility="after_published")
    _check_results(data)
    assert data["score"] == good.score and data["extra_data"]["verdict"] == good.verdict
    assert [t["name"] for t in data["tests"]] == [
        "Format: the two tables are readable", "Quality: agreement_decisive",
        "Quality: rmse_onpath", "Quality: score_vs_optimal",
        "Consistency with the handout's algorithm"]
    assert {t["visibility"] for t in data["tests"]} == {"after_published"}
    assert "Score" in data["output"] and "Worst states" in data["output"]

    flipped = grade_of(refs, best.T, prob.T, submission="t.txt")
    data = gradescope_results(refs, flipped)
    _check_results(data)
    assert "transposed" in data["tests"][0]["output"] and data["tests"][0]["score"] == 0
    assert "would be" in data["output"]

    bad = grade.grade_text(refs, "Segmentation fault\n", name="out.txt")
    data = gradescope_results(refs, bad)
    _check_results(data)
    assert data["score"] == 0 and all(t["score"] == 0 for t in data["tests"])
    assert "could not be graded" in data["output"] and data["extra_data"]["verdict"] == "fail"
    with pytest.raises(grade.GradeError, match="visible, hidden, after_due_date"):
        gradescope_results(refs, good, visibility="public")


def test_gradescope_grades_one_submission_folder(refs, tmp_path):
    sub = tmp_path / "submission"
    sub.mkdir()
    write(sub, "output.txt", layouts(*tables(seed=42))["csv"])
    write(sub, "learner.py", "print('...')\n")
    results = tmp_path / "results.json"
    grade.grade_files(CONFIG, [sub], gradescope=results, cache_dir=False)
    text = results.read_text()
    data = json.loads(text)
    _check_results(data)
    assert "learner.py (source code" in data["output"]
    grade.grade_files(CONFIG, [sub], gradescope=results, cache_dir=False)  # its own: replaced
    write(sub, "output2.txt", "more\n")
    results.write_text(text)
    with pytest.raises(grade.GradeError, match=r"one submission; found 2: .*output\.txt, "):
        grade.grade_files(CONFIG, [sub], gradescope=results, cache_dir=False)
    (tmp_path / "notes.json").write_text('{"mine": 1}')
    with pytest.raises(grade.GradeError, match="not a dicejack results.json"):
        grade.grade_files(CONFIG, [sub / "output.txt"], gradescope=tmp_path / "notes.json",
                          cache_dir=False)
    # only a document uploaded: a results.json that says so, score 0
    only = tmp_path / "only"
    only.mkdir()
    write(only, "answers.docx", b"PK\x03\x04")
    grade.grade_files(CONFIG, [only], gradescope=results, cache_dir=False)
    data = json.loads(results.read_text())
    _check_results(data)
    assert data["score"] == 0 and "answers.docx was skipped: a document" in data["output"]


def test_lms_csv_outputs_are_checked_and_replace_only_their_own(tmp_path):
    sub = write(tmp_path, "smithjohn_12345_1_out.txt", layouts(*tables(seed=43))["labelled"])
    marks = tmp_path / "marks.csv"
    marks.write_text("name,mark\nalice,17\n")
    with pytest.raises(grade.GradeError, match="not a dicejack LMS grades CSV"):
        grade.grade_files(CONFIG, [sub], lms_csv=marks, cache_dir=False)
    with pytest.raises(grade.GradeError, match="lms_csv .* is also out"):
        grade.grade_files(CONFIG, [sub], out=marks, lms_csv=marks, cache_dir=False)
    with pytest.raises(grade.GradeError, match="lms_format must be one of"):
        grade.grade_files(CONFIG, [sub], lms_csv=tmp_path / "g.csv", lms_format="excel",
                          cache_dir=False)
    for fmt in LMS_FORMATS:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            grade.grade_files(CONFIG, [sub], lms_csv=tmp_path / "g.csv", lms_format=fmt,
                              cache_dir=False)  # each replaces the previous one
        mismatch = [str(w.message) for w in seen if issubclass(w.category, grade.GradeWarning)]
        assert bool(mismatch) == (fmt in ("moodle", "blackboard")), (fmt, mismatch)
        assert all("were named by Canvas" in m for m in mismatch)
    assert _rows((tmp_path / "g.csv").read_text())[1][0] == "12345"  # moodle: not a participant
    assert marks.read_text() == "name,mark\nalice,17\n"
    # a gradebook of the previous version (no student column) is still ours to replace
    old = tmp_path / "old.csv"
    old.write_text(",".join(GRADEBOOK_HEADER[:-4]) + "\nx,ok\n")
    grade.grade_files(CONFIG, [sub], out=old, cache_dir=False)
    assert old.read_text().startswith(",".join(GRADEBOOK_HEADER) + "\n")


def test_a_student_checks_one_file_on_the_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    best, prob = tables(seed=44)
    mine = write(tmp_path, "my_output.txt", layouts(best.T, prob.T)["grid"])
    code = main(["grade", str(mine), *GAME_ARGS])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = captured.out
    assert "dicejack grade: " in out and "Score " in out and "/ 100" in out
    assert "what to check first" in out and "transposed" in out and "would be" in out
    assert "Worst states" in out and "Consistency with the handout's algorithm" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_output.txt"]  # no gradebook
    code = main(["grade", str(mine), *GAME_ARGS, "--out", "book.csv"])
    assert code == 0 and (tmp_path / "book.csv").read_text().startswith("submission,")
    # several files: the batch as before, gradebook.csv by default
    other = write(tmp_path, "other.txt", layouts(best, prob)["csv"])
    code = main(["grade", str(mine), str(other), *GAME_ARGS])
    captured = capsys.readouterr()
    assert code == 0 and "2 submissions:" in captured.out
    assert (tmp_path / "gradebook.csv").is_file()


def test_cli_gradescope_and_lms_options(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    a = write(tmp_path, "a_1_2_out.txt", layouts(*tables(seed=45))["list"])
    b = write(tmp_path, "b_3_4_out.txt", layouts(*tables(seed=46))["list"])
    code = main(["grade", str(a), str(b), *GAME_ARGS, "--gradescope", "r.json"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --gradescope grades one submission; found 2")
    assert err.count("\n") == 1 and not (tmp_path / "r.json").exists()
    code = main(["grade", str(a), *GAME_ARGS, "--gradescope", "r.json",
                 "--gradescope-visibility", "hidden"])
    captured = capsys.readouterr()
    assert code == 0 and "Score " in captured.out and "wrote r.json" in captured.err
    data = json.loads((tmp_path / "r.json").read_text())
    _check_results(data)
    assert data["visibility"] == "hidden" and not (tmp_path / "gradebook.csv").exists()
    code = main(["grade", str(a), str(b), *GAME_ARGS, "--lms-csv", "lms.csv", "--lms-format",
                 "canvas", "--lms-assignment", "Lab 3"])
    assert code == 0
    rows = _rows((tmp_path / "lms.csv").read_text())
    assert rows[0][-1] == "Lab 3" and [r[1] for r in rows[2:]] == ["1", "3"]
    code = main(["grade", str(a), *GAME_ARGS, "--lms-csv", "x.csv", "--lms-format", "excel"])
    err = capsys.readouterr().err
    assert code == 2 and "--lms-format must be one of generic, canvas, moodle" in err


def test_to_frame_has_typed_columns(refs, tmp_path):
    pd = pytest.importorskip("pandas")
    best, prob = tables(seed=47)
    paths = [write(tmp_path, "x_1_2_a.txt", layouts(best, prob)["grid"]),
             write(tmp_path, "bad.txt", "nothing\n")]
    book = grade.grade_files(CONFIG, paths, cache_dir=False)
    frame = book.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2
    assert frame["score"].dtype == np.float64 and frame["student"].tolist() == ["1", ""]
    assert frame["consistency_p"].iloc[0] == pytest.approx(book.grades[0].consistency_p)
    assert np.isnan(frame["consistency_p"].iloc[1]) and frame["status"].tolist() == ["ok", "error"]
    assert {"agreement_all", "regret_decisive", "lms"} <= set(frame.columns)
