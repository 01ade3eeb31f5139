"""Hostile identities in `dicejack grade` (issue 16): whose row a file lands in is decided by the
LMS's own names, outermost first, never by names inside a student's submission; Gradescope
metadata is real YAML, read only from the export's top level; a missing input, a link out of the
folder and a malformed archive member are rows or one-line refusals, never a stopped batch."""

from __future__ import annotations

import csv
import io
import os
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack.cli import main
from dicejack.grade.intake.inputs import Entry, collect
from dicejack.grade.intake.lms_names import (
    MAX_METADATA_BYTES,
    MetadataError,
    gradescope_students,
    lms_student,
)
from dicejack.grade.outputs.gradebook import GRADEBOOK_HEADER
from dicejack.grade.outputs.lms import student_scores
from dicejack.grade.scoring.grading import grade_entry
from dicejack.grade.scoring.rubric import FLAG_HINTS, REVIEW_FLAGS

from .support import TEXT, zip_bytes

HYP = settings(max_examples=60, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def students(entries: list[Entry]) -> dict[str, str | None]:
    """label tail (after the path given) -> student id, for the entries that are graded."""
    out = {}
    for e in entries:
        if e.skipped:
            continue
        out[e.label.rsplit("/", 1)[-1].rsplit("!", 1)[-1]] = e.student.id if e.student else None
    return out


# ------------------------------------------------------------------ 1. identity, outermost
def test_a_file_inside_a_canvas_zip_belongs_to_the_zip_owner(tmp_path):
    inner = zip_bytes({"bob_999_333_out.txt": TEXT, "work/Bob_222_assignsubmission_file_x.txt":
                       TEXT, "submission_5/out.txt": TEXT})
    download = tmp_path / "submissions.zip"
    download.write_bytes(zip_bytes({"alice_111_222_sub.zip": inner,
                                    "carol_333_444_out.txt": TEXT}))
    entries = collect([download])
    graded = [e for e in entries if not e.skipped]
    assert len(graded) == 4
    assert [e.student.id for e in graded] == ["111", "111", "111", "333"]
    assert all(e.student.lms == "canvas" and not e.flags for e in graded)


@pytest.mark.parametrize("name, expected", [
    # a Canvas file whose student-chosen part looks like Moodle or Blackboard: still Canvas
    ("alice_111_222_X_5_assignsubmission_file_.txt", "111"),
    ("alice_111_222_HW_bob_attempt_2024-01-01-10-00-00_out.txt", "111"),
])
def test_a_canvas_name_that_also_looks_like_another_lms_is_read_as_canvas(tmp_path, name,
                                                                         expected):
    folder = tmp_path / "canvas"
    folder.mkdir()
    for plain in ("dave_401_501_out.txt", "erin_402_502_out.txt"):
        (folder / plain).write_text(TEXT)
    (folder / name).write_text(TEXT)
    found = students(collect([folder]))
    assert found[name] == expected
    assert found["dave_401_501_out.txt"] == "401"


def test_a_name_two_lmss_match_with_no_batch_to_decide_is_a_flagged_row(tmp_path):
    lone = tmp_path / "alice_111_222_HW_bob_attempt_2024-01-01-10-00-00_out.txt"
    lone.write_text(TEXT)
    (entry,) = collect([lone])
    assert entry.student is None and entry.flags == ("identity-ambiguous",)
    assert lms_student([lone.name]) is None
    g = grade_entry(None, Entry(label="x", error="unreadable", flags=entry.flags))
    assert "identity-ambiguous" in g.flags and g.student == ""
    assert "identity-ambiguous" in REVIEW_FLAGS and FLAG_HINTS["identity-ambiguous"]


def test_moodle_folder_holds_only_its_own_student(tmp_path):
    root = tmp_path / "moodle"
    alice = root / "Alice_111_assignsubmission_file_"
    alice.mkdir(parents=True)
    (alice / "Bob_222_assignsubmission_file_out.txt").write_text(TEXT)
    (alice / "carol_333_444_out.txt").write_text(TEXT)
    bob = root / "Bob_222_assignsubmission_file_"
    bob.mkdir()
    (bob / "out.txt").write_text(TEXT)
    found = [(e.label.split("/")[-2], e.student.id) for e in collect([root])]
    assert found == [("Alice_111_assignsubmission_file_", "111")] * 2 + [
        ("Bob_222_assignsubmission_file_", "222")]


def test_folders_above_the_path_given_never_name_a_student(tmp_path):
    above = tmp_path / "Course_7_assignsubmission_file_" / "download"
    above.mkdir(parents=True)
    (above / "out.txt").write_text(TEXT)
    (entry,) = collect([above])
    assert entry.student is None


METADATA = """\
submission_1:
  :submitters:
  - :name: Alice
    :sid: '111'
submission_2:
  :submitters:
  - :name: Bob
    :sid: '222'
"""


def test_gradescope_metadata_inside_a_submission_is_not_read(tmp_path):
    export = tmp_path / "export"
    (export / "submission_1").mkdir(parents=True)
    (export / "submission_2").mkdir()
    (export / "submission_metadata.yml").write_text(METADATA)
    # Alice's own folder carries a metadata file that claims she is 222 and Bob is 111 ...
    (export / "submission_1" / "submission_metadata.yml").write_text(
        METADATA.replace("'111'", "'X'").replace("'222'", "'111'"))
    # ... and files named like other LMSs' students.
    (export / "submission_1" / "bob_222_9_out.txt").write_text(TEXT)
    (export / "submission_1" / "Zed_5_assignsubmission_file_.txt").write_text(TEXT)
    (export / "submission_2" / "out.txt").write_text(TEXT)
    entries = collect([export])
    found = {e.label.removeprefix(str(export) + "/"): e for e in entries}
    assert found["submission_1/bob_222_9_out.txt"].student.id == "111"
    assert found["submission_1/Zed_5_assignsubmission_file_.txt"].student.id == "111"
    assert found["submission_2/out.txt"].student.id == "222"
    assert "inside a submission or beside no submission_<id> folder, not read" in found[
        "submission_1/submission_metadata.yml"].skipped
    # the same export as a zip
    archive = tmp_path / "export.zip"
    archive.write_bytes(zip_bytes({
        "export/submission_metadata.yml": METADATA,
        "export/submission_1/submission_metadata.yml": METADATA.replace("'111'", "'999'"),
        "export/submission_1/out.txt": TEXT,
    }))
    (row,) = [e for e in collect([archive]) if not e.skipped]
    assert row.student.id == "111"


@pytest.mark.parametrize("text, expected", [
    # anchors and aliases, a BOM, CRLF, comments, escapes, folded scalars: what YAML means
    ("a: &s '111'\nsubmission_1:\n  :submitters:\n  - :sid: *s\n", "111"),
    ("\ufeffsubmission_1:\r\n  :submitters:\r\n  - :sid: '111'\r\n", "111"),
    ("submission_1:\n  :submitters:\n  - :sid: 111 # TA fixed\n", "111"),
    ('submission_1:\n  :submitters:\n  - :sid: "11\\x31"\n', "111"),
    ("submission_1:\n  :submitters:\n  - :sid: >-\n      111\n", "111"),
    ("submission_1:\n  :submitters:\n  - :sid: ''\n    :email: a@x.edu\n", "a@x.edu"),
])
def test_gradescope_metadata_is_parsed_as_yaml(text, expected):
    assert gradescope_students(text)["submission_1"].id == expected


def test_gradescope_metadata_bombs_and_junk_are_refused_in_one_line():
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n"
        for i in range(8))
    students = gradescope_students(laughs + METADATA)  # shared, never expanded
    assert students["submission_1"].id == "111" and students["submission_2"].id == "222"
    for junk, reason in ((b"x" * (MAX_METADATA_BYTES + 1), "MiB, over the 4 MiB limit"),
                         (b"submission_1: [unclosed", "not readable YAML"),
                         (b"[" * 100_000, "not readable YAML"),
                         (b"- a list\n", "not a mapping")):
        with pytest.raises(MetadataError, match=reason) as info:
            gradescope_students(junk)
        assert "\n" not in str(info.value)


