"""grade.outputs.terminal: the batch table on the terminal (student first, counts that add up)."""

from __future__ import annotations

from dicejack import grade
from dicejack.grade.outputs.terminal import summary_text


def test_the_terminal_table_shows_the_student_first_and_counts_that_add_up():
    long = "moodle.zip!Ann Lee_500012_assignsubmission_file_/" + "x" * 40 + "/output.txt"
    grades = [grade.Grade(long, "ok", score=97.5, verdict="pass", student="500012",
                          student_name="Ann Lee"),
              grade.Grade("b/out.txt", "error", error="submission is empty", student="500013"),
              grade.Grade("notes.docx", "skipped", verdict="", error="a document")]
    lines = summary_text(grades).splitlines()
    assert lines[0].startswith("student ") and lines[1].startswith("500012 (Ann Lee)  moodle.zip")
    assert "..." in lines[1] and lines[1].split()[4].endswith("/output.txt")  # both ends kept
    # the gradebook's word: a file that could not be graded is a fail, its reason after it
    assert " fail " in lines[2] and "unreadable" not in lines[2]
    assert "error: submission is empty" in lines[2]
    assert lines[-1] == ("2 submissions: 1 pass, 0 review, 1 fail (1 of them could not be "
                         "graded) (1 other file skipped)")
    one = summary_text(grades[:1]).splitlines()[-1]
    assert one == "1 submission: 1 pass, 0 review, 0 fail (0 of them could not be graded)"
    plain = summary_text([grade.Grade("a.txt", "ok", score=1.0, verdict="fail")])
    assert plain.startswith("submission ")  # no student column when no LMS named anyone
