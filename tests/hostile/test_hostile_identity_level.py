"""Identity only from names an LMS wrote, at the level it writes them (a hostile audit): "inside
a folder that is not LMS-named, a student's inner folder named like `classmate_111_999999_x/`
gives that student's row the classmate's Canvas identity". An LMS names the entries at the top
of its download (Canvas and Blackboard flat files, Moodle's per-student folders, Gradescope's
`submission_<id>/`): the path given itself, the entries of the folder given, the members at the
root of the zip given (and those of the one folder a download is packed in). A name deeper than
that (inside a student's own folder or archive, or in a folder no LMS named) never decides whose
a file is. The printout and library reproductions failed before the fix: the audit's exact
folder was already alice's (Canvas names files, never folders), but a Canvas file or zip, a
Moodle folder or file, a Gradescope folder and a Blackboard file in its place were 111's (and
the student's other files then no one's)."""

from __future__ import annotations

import csv
import os

import pytest

from dicejack.cli import main
from dicejack.grade.intake.inputs import collect
from dicejack.grade.intake.lms_names import Student, lms_student
from dicejack.grade.programs.collect import collect_programs

from .support import TEXT, submission_text, zip_bytes

#: What each student of a class folder (no LMS names it) holds: a name an LMS would write for
#: classmate 111, at a level no LMS writes, and notes of their own. alice is the audit's case.
INNER = {
    "alice": {"classmate_111_999999_x/out.txt": TEXT},  # a folder like a Canvas file name
    "bea": {"classmate_111_999999_out.txt": TEXT},  # a Canvas file name
    "cid": {"classmate_111_999999_x.zip": zip_bytes({"out.txt": TEXT})},  # a Canvas zip
    "dot": {"Classmate_111_assignsubmission_file_/out.txt": TEXT},  # a Moodle folder
    "eli": {"Classmate_111_assignsubmission_file_out.txt": TEXT},  # a Moodle file
    "fay": {"submission_111/out.txt": TEXT,  # a Gradescope submission and its metadata
            "submission_metadata.yml": "submission_111:\n  :submitters:\n  - :sid: '111'\n"},
    "gus": {"Lab3_classmate_attempt_2024-03-01-10-00-00_out.txt": TEXT},  # a Blackboard file
}


def class_folder(root) -> None:
    for who, files in INNER.items():
        for name, data in {**files, "notes/n.txt": TEXT}.items():
            path = root / who / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data if isinstance(data, bytes) else data.encode())


def owners(entries, given) -> dict[str, set[str | None]]:
    """Each student folder's name -> the students its graded files were given."""
    found: dict[str, set[str | None]] = {}
    for e in entries:
        if not e.skipped:
            inside = e.label.removeprefix(f"{given}!").removeprefix(f"{given}/")
            who = inside.removeprefix("class/").split("/")[0]
            found.setdefault(who, set()).add(e.student.id if e.student else None)
    return found


def test_the_audit_case_dicejack_grade_keeps_every_row_its_folders(tmp_path, monkeypatch,
                                                                     capsys):
    """`dicejack grade class/` with `alice/classmate_111_999999_x/out.txt` and `alice/notes/`
    (and each other way an LMS writes 111's name, inside another student's folder): every
    row is its folder's student, no row is 111's, and no LMS names the batch."""
    monkeypatch.chdir(tmp_path)
    class_folder(tmp_path / "class")
    (tmp_path / "class" / "hal" / "out.txt").parent.mkdir()
    (tmp_path / "class" / "hal" / "out.txt").write_text(submission_text(6))
    code = main(["grade", "class", "--sides", "4", "--low", "8", "--high", "9", "--dice", "2",
                 "-m", "100", "--games", "3000", "--references", "10", "--cache", "cache",
                 "--out", "book.csv"])
    assert code in (0, 1)
    rows = [r for r in csv.DictReader(open("book.csv")) if r["status"] != "skipped"]
    found: dict[str, set[str]] = {}
    for r in rows:
        folder = r["submission"].replace("!", "/").split("/")[1]
        found.setdefault(folder, set()).add(r["student"])
        assert r["student"] != "111", r
    assert found == {who: {who} for who in [*INNER, "hal"]}
    assert " names for " not in capsys.readouterr().err  # no LMS named any file


def test_names_inside_a_students_folder_never_decide_in_a_folder_or_zip_given(tmp_path):
    class_folder(tmp_path / "class")
    assert owners(collect([tmp_path / "class"]), tmp_path / "class") == {w: {w} for w in INNER}
    members = {f"{p.relative_to(tmp_path / 'class').as_posix()}": p.read_bytes()
               for p in (tmp_path / "class").rglob("*") if p.is_file()}
    packed = tmp_path / "class.zip"
    packed.write_bytes(zip_bytes(members))
    assert owners(collect([packed]), packed) == {who: {who} for who in INNER}
    packed.write_bytes(zip_bytes({f"class/{k}": v for k, v in members.items()}))  # compressed
    assert owners(collect([packed]), packed) == {who: {who} for who in INNER}
    # the metadata fay wrote beside her own submission_111/ is never read
    meta = [e for e in collect([tmp_path / "class"]) if e.label.endswith(".yml")]
    assert meta[0].skipped.startswith("a submission_metadata.yml inside a submission or beside")