def test_unreadable_metadata_is_a_row_and_the_submissions_keep_their_folder_names(tmp_path):
    export = tmp_path / "export"
    (export / "submission_7").mkdir(parents=True)
    (export / "submission_metadata.yml").write_text("submission_7: [unclosed\n")
    (export / "submission_7" / "out.txt").write_text(TEXT)
    meta, sub = collect([export])
    assert "metadata, not read: not readable YAML" in meta.skipped
    assert sub.student.id == "submission_7"


def test_the_lms_csv_gives_each_student_only_their_own_grade(tmp_path):
    download = tmp_path / "submissions.zip"
    download.write_bytes(zip_bytes({
        "alice_111_222_sub.zip": zip_bytes({"bob_999_333_out.txt": TEXT}),
        "bob_999_444_out.txt": "nothing printed\n",
    }))
    rows = [grade_entry(None, e) for e in collect([download])]
    scores = student_scores(rows)
    assert sorted((s.student, s.submissions) for s in scores) == [
        ("111", (f"{download}!alice_111_222_sub.zip!bob_999_333_out.txt",)),
        ("999", (f"{download}!bob_999_444_out.txt",))]


@HYP
@given(names=st.lists(st.text(alphabet="ab_123456789-.LATEnoasigumbtfdl", min_size=1,
                              max_size=40), min_size=1, max_size=6, unique=True))
def test_nothing_inside_a_students_archive_changes_any_student(tmp_path, names):
    """Property: whatever a student's own zip holds, every row of it is that student's and the
    other students' rows are unchanged."""
    inner = zip_bytes({f"{n}.txt": TEXT for n in names})
    download = zip_bytes({"alice_111_222_sub.zip": inner, "bob_333_444_out.txt": TEXT,
                          "carol_555_666_out.txt": TEXT})
    path = tmp_path / "canvas.zip"
    path.write_bytes(download)
    entries = collect([path])  # skipped rows too (a hidden file still has its owner)
    by_owner = {e.label.split("!")[1]: e.student.id if e.student else None for e in entries}
    assert by_owner == {"alice_111_222_sub.zip": "111", "bob_333_444_out.txt": "333",
                        "carol_555_666_out.txt": "555"}
    assert all(e.student is not None and e.student.id == "111" for e in entries
               if e.label.split("!")[1] == "alice_111_222_sub.zip")


