"""Tests of dicejack.grade.scoring.students: one student's files are one student (never their own
copy),
the file that goes out (--keep), late work, and grades held back from the LMS (--lms-hold)."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

import dicejack.grade.outputs.lms as grade_lms
from dicejack import grade
from dicejack.cli import main
from dicejack.grade import Grade
from dicejack.grade.outputs.lms import DEFAULT_LMS_HOLD, lms_hold_reasons
from dicejack.grade.scoring.students import check_hold, mark_held, mark_kept

from .support import CONFIG, GAME, GAMES, M, layouts, tables


def canvas_zip(path, files: dict[str, str]):
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


@pytest.fixture(scope="module")
def download(tmp_path_factory):
    """A Canvas download: a student who handed in twice (the same tables, then better ones:
    output.txt and Canvas's output-1.txt), a late student, a real copy between two others."""
    root = tmp_path_factory.mktemp("canvas")
    first = layouts(*tables(seed=21))["labelled"]
    again = layouts(*tables(seed=22))["labelled"]
    copied = layouts(*tables(seed=23))["grid"]
    return canvas_zip(root / "submissions.zip", {
        "smithjohn_12345_100_output.txt": first,
        "smithjohn_12345_250_output-1.txt": first,  # the same tables handed in again
        "doejane_23456_120_output.txt": again,
        "leeann_LATE_34567_300_output.txt": layouts(*tables(seed=24))["grid"],
        "kimbo_45678_130_output.txt": copied,
        "wupat_56789_140_output.txt": copied,
    })


def by_name(grades):
    return {g.submission.rsplit("!", 1)[-1]: g for g in grades}


def test_a_student_is_never_their_own_copy_but_two_students_are(download):
    _, grades = grade.grade_files(CONFIG, [download], cache_dir=False)
    g = by_name(grades)
    for name in ("smithjohn_12345_100_output.txt", "smithjohn_12345_250_output-1.txt"):
        assert "copied" not in g[name].flags and g[name].similar_to == ()
    assert "copied" in g["kimbo_45678_130_output.txt"].flags
    assert g["wupat_56789_140_output.txt"].similar_to[0].endswith("kimbo_45678_130_output.txt")


def test_the_latest_file_goes_out_by_default_and_the_gradebook_says_so(download, tmp_path):
    book = tmp_path / "gradebook.csv"
    lms = tmp_path / "grades.csv"
    _, grades = grade.grade_files(CONFIG, [download], out=book, lms_csv=lms, cache_dir=False)
    g = by_name(grades)
    assert g["smithjohn_12345_250_output-1.txt"].kept == "yes"
    assert g["smithjohn_12345_100_output.txt"].kept == "no"
    assert g["leeann_LATE_34567_300_output.txt"].late and not g[
        "doejane_23456_120_output.txt"].late
    rows = list(csv.DictReader(io.StringIO(book.read_text())))
    assert list(rows[0])[-4:] == ["late", "kept", "held", "likely_cause"]
    kept = {r["submission"].rsplit("!", 1)[-1]: (r["kept"], r["late"]) for r in rows}
    assert kept["smithjohn_12345_100_output.txt"] == ("no", "")
    assert kept["smithjohn_12345_250_output-1.txt"] == ("yes", "")
    assert kept["leeann_LATE_34567_300_output.txt"] == ("yes", "yes")
    smith = next(r for r in csv.DictReader(io.StringIO(lms.read_text()))
                 if r["student"] == "12345")
    assert "submissions.zip!smithjohn_12345_250_output-1.txt (the latest)" in smith["note"]


def test_keep_latest_follows_the_lms_order_not_the_download_order():
    """A download lists a student's later attempt first (Canvas attachment 250 before 100, the
    order a zip or a folder listing may give): the LMS's order decides, not the batch's; 9 and
    10 compare as numbers (attachment ids are padded), not as text."""
    from dicejack.grade.intake.lms_names import canvas_student

    names = ["smithjohn_12345_250_output.txt", "smithjohn_12345_100_output-1.txt",
             "doejane_23456_10_output.txt", "doejane_23456_9_output-1.txt"]
    files = [Grade(n, "ok", score=80.0, student=(s := canvas_student(n)).id, order=s.order)
             for n in names]
    assert [g.kept for g in mark_kept(files)] == ["yes", "no", "yes", "no"]
    # the same files in the other order: the same files kept
    again = {g.submission: g.kept for g in mark_kept(files[::-1])}
    assert again == dict(zip(names, ["yes", "no", "yes", "no"], strict=True))


def test_keep_best_takes_the_highest_score():
    files = [Grade("a_1_10_x.txt", "ok", score=90.0, student="1", order="10"),
             Grade("a_1_20_y.txt", "ok", score=70.0, student="1", order="20"),
             Grade("a_1_30_z.txt", "error", student="1", order="30"),
             Grade("b.txt", "ok", score=50.0), Grade("c.docx", "skipped")]
    latest = mark_kept(files)
    assert [g.kept for g in latest] == ["no", "yes", "no", "yes", ""]  # graded beats unreadable
    best = mark_kept(files, "best")
    assert [g.kept for g in best] == ["yes", "no", "no", "yes", ""]
    only_errors = mark_kept([Grade("a_1_1_x", "error", student="1", order="1"),
                                   Grade("a_1_2_x", "error", student="1", order="2")])
    assert [g.kept for g in only_errors] == ["no", "yes"]
    with pytest.raises(grade.GradeError, match="keep must be one of latest, best"):
        mark_kept(files, "newest")


def test_held_grades_leave_their_lms_cell_empty_and_say_why():
    files = mark_kept([
        Grade("p.txt", "ok", score=100.0, verdict="pass", student="1"),
        Grade("r.txt", "ok", score=80.0, verdict="review", student="2", late=True),
        Grade("c.txt", "ok", score=99.0, verdict="review", flags=("copied",), student="3"),
        Grade("f.txt", "ok", score=10.0, verdict="fail", student="4"),
        Grade("e.txt", "error", student="5", error="empty")])
    held = mark_held(files, check_hold(("review", "late", "unreadable", "late")))
    assert [g.held for g in held] == ["", "review, late", "review", "", "unreadable"]
    rows = list(csv.DictReader(io.StringIO(grade_lms.lms_csv(held))))
    assert [r["score"] for r in rows] == ["100.0", "", "", "10.0", ""]
    assert "held back for a look first: review, late" in rows[1]["note"]
    assert check_hold(["late", grade.Verdict.REVIEW, "late"]) == ("late", "review")


@pytest.mark.parametrize("reasons, message", [
    (("reviews",), "^lms_hold takes review, fail, copied, late, unreadable, got 'reviews'$"),
    (("Review",), "^lms_hold takes .*, got 'Review'$"),
    (("none",), "^lms_hold takes .*, got 'none'$"),
    ((1,), "^lms_hold takes .*, got 1$"),
    ("review,late", r"^lms_hold must be a sequence of review, fail, copied, late, unreadable "
                    r"\(\(\) holds nothing\), got 'review,late'$"),
    (5, "^lms_hold must be a sequence"),
])
def test_the_library_refuses_hold_reasons_that_are_not_its_words(reasons, message):
    with pytest.raises(grade.GradeError, match=message) as info:
        check_hold(reasons)
    assert info.value.parameters == ("lms_hold",)
    with pytest.raises(grade.GradeError, match="^lms_hold "):
        grade_lms.lms_hold_reasons(reasons)


def test_grade_files_refuses_hold_text_naming_lms_hold_before_any_work(tmp_path):
    sub = tmp_path / "a.txt"
    sub.write_text("0 0\n0 0\n")
    for text in ("review,late", "none"):
        with pytest.raises(grade.GradeError, match="^lms_hold must be a sequence") as info:
            grade.grade_files(CONFIG, [sub], out=tmp_path / "g.csv", lms_hold=text,
                              cache_dir=False)
        assert info.value.parameters == ("lms_hold",)
    assert not (tmp_path / "g.csv").exists()


def test_cli_hold_keep_and_format_in_any_case(download, tmp_path, capsys):
    lms = tmp_path / "grades.csv"
    code = main(["grade", str(download), "--sides", str(GAME.n_sides), "--low", str(GAME.low),
                 "--high", str(GAME.high), "--dice", str(GAME.n_dice), "-m", f"{M:g}",
                 "--games", str(GAMES), "--out", str(tmp_path / "g.csv"), "--lms-csv", str(lms),
                 "--lms-format", "Canvas", "--lms-hold", "copied,late", "--keep", "best",
                 "--cache", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert code == 0
    held = next(line for line in err.splitlines() if line.startswith("held back"))
    assert "(3;" in held and "45678 (copied)" in held and "34567 (late)" in held
    rows = list(csv.reader(io.StringIO(lms.read_text())))
    cells = {r[1]: r[5] for r in rows[2:]}
    assert cells["45678"] == "" and cells["34567"] == "" and cells["23456"] != ""
    code = main(["grade", str(download), "-m", "100", "--games", "10", "--lms-hold", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--lms-hold takes" in err


def test_only_decided_grades_go_to_the_lms_by_default(download, tmp_path, capsys):
    """Issue 32: without --lms-hold, review, copied and unreadable grades are held (the cell
    empty, the gradebook's held column and the terminal say why, every name listed);
    --lms-hold none sends every grade."""
    assert lms_hold_reasons(None) == DEFAULT_LMS_HOLD == (
        "review", "copied", "unreadable")
    assert lms_hold_reasons(()) == () and lms_hold_reasons(["late"]) == ("late",)
    args = ["grade", str(download), "--sides", str(GAME.n_sides), "--low", str(GAME.low),
            "--high", str(GAME.high), "--dice", str(GAME.n_dice), "-m", f"{M:g}", "--games",
            str(GAMES), "--cache", str(tmp_path / "cache")]
    lms = tmp_path / "grades.csv"
    book = tmp_path / "g.csv"
    assert main([*args, "--out", str(book), "--lms-csv", str(lms)]) == 0
    err = capsys.readouterr().err
    held_line = next(line for line in err.splitlines() if line.startswith("held back"))
    assert "45678 (review, copied)" in held_line and "56789 (review, copied)" in held_line
    assert "--lms-hold none" in err
    rows = list(csv.DictReader(io.StringIO(book.read_text())))
    held = {r["student"]: r["held"] for r in rows if r["kept"] == "yes"}
    assert "copied" in held["45678"] and "copied" in held["56789"]
    for r in rows:
        if r["kept"] == "yes":
            assert bool(r["held"]) == (r["verdict"] != "pass" or "copied" in r["flags"])
    cells = {r["student"]: r["score"] for r in csv.DictReader(io.StringIO(lms.read_text()))}
    assert cells["45678"] == "" and cells["56789"] == ""
    assert all(cells[s] != "" for s, why in held.items() if not why)
    lms.unlink()
    assert main([*args, "--out", str(book), "--lms-csv", str(lms), "--lms-hold", "none"]) == 0
    assert "held back" not in capsys.readouterr().err
    cells = {r["student"]: r["score"] for r in csv.DictReader(io.StringIO(lms.read_text()))}
    assert all(v != "" for v in cells.values()) and cells["45678"] != ""


def test_the_held_list_is_printed_in_full(tmp_path, capsys):
    """Never cut at ten names: fifteen unreadable files are all listed."""
    folder = tmp_path / "subs"
    folder.mkdir()
    for i in range(15):
        (folder / f"s{i:02d}_{1000 + i}_{i}_out.txt").write_text("no tables here\n")
    code = main(["grade", str(folder), "--sides", str(GAME.n_sides), "--low", str(GAME.low),
                 "--high", str(GAME.high), "--dice", str(GAME.n_dice), "-m", f"{M:g}",
                 "--games", str(GAMES), "--out", str(tmp_path / "g.csv"), "--lms-csv",
                 str(tmp_path / "l.csv"), "--cache", str(tmp_path / "cache")])
    assert code == 1
    err = capsys.readouterr().err
    held_line = next(line for line in err.splitlines() if line.startswith("held back"))
    assert "(15;" in held_line and "..." not in held_line
    assert all(f"{1000 + i} (unreadable)" in held_line for i in range(15))
