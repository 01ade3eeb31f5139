"""Hostile names in `dicejack grade` (issue 16): a name is text wherever it is shown (figure
titles without math text, Markdown as code spans and escaped prose, control and bidirectional
characters escaped in the terminal, the gradebook and the LMS CSV), and no output names another
output or anything graded."""

from __future__ import annotations

import csv
import io
import os
import unicodedata
from pathlib import Path

import pytest

from dicejack import grade
from dicejack.cli import main
from dicejack.grade.intake.inputs import display_name
from dicejack.grade.outputs.lms import is_lms_csv
from dicejack.grade.outputs.terminal import summary_text
from tests.games import SMALL as GAME
from tests.hostile.support import submission_text

CFG = grade.GradeConfig(GAME, 100.0, 3000, references=10, calibration=10, seed=4242)
SETTINGS = ["--sides", "4", "--low", "8", "--high", "9", "--dice", "2", "-m", "100",
            "--games", "3000", "--references", "10"]
HOSTILE = ["cost_$5_to_$6.txt", "run_$1_$2.txt", "<img src=x onerror=alert(1)>.txt",
           "`tick`` ``.txt", "[x](javascript:alert(1)).txt", "\x1b[31mred\x07\r.txt",
           "\u202egnp.exe\u202c.txt", "=HYPERLINK(1).txt", "*bold* _em_ # h.txt"]


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def no_controls(text: str) -> bool:
    return not any(unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\r\t" for c in text)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The hostile names graded as a batch with reports and an LMS CSV, through the CLI."""
    root = tmp_path_factory.mktemp("names")
    subs = root / "subs"
    subs.mkdir()
    for i, name in enumerate(HOSTILE):
        (subs / name).write_text(submission_text(seed=30 + i))
    # (Moodle writes a name's `_` as a space: the name part holds none)
    (subs / "Eve \x1b[2J_7_assignsubmission_file_out.txt").write_text(submission_text(seed=9))
    out, reports, lms = root / "book.csv", root / "reports", root / "lms.csv"
    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = main(["grade", str(subs), *SETTINGS, "--out", str(out), "--reports",
                     str(reports), "--lms-csv", str(lms), "--cache", str(root / "cache")])
    finally:
        os.chdir(cwd)
    return code, out, reports, lms


def test_dollar_names_draw_their_heatmaps_and_the_batch_finishes(batch):
    code, out, reports, lms = batch
    assert code == 0 and lms.is_file()
    assert len(list(reports.glob("*.png"))) == len(HOSTILE) + 1


def test_markdown_reports_show_names_as_code_never_as_html_or_links(batch):
    _, _, reports, _ = batch
    texts = [p.read_text(encoding="utf-8") for p in sorted(reports.glob("*.md"))]
    assert len(texts) == len(HOSTILE) + 1
    for text in texts:
        heading = text.splitlines()[0]
        assert heading.startswith("# Grade: `")
        fence = heading[len("# Grade: "):].split(" ")[0].split("/")[0]
        run = len(fence) - len(fence.lstrip("`"))
        assert heading.endswith("`" * run)  # the code span closes on its own line
        assert no_controls(text)
        outside = text.replace(heading, "")
        assert "<img" not in outside and "](javascript" not in outside
    joined = "\n".join(texts)
    assert "<img src=x onerror=alert(1)>.txt" in joined  # shown, inside a code span
    assert "\\x1b[31mred\\x07\\x0d.txt" in joined and "\\u202egnp.exe\\u202c.txt" in joined


def test_terminal_table_gradebook_and_lms_csv_carry_no_control_character(batch, capsys):
    _, out, _, lms = batch
    for path in (out, lms):
        text = path.read_text(encoding="utf-8")
        assert no_controls(text), path
        for row in csv.reader(io.StringIO(text)):
            assert not any(cell[:1] in "=+-@" and not _number(cell) for cell in row if cell), row
    students = {row["student"]: row for row in csv.DictReader(lms.open(encoding="utf-8"))}
    assert "7" in students and students["7"]["name"] == "Eve \\x1b[2J"
    grades = [grade.Grade(submission=display_name(n), status="error", error="x")
              for n in HOSTILE]
    assert no_controls(summary_text(grades))


# --------------------------------------------------------------- 4. outputs never collide
def _grade(tmp_path, paths, **kw):
    return grade.grade_files(CFG, paths, cache_dir=tmp_path / "cache", **kw)


def test_reports_folder_holding_the_submissions_is_refused(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.txt").write_text(submission_text(seed=1))
    monkeypatch.chdir(subs)
    for reports in (subs, Path("."), tmp_path, Path("..")):
        with pytest.raises(grade.GradeError, match="holds the submission"):
            _grade(tmp_path, [subs], out=tmp_path / "g.csv", reports=reports)
        with pytest.raises(grade.GradeError, match="holds the submission"):
            _grade(tmp_path, [Path("a.txt")], out=tmp_path / "g.csv", reports=reports)
    assert not (tmp_path / "g.csv").exists()


@pytest.mark.parametrize("option", ["out", "lms_csv"])
def test_an_output_inside_the_reports_folder_is_refused(tmp_path, option):
    sub = tmp_path / "a.txt"
    sub.write_text(submission_text(seed=1))
    reports = tmp_path / "reports"
    other = {"out": tmp_path / "g.csv"} if option == "lms_csv" else {}
    with pytest.raises(grade.GradeError, match="inside the reports folder"):
        _grade(tmp_path, [sub], reports=reports, **{option: reports / "a.txt.md"}, **other)
    assert not reports.exists() or not any(reports.iterdir())


@pytest.mark.parametrize("assignment", ["Lab 3 (12345)", 'say "hi", then =1+1', "a,b=c"])
@pytest.mark.parametrize("lms_format", ["generic", "canvas", "moodle"])
def test_a_rerun_recognises_its_own_lms_csv_whatever_the_assignment(tmp_path, assignment,
                                                                    lms_format):
    sub = tmp_path / "alice_111_222_out.txt"
    sub.write_text(submission_text(seed=1))
    lms = tmp_path / "grades.csv"
    for _ in range(2):
        _grade(tmp_path, [sub], out=tmp_path / "g.csv", lms_csv=lms, lms_format=lms_format,
               lms_assignment=assignment)
    assert is_lms_csv(lms.read_bytes())


def test_a_canvas_gradebook_export_is_never_taken_for_ours(tmp_path):
    export = ("Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (11),Lab 2 (12)\n"
              "    Points Possible,,,,,10,10\nAlice,111,,,S1,9,8\n")
    assert not is_lms_csv(export.encode())
    ours = ("Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (11)\n"
            "Points Possible,,,,,100\nAlice,111,,,,90.0\n")
    assert is_lms_csv(ours.encode())
    sub = tmp_path / "a.txt"
    sub.write_text(submission_text(seed=1))
    path = tmp_path / "canvas.csv"
    path.write_text(export)
    with pytest.raises(grade.GradeError, match="not a dicejack LMS grades CSV"):
        _grade(tmp_path, [sub], out=tmp_path / "g.csv", lms_csv=path)
    assert path.read_text() == export