# ----------------------------------------------------------- 5. missing inputs, links out
@pytest.mark.parametrize("given", ["missing.txt", "submision.zip", "*.txt"])
def test_a_missing_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, given):
    monkeypatch.chdir(tmp_path)
    Path("real.txt").write_text(TEXT)
    code = main(["grade", "real.txt", given, "--sides", "4", "--low", "8", "--high", "9",
                 "--dice", "2", "-m", "100", "--games", "3000", "--lms-csv", "grades.csv"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"no such file or folder: {given}" in err
    assert "Traceback" not in err and not Path("grades.csv").exists()
    assert not Path("gradebook.csv").exists()


def test_links_out_of_the_folder_given_are_not_followed(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(TEXT)
    folder = tmp_path / "batch"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "out.txt").write_text(TEXT)
    os.symlink(secret, folder / "alice" / "passwd.txt")
    os.symlink("/etc/passwd", folder / "alice" / "etc.txt")
    os.symlink(folder / "alice" / "out.txt", folder / "alice" / "inside.txt")
    rows = {e.label.rsplit("/", 1)[-1]: e for e in collect([folder])}
    for name in ("passwd.txt", "etc.txt"):
        assert rows[name].skipped == "a symbolic link leading outside the folder given, not " \
                                     "followed" and rows[name].path is None
    assert rows["inside.txt"].path is not None and not rows["inside.txt"].skipped


# ------------------------------------------------------------ 6. no file stops the batch
@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_malformed_members_are_rows_and_the_batch_goes_on(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("alice_1_2_out.txt", TEXT)
        for name in ("", "/etc/cron.d/x.txt", "../../escape.txt", "C:/win.txt",
                     "alice_1_2_out.txt"):
            info = zipfile.ZipInfo("placeholder")
            info.filename = name  # what a crafted archive declares
            zf.writestr(info, TEXT)
    bad = tmp_path / "bad.zip"
    bad.write_bytes(buffer.getvalue())
    empty = tmp_path / "empty.zip"
    empty.write_bytes(zip_bytes({}))
    folder = tmp_path / "dl"
    folder.mkdir()
    (folder / "bob_3_4_out.txt").write_text(TEXT)
    (folder / "nested.zip").write_bytes(bad.read_bytes())
    entries = collect([bad, empty, folder])
    errors = [e.error for e in entries if e.error]
    assert sum("empty name" in e for e in errors) == 2  # once in bad.zip, once nested
    assert sum("absolute path" in e for e in errors) == 4
    assert sum("climbs out" in e for e in errors) == 2
    assert sum("second member of the same name" in e for e in errors) == 2
    assert any(e.endswith("is an empty archive: no file to grade") for e in errors)
    graded = [e for e in entries if not e.error and not e.skipped]
    assert sorted(e.label.rsplit("!", 1)[-1].rsplit("/", 1)[-1] for e in graded) == [
        "alice_1_2_out.txt", "alice_1_2_out.txt", "bob_3_4_out.txt"]
    assert all("\n" not in e.error for e in entries)


def test_a_member_name_marked_utf8_but_not_is_a_row(tmp_path):
    data = bytearray(zip_bytes({"abc.txt": TEXT}))
    for signature in (b"PK\x01\x02", b"PK\x03\x04"):  # central and local headers
        at = data.find(signature)
        flag = 8 if signature == b"PK\x01\x02" else 6
        data[at + flag] |= 0x00
        data[at + flag + 1] |= 0x08  # bit 11: the name is UTF-8
        name_at = at + (46 if signature == b"PK\x01\x02" else 30)
        data[name_at:name_at + 3] = b"\xff\xfe\xfd"
    path = tmp_path / "badname.zip"
    path.write_bytes(bytes(data))
    (row,) = collect([path])
    assert "marked UTF-8 but is not" in row.error


def test_an_empty_zip_on_the_command_line_is_a_row(tmp_path):
    path = tmp_path / "nothing.zip"
    path.write_bytes(zip_bytes({}))
    book = tmp_path / "book.csv"
    code = main(["grade", str(path), "--sides", "4", "--low", "8", "--high", "9", "--dice",
                 "2", "-m", "100", "--games", "3000", "--out", str(book),
                 "--references", "10", "--cache", str(tmp_path / "cache")])
    assert code == 1  # nothing in the batch could be graded: said, and not a success
    rows = list(csv.reader(book.open()))
    assert len(rows) == 2 and "empty archive" in rows[1][GRADEBOOK.index("error")]


GRADEBOOK = list(GRADEBOOK_HEADER)