@pytest.mark.parametrize("parts", [
    # the parts `grade --run` would give the audit's case (alice's folder is two programs)
    ("class", "alice", "classmate_111_999999_x"),
    ("class", "alice", "classmate_111_999999_learn.py"),
    ("class", "alice", "classmate_111_999999_x.zip"),
    ("class", "alice", "Classmate_111_assignsubmission_file_"),
    ("class", "alice", "Classmate_111_assignsubmission_file_", "learn.py"),
    ("class", "alice", "submission_111", "learn.py"),
    ("class", "alice", "Lab3_classmate_attempt_2024-03-01-10-00-00_learn.py"),
    ("class.zip", "alice", "classmate_111_999999_x"),
    ("class", "alice.zip", "classmate_111_999999_learn.py"),
    ("class", "sec1", "alice_111_222_learn.py"),  # an LMS never writes section folders
])
def test_a_name_below_the_lms_level_names_no_one(parts):
    assert lms_student(parts) is None


@pytest.mark.parametrize("parts, expected", [
    (("class", "alice_111_222_learn.py"), "111"),  # an unpacked Canvas download given
    (("submissions.zip", "smithjohn_12345_67890_learn.py"), "12345"),
    (("dl.zip", "Ann Lee_1001_assignsubmission_file_", "src", "learn.py"), "1001"),
    (("export", "submission_5", "learn.py"), "submission_5"),
    (("Ann Lee_1001_assignsubmission_file_",), "1001"),  # given by itself
    (("alice_111_222_sub.zip", "bob_999_333_learn.py"), "111"),  # outermost: the zip given
    (("s.zip", "alice_111_222_sub.zip", "bob_999_333_learn.py"), "111"),
])
def test_a_name_at_the_lms_level_still_names_its_student(parts, expected):
    assert lms_student(parts).id == expected


def test_the_one_folder_a_path_given_holds_is_read_as_the_download(tmp_path):
    """Gradescope's export holds one folder, `assignment_<id>_export/`: zipped, or unpacked into
    a folder of its own (Windows' Extract All), its `submission_<id>/` folders name the
    students; the parts of a Gradescope zip with `deepest=2`."""
    export = tmp_path / "hw" / "assignment_42_export"
    for sub in ("submission_1", "submission_2"):
        (export / sub).mkdir(parents=True)
        (export / sub / "out.txt").write_text(TEXT)
    (export / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :sid: '111'\n"
        "submission_2:\n  :submitters:\n  - :sid: '222'\n")
    os.symlink(export / "submission_1" / "out.txt", export / "submission_2" / "link.txt")
    archive = tmp_path / "hw.zip"
    archive.write_bytes(zip_bytes({
        f"assignment_42_export/{p.relative_to(export).as_posix()}": p.read_bytes()
        for p in export.rglob("*") if p.is_file() and not p.is_symlink()}))
    for given in (tmp_path / "hw", archive):
        rows = {e.label.replace("!", "/").split("assignment_42_export/")[1]: e
                for e in collect([given])}
        assert rows["submission_1/out.txt"].student.id == "111"
        assert rows["submission_2/out.txt"].student.id == "222"
        assert rows["submission_metadata.yml"].skipped.startswith("the Gradescope export's")
    link = next(e for e in collect([tmp_path / "hw"]) if e.label.endswith("link.txt"))
    assert link.skipped.startswith("not followed: a symbolic link leading outside the student")
    parts = ("hw.zip", "assignment_42_export", "submission_1", "learn.py")
    assert lms_student(parts, deepest=2) == Student("submission_1", "", "gradescope")
    assert lms_student(parts) is None


def test_a_class_holding_one_student_is_not_a_download(tmp_path):
    """The one folder a path given holds is the LMS's only when the LMS (Gradescope's export
    folder) or the instructor's tools (a folder of the path's own name) wrote it: a lone
    student's folder or zip in a class folder or zip is never one."""
    (tmp_path / "class" / "alice").mkdir(parents=True)
    (tmp_path / "class" / "alice" / "classmate_111_999999_out.txt").write_text(TEXT)
    (tmp_path / "class" / "bea.zip").write_bytes(zip_bytes({"classmate_111_999_out.txt": TEXT}))
    for lone in ("alice", "bea.zip"):
        given = tmp_path / f"only-{lone}"
        given.mkdir()
        os.rename(tmp_path / "class" / lone, given / lone)
        (row,) = collect([given])
        assert row.student.id == lone.removesuffix(".zip")
        packed = tmp_path / f"{given.name}.zip"
        packed.write_bytes(zip_bytes({p.relative_to(given).as_posix(): p.read_bytes()
                                      for p in given.rglob("*") if p.is_file()}))
        (row,) = collect([packed])
        assert row.student.id == lone.removesuffix(".zip")
    # a download unpacked into a folder of its own name (Windows' Extract All): read inside it
    (tmp_path / "hw1" / "hw1").mkdir(parents=True)
    (tmp_path / "hw1" / "hw1" / "alice_111_222_out.txt").write_text(TEXT)
    (tmp_path / "hw1" / "hw1" / "bob_333_444_out.txt").write_text(TEXT)
    assert [e.student.id for e in collect([tmp_path / "hw1"])] == ["111", "333"]


def test_grade_run_parts_of_the_audit_case_name_no_one(tmp_path):
    for inner in ("classmate_111_999999_x", "notes"):
        (tmp_path / "class" / "alice" / inner).mkdir(parents=True)
        (tmp_path / "class" / "alice" / inner / "learn.py").write_text("print(1)\n")
    (tmp_path / "class" / "bob.py").write_text("print(1)\n")
    sources = collect_programs([tmp_path / "class"], tmp_path / "work")
    assert len(sources) == 3
    assert [lms_student(s.student_parts(), deepest=s.deepest) for s in sources] == [
        None, None, None]
