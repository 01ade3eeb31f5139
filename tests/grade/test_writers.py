"""What grading writes: report names, only the gradebook and reports, plain-language reports."""

from __future__ import annotations

import dataclasses

import numpy as np

from dicejack import grade

from .support import CONFIG, grade_of, layouts, tables, write


def test_report_names_stay_inside_the_folder():
    subs = ["../../etc/passwd", "/abs/path/a.txt", "a/b.txt", "c/b.txt", "x\\..\\y.txt", ".hidden",
            "..", "", "ünï cødé.txt", "A/B.TXT", "a" * 300, "a" * 300 + "b"]
    names = grade.report_names(subs)
    assert len(set(n.lower() for n in names)) == len(names)
    for n in names:
        assert "/" not in n and "\\" not in n and not n.startswith(".") and 0 < len(n) <= 80
        assert set(n) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def test_reports_and_gradebook_are_the_only_outputs(refs, tmp_path, monkeypatch):
    work = tmp_path / "work"
    subs = work / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "bob").mkdir()
    best, prob = tables(seed=19)
    text = layouts(best, prob)["grid"]
    paths = [write(subs / "alice", "out.txt", text),
             write(subs / "bob", "out.txt", layouts(best.T, prob.T)["grid"]),
             write(subs, "=HYPERLINK(1).txt", text),
             write(subs, "bad.txt", "")]
    monkeypatch.chdir(subs)
    paths = [p.relative_to(subs) for p in paths]
    before = {p for p in tmp_path.rglob("*")}
    out = tmp_path / "book.csv"
    reports = tmp_path / "reports"
    _, grades = grade.grade_files(CONFIG, paths, out=out, reports=reports, cache_dir=False)
    created = {p for p in tmp_path.rglob("*")} - before
    assert all(p == out or p == reports or p.parent == reports for p in created), created
    mds = sorted(p.name for p in reports.glob("*.md"))
    assert len(mds) == 4 and len(list(reports.glob("*.png"))) == 3
    alice = (reports / "alice__out.txt.md").read_text()
    assert "![heatmap](alice__out.txt.png)" in alice
    # alice's and the =HYPERLINK file are the same tables: both flagged, naming each other
    assert "`copied`" in alice and "`=HYPERLINK(1).txt`" in alice
    assert grades[0].similar_to == ("=HYPERLINK(1).txt",) and grades[0].verdict == "review"
    assert grades[2].similar_to == ("alice/out.txt",) and grades[1].similar_to == ()
    assert "transposed" in (reports / "bob__out.txt.md").read_text()
    book = out.read_text()
    assert "'=HYPERLINK" in book and "\n=HYPERLINK" not in book and ",=HYPERLINK" not in book


def test_reports_open_with_a_plain_paragraph_and_what_if_scores(refs):
    best, prob = tables(seed=25)
    t = grade_of(refs, best.T, prob.T, submission="t")
    assert "transposed back" in t.what_if and t.what_if["transposed back"] > t.score + 30
    md = grade.report_markdown(refs, t)
    assert "Check first:" in md and "would be" in md
    shifted = grade_of(refs, np.where(best > 0, best - 1, 0), prob, submission="z")
    assert "data-without-policy" in shifted.flags
    assert shifted.what_if["J shifted by one"] > shifted.score
    ok = grade_of(refs, best, prob, submission="ok")
    assert ok.verdict == "pass" and "Your tables look like" in grade.report_markdown(refs, ok)
    review = grade.plain_summary(dataclasses.replace(ok, verdict="review"))
    assert "5% of correct programs" in review


def test_the_terminal_table_shows_the_student_first_and_counts_that_add_up():
    long = "moodle.zip!Ann Lee_500012_assignsubmission_file_/" + "x" * 40 + "/output.txt"
    grades = [grade.Grade(long, "ok", score=97.5, verdict="pass", student="500012",
                          student_name="Ann Lee"),
              grade.Grade("b/out.txt", "error", error="submission is empty", student="500013"),
              grade.Grade("notes.docx", "skipped", verdict="", error="a document")]
    lines = grade.summary_text(grades).splitlines()
    assert lines[0].startswith("student ") and lines[1].startswith("500012 (Ann Lee)  moodle.zip")
    assert "..." in lines[1] and lines[1].split()[4].endswith("/output.txt")  # both ends kept
    assert " unreadable " in lines[2] and " fail " not in lines[2]
    assert lines[-1] == "2 submissions: 1 pass, 0 review, 0 fail, 1 unreadable (1 other file " \
                        "skipped)"
    one = grade.summary_text(grades[:1]).splitlines()[-1]
    assert one == "1 submission: 1 pass, 0 review, 0 fail, 0 unreadable"
    plain = grade.summary_text([grade.Grade("a.txt", "ok", score=1.0, verdict="fail")])
    assert plain.startswith("submission ")  # no student column when no LMS named anyone
