"""grade.outputs.student_reports and explanations: names inside the folder, only the gradebook
and reports written, plain-language reports."""

from __future__ import annotations

import dataclasses

import numpy as np

from dicejack import grade
from dicejack.grade.outputs.explanations import plain_summary
from dicejack.grade.outputs.site import submission_html
from dicejack.grade.outputs.student_reports import report_markdown, report_names
from dicejack.grade.outputs.terminal import report_text
from dicejack.grade.scoring.rubric import FLAG_HINTS

from .support import CONFIG, grade_of, layouts, tables, write


def test_report_names_stay_inside_the_folder():
    subs = ["../../etc/passwd", "/abs/path/a.txt", "a/b.txt", "c/b.txt", "x\\..\\y.txt", ".hidden",
            "..", "", "ünï cødé.txt", "A/B.TXT", "a" * 300, "a" * 300 + "b"]
    names = report_names(subs)
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
    # bob printed alice's tables transposed: graded transposed back, they are the same tables,
    # so the disguise does not hide the copy
    assert grades[0].similar_to == ("bob/out.txt", "=HYPERLINK(1).txt")
    assert grades[0].verdict == "review" and "transposed" in grades[1].flags
    assert grades[1].similar_to == ("alice/out.txt", "=HYPERLINK(1).txt")
    assert grades[2].similar_to == ("alice/out.txt", "bob/out.txt")
    assert "transposed" in (reports / "bob__out.txt.md").read_text()
    book = out.read_text()
    assert "'=HYPERLINK" in book and "\n=HYPERLINK" not in book and ",=HYPERLINK" not in book


def test_reports_open_with_a_plain_paragraph_and_what_if_scores(refs):
    best, prob = tables(seed=25)
    t = grade_of(refs, best.T, prob.T, submission="t")
    assert t.what_if == {"printed as table[X][Y]": t.score + 10}
    md = report_markdown(refs, t)
    assert "printed as table[X][Y], the score would be 100.0 / 100" in md
    shifted = grade_of(refs, np.where(best > 0, best - 1, 0), prob, submission="z")
    assert "zero-based-j" in shifted.flags
    assert shifted.what_if["printed with J 1-based"] == shifted.score + 10
    ok = grade_of(refs, best, prob, submission="ok")
    assert ok.verdict == "pass" and "Your tables look like" in report_markdown(refs, ok)
    review = plain_summary(dataclasses.replace(ok, verdict="review",
                                                     flags=("inconsistent",)))
    assert "5% of correct programs" in review and "Your score stands" in review


def test_each_flag_is_one_checklist_item_and_the_deciding_p_value_is_named(refs):
    # The opening paragraph used to repeat the first flag's hint ("Check first: ...") right
    # above the flag list that gives it again; the Markdown and text reports showed two
    # p-values without saying which one decides.
    best, prob = tables(seed=25)
    shifted = grade_of(refs, np.where(best > 0, best - 1, 0).T, prob.T, submission="two")
    assert {"transposed", "zero-based-j"} <= set(shifted.flags)
    pages = {"markdown": report_markdown(refs, shifted),
             "text": " ".join(report_text(refs, shifted, width=10_000).split()),
             "site": submission_html(refs, shifted).replace("&#x27;", "'")}
    for kind, page in pages.items():
        for flag in ("transposed", "zero-based-j"):
            hint = FLAG_HINTS[flag]
            needle = hint[1:60]  # the report capitalises a hint's first letter
            assert page.count(needle) == 1, (kind, flag)
        assert page.count("Check first") == 0, kind
        assert f"Check the {len(shifted.flags)} flags below, in order" in page, kind
        assert ("(log-t fit of the calibration runs; this one decides the verdict and the "
                "points), rank p-value") in page, kind
        assert f"it cannot go below 1/{refs.config.calibration + 1})" in page, kind
    one = plain_summary(dataclasses.replace(shifted, flags=("transposed",)))
    assert one.endswith("Check the flag below: it says what to look at.")


def test_a_review_that_took_format_points_says_so_and_never_says_it_took_none(refs):
    """Issue 46: tables printed transposed or with J 0-based are graded corrected, less the
    format points (90.0), and reviewed. What the student reads (summary, report, page) names
    the points taken and why, and never says the review took none; evidence below the fail
    level alone still says the score stands."""
    from dicejack.grade.scoring.rubric import FLAG_DEDUCTIONS, FORMAT_POINTS

    best, prob = tables(seed=25)
    ok = grade_of(refs, best, prob, submission="ok")
    for flag, (b, p) in {"transposed": (best.T, prob.T),
                         "zero-based-j": (np.where(best > 0, best - 1, 0), prob)}.items():
        g = grade_of(refs, b, p, submission=flag)
        assert flag in g.flags and g.verdict == "review"
        assert g.points["format"] == FORMAT_POINTS - FLAG_DEDUCTIONS[flag] < FORMAT_POINTS
        assert g.score < ok.score
        for text in (plain_summary(g), report_markdown(refs, g), submission_html(refs, g)):
            words = " ".join(text.split())
            assert f"{FLAG_DEDUCTIONS[flag]:g} format points were taken" in words, flag
            assert f"({flag})" in words or f"({flag};" in words or f"`{flag}`" in words
            assert "never lowers" not in words and "not a deduction" not in words, flag
    chance = plain_summary(dataclasses.replace(ok, verdict="review", flags=("inconsistent",)))
    assert "Your score stands" in chance and "format points were taken" not in chance
