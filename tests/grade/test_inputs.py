"""Submissions as they arrive: folders searched recursively, zip archives read in memory within
limits (bombs, too many members, lying headers, corrupt and encrypted archives are rows, not
crashes), and whole LMS downloads graded end to end (the names: test_lms_names.py)."""

from __future__ import annotations

import csv
import io
import os
import struct
import zipfile
from pathlib import Path

import pytest

from dicejack import grade
from dicejack.grade.intake.inputs import MAX_SUBMISSION_BYTES, InputLimits, collect, html_text
from dicejack.grade.intake.lms_names import Student
from dicejack.grade.outputs.gradebook import GRADEBOOK_HEADER
from dicejack.grade.outputs.site import write_site
from dicejack.grade.outputs.student_reports import report_names, write_reports
from dicejack.grade.scoring.grading import grade_entry

from .support import CONFIG, GS_METADATA, layouts, tables, write


def _zip(members: dict[str, bytes | str], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _central_entries(data: bytes, name: str):
    """Offsets of the central-directory records of member `name`."""
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        n = struct.unpack("<H", data[at + 28:at + 30])[0]
        if data[at + 46:at + 46 + n] == name.encode():
            yield at
        at = data.find(b"PK\x01\x02", at + 1)


def _declare_size(data: bytes, name: str, size: int) -> bytes:
    """The archive with `name`'s uncompressed size declared as `size` (a lying header)."""
    buf = bytearray(data)
    for at in _central_entries(data, name):
        buf[at + 24:at + 28] = struct.pack("<I", size)
    return bytes(buf)


def _mark_encrypted(data: bytes, name: str) -> bytes:
    buf = bytearray(data)
    for at in _central_entries(data, name):
        buf[at + 8] |= 0x1
    return bytes(buf)


def _by_label(entries):
    return {e.label: e for e in entries}


@pytest.fixture(scope="module")
def text():
    return layouts(*tables(seed=31))["labelled"]


def test_canvas_download_is_read_in_memory(tmp_path, text):
    inner = _zip({"work/output.txt": text, "work/.DS_Store": b"\0junk"})
    archive = write(tmp_path, "submissions.zip", _zip({
        "smithjohn_12345_67890_output.txt": text,
        "leeann_LATE_23456_78901_out.txt": text,
        "leeann_LATE_23456_78902_main.py": "print('tables')\n",
        "__MACOSX/._smithjohn_12345_67890_output.txt": b"\0\x05\x16\x07",
        "__MACOSX/._leeann_LATE_23456_78901_out.txt": b"\0\x05\x16\x07",
        "doejane_34567_text.html": "<html><body><p>" + text.replace("\n", "<br>")
        + "</p></body></html>",
        "kimmo_45678_99999_work.zip": inner,
        "parkeun_56789_22222_report.pdf": b"%PDF-1.4",
    }))
    before = sorted(os.listdir(tmp_path))
    entries = _by_label(collect([archive]))
    assert sorted(os.listdir(tmp_path)) == before  # nothing extracted
    z = f"{archive}!"
    assert entries[z + "smithjohn_12345_67890_output.txt"].data == text.encode()
    assert entries[z + "smithjohn_12345_67890_output.txt"].student == Student(
        "12345", "smithjohn", "canvas", order="67890".zfill(20))
    assert entries[z + "leeann_LATE_23456_78901_out.txt"].student.id == "23456"
    assert "source code" in entries[z + "leeann_LATE_23456_78902_main.py"].skipped
    assert "macOS" in entries[z + "__MACOSX/"].skipped  # one row for the whole folder
    assert entries[z + "doejane_34567_text.html"].html
    assert "document" in entries[z + "parkeun_56789_22222_report.pdf"].skipped
    nested = entries[z + "kimmo_45678_99999_work.zip!work/output.txt"]
    assert nested.data == text.encode() and nested.student.id == "45678"
    assert entries[z + "kimmo_45678_99999_work.zip!work/.DS_Store"].skipped == "a hidden file"
    assert len(entries) == 8 and all(e.skipped or e.data is not None for e in entries.values())
    page = html_text(entries[z + "doejane_34567_text.html"].data)
    assert page.split() == text.split()


def test_moodle_and_blackboard_downloads(tmp_path, text):
    moodle = write(tmp_path, "Lab 3-1234.zip", _zip({
        "Ann Lee_1001_assignsubmission_file_/out.txt": text,
        "Ann Lee_1001_assignsubmission_file_/src/Main.java": "class Main {}",
        "Bo Chen_1002_assignsubmission_onlinetext_/onlinetext.html": "<p>my tables</p>",
        "Cy Dee_1003_assignsubmission_file_results.txt": text,
    }))
    board = write(tmp_path, "gradebook_CS101_Lab3_2024-03-01-10-00-00.zip", _zip({
        "Lab 3_jdoe3_attempt_2024-02-28-21-02-38_output.txt": text,
        "Lab 3_jdoe3_attempt_2024-02-28-21-02-38.txt": "Name: Jo Doe (jdoe3)\nFiles:\n",
        "Lab 3_asmith_attempt_2024-02-28-22-00-00.txt": "Submission Field:\n" + text,
    }))
    entries = collect([moodle, board])
    who = {e.label.split("!", 1)[1]: (e.student.id, e.student.lms, e.skipped[:20])
           for e in entries}
    assert who == {
        "Ann Lee_1001_assignsubmission_file_/out.txt": ("1001", "moodle", ""),
        "Ann Lee_1001_assignsubmission_file_/src/Main.java": (
            "1001", "moodle", "source code, not the"),
        "Bo Chen_1002_assignsubmission_onlinetext_/onlinetext.html": ("1002", "moodle", ""),
        "Cy Dee_1003_assignsubmission_file_results.txt": ("1003", "moodle", ""),
        "Lab 3_jdoe3_attempt_2024-02-28-21-02-38_output.txt": ("jdoe3", "blackboard", ""),
        # the receipt of an attempt with files is skipped; a receipt alone is the submission
        "Lab 3_jdoe3_attempt_2024-02-28-21-02-38.txt": (
            "jdoe3", "blackboard", "the Blackboard recei"),
        "Lab 3_asmith_attempt_2024-02-28-22-00-00.txt": ("asmith", "blackboard", ""),
    }


def test_folders_are_searched_and_every_skip_is_said(tmp_path, text):
    root = tmp_path / "subs"
    for rel, content in {
        "alice/out.txt": text,
        "bob/results/output.txt": text,
        "bob/main.py": "print()",
        "carol/report.docx": "PK",
        "carol/.hidden_notes.txt": text,
        ".git/objects/ab/cdef": "blob",
        "__MACOSX/alice/._out.txt": "x",
        "Thumbs.db": "x",
        "export/submission_metadata.yml": GS_METADATA,
        "export/submission_222/output.txt": text,
        "dl.zip": _zip({"Ann Lee_1001_assignsubmission_file_/out.txt": text}),
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    os.symlink(root, root / "bob" / "loop")  # a folder link (a cycle): never followed
    hidden = write(tmp_path, ".given.txt", text)  # named on the command line: always graded
    entries = collect([root, hidden])
    rows = {e.label.removeprefix(str(root) + "/"): e for e in entries}
    graded = {k for k, e in rows.items() if not e.skipped and not e.error}
    assert graded == {"alice/out.txt", "bob/results/output.txt", "dl.zip!Ann Lee_1001_"
                      "assignsubmission_file_/out.txt", "export/submission_222/output.txt",
                      str(hidden)}
    skipped = {k: e.skipped for k, e in rows.items() if e.skipped}
    assert set(skipped) == {".git/", "__MACOSX/", "Thumbs.db", "bob/main.py", "bob/loop/",
                            "carol/report.docx", "carol/.hidden_notes.txt",
                            "export/submission_metadata.yml"}
    assert all(reason for reason in skipped.values())
    assert "symbolic link" in skipped["bob/loop/"]
    # a download unpacked into a folder beside students' folders: its names lie below the level
    # an LMS writes (the folder given's entries), as a student's own `submission_<id>/` would
    assert rows["export/submission_222/output.txt"].student.id == "export"
    assert rows["dl.zip!Ann Lee_1001_assignsubmission_file_/out.txt"].student.id == "dl"
    assert skipped["export/submission_metadata.yml"].endswith("(only the export's own names "
                                                              "the submitters)")
    assert entries[-1].label == str(hidden)  # in the order given, each folder sorted
    assert [e.label for e in collect([root])] == [e.label for e in entries[:-1]]
    # a folder with nothing, a folder too large for the limits
    (tmp_path / "empty").mkdir()
    (only,) = collect([tmp_path / "empty"])
    assert only.error == f"folder {tmp_path / 'empty'} holds no files to grade"
    (big,) = collect([root], limits=InputLimits(folder_files=3))
    assert "more than 3 files" in big.error


def test_zip_bombs_and_absurd_archives_are_rows(tmp_path, text):
    zeros = b"\0" * (MAX_SUBMISSION_BYTES + 2**20)
    bomb = write(tmp_path, "bomb.zip", _zip({"a_1_2_out.txt": text, "a_1_3_zeros.txt": zeros}))
    assert bomb.stat().st_size < 100_000  # cheap to make, 11 MiB declared
    rows = _by_label(collect([bomb]))
    assert rows[f"{bomb}!a_1_2_out.txt"].data == text.encode()
    assert "11.0 MiB (declared), over the 10 MiB limit" in rows[f"{bomb}!a_1_3_zeros.txt"].error

    # the same member declaring 100 bytes: never more than the declared size is unpacked
    liar = write(tmp_path, "liar.zip", _declare_size(bomb.read_bytes(), "a_1_3_zeros.txt", 100))
    rows = _by_label(collect([liar]))
    assert "damaged" in rows[f"{liar}!a_1_3_zeros.txt"].error
    assert rows[f"{liar}!a_1_2_out.txt"].data == text.encode()

    # many members of zeros: the whole archive is one row, nothing unpacked
    mib = b"\0" * 2**20
    many = write(tmp_path, "many.zip", _zip({f"m{i}.txt": mib for i in range(4)}))
    (row,) = collect([many], limits=InputLimits(archive_bytes=3 * 2**20))
    assert row.label == str(many) and "would unpack to 4.0 MiB, over the 3.0 MiB" in row.error
    # ... also when the bytes hide in nested archives (counted as they are read)
    nest = write(tmp_path, "nest.zip", _zip({"in1.zip": _zip({"a.txt": mib * 2}),
                                             "in2.zip": _zip({"b.txt": mib * 2})}))
    rows = collect([nest], limits=InputLimits(archive_bytes=3 * 2**20))
    assert [e.error[:7] for e in rows] == ["", "refused"] and rows[0].data == mib * 2

    # ... and when they hide in Gradescope metadata files (read before the members)
    meta = write(tmp_path, "meta.zip", _zip({f"e{i}/submission_metadata.yml": mib
                                             for i in range(4)}))
    (row,) = collect([meta], limits=InputLimits(archive_bytes=3 * 2**20))
    assert "unpack to 4.0 MiB, over the 3.0 MiB limit" in row.error

    # too many members: one row, the member count read from the archive's end record
    crowd = write(tmp_path, "crowd.zip", _zip({f"f{i}.txt": "1" for i in range(60)},
                                              zipfile.ZIP_STORED))
    (row,) = collect([crowd], limits=InputLimits(archive_members=50))
    assert "60 members, over the 50 limit" in row.error

    # archives nested deeper than the limit
    deep = write(tmp_path, "deep.zip", _zip({"a.zip": _zip({"b.zip": _zip({"c.txt": text})})}))
    (row,) = collect([deep])
    assert row.label == f"{deep}!a.zip!b.zip" and "nested more than 2 deep" in row.error


def test_corrupt_and_encrypted_archives_are_rows_and_the_batch_goes_on(tmp_path, text):
    good = _zip({"x_1_2_out.txt": text, "x_1_3_more.txt": text})
    files = [
        write(tmp_path, "random.zip", os.urandom(3000)),
        write(tmp_path, "cut.zip", good[: len(good) // 2]),
        write(tmp_path, "empty.zip", b""),
        write(tmp_path, "locked.zip", _mark_encrypted(good, "x_1_3_more.txt")),
        write(tmp_path, "ok.txt", text),
    ]
    damaged = bytearray(good)
    at = damaged.find(b"x_1_2_out.txt") + len("x_1_2_out.txt") + 40  # inside the deflated data
    damaged[at:at + 8] = b"\xff" * 8
    files.insert(4, write(tmp_path, "damaged.zip", bytes(damaged)))
    rows = collect(files)
    by = _by_label(rows)
    for name in ("random.zip", "cut.zip", "empty.zip"):
        assert "not a readable zip archive" in by[str(tmp_path / name)].error
    assert "encrypted" in by[f"{tmp_path / 'locked.zip'}!x_1_3_more.txt"].error
    assert by[f"{tmp_path / 'locked.zip'}!x_1_2_out.txt"].data == text.encode()
    assert "damaged" in by[f"{tmp_path / 'damaged.zip'}!x_1_2_out.txt"].error
    assert by[str(tmp_path / "ok.txt")].path == tmp_path / "ok.txt"
    fifo = tmp_path / "pipe.zip"
    os.mkfifo(fifo)
    (row,) = collect([fifo])  # never opened for reading: grading says why
    assert row.path == fifo and not row.error


def test_a_download_is_graded_end_to_end(refs, tmp_path, text):
    other = layouts(*tables(seed=32))["csv"]
    archive = write(tmp_path, "submissions.zip", _zip({
        "smithjohn_12345_67890_output.txt": text,
        "leeann_23456_78901_out.txt": other,
        "kimmo_45678_99999_work.zip": _zip({"out.txt": text}),  # a copy of smithjohn's
        "doejane_34567_11111_notes.pdf": b"%PDF",
        "__MACOSX/._x": b"x",
    }))
    original = archive.read_bytes()
    out, reports = tmp_path / "book.csv", tmp_path / "reports"
    with pytest.raises(grade.GradeError, match="submission"):
        grade.grade_files(CONFIG, [archive], out=archive, cache_dir=False)
    book = grade.grade_files(CONFIG, [archive], out=out, reports=reports, cache_dir=False)
    assert archive.read_bytes() == original
    by = {g.submission.split("!", 1)[1]: g for g in book.grades}
    assert [g.status for g in book.grades] == ["skipped", "skipped", "ok", "ok", "ok"]
    smith, copy = by["smithjohn_12345_67890_output.txt"], by["kimmo_45678_99999_work.zip!out.txt"]
    assert smith.student == "12345" and copy.student == "45678" and copy.lms == "canvas"
    assert "copied" in smith.flags and smith.similar_to == (copy.submission,)
    leeann = by["leeann_23456_78901_out.txt"]
    assert leeann.layout != smith.layout and "copied" not in leeann.flags
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert list(rows[0]) == list(GRADEBOOK_HEADER)
    assert rows[0]["submission"].endswith("!__MACOSX/") and rows[0]["student"] == ""
    pdf = rows[1]
    assert pdf["student"] == "34567" and pdf["status"] == "skipped" and pdf["score"] == ""
    assert "document" in pdf["error"] and pdf["verdict"] == ""
    assert sorted(p.name for p in reports.glob("*.md")) == sorted(
        f"{n}.md" for n in report_names([g.submission for g in book.graded]))
    frame = book.to_frame()
    assert list(frame.columns[:len(GRADEBOOK_HEADER)]) == list(GRADEBOOK_HEADER)
    assert frame["score"].iloc[2] == smith.score and frame["score"].isna().sum() == 2
    assert frame.loc[frame["student"] == "23456", "regret_decisive"].notna().all()
    # a second run over a folder holding this run's outputs does not grade them
    again = grade.grade_files(CONFIG, [tmp_path], out=out, reports=reports, cache_dir=False)
    own = [g for g in again.grades if "own" in g.error]
    assert {Path(g.submission.rstrip("/")).name for g in own} == {"book.csv", "reports"}


def test_an_earlier_runs_reports_and_site_are_never_graded(refs, tmp_path, text):
    """The reports and site a run writes, found inside the folder graded next time (under any
    name), are skipped rows: recognised by what dicejack writes, never graded."""
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    write(subs / "alice", "out.txt", text)
    grades = [grade_entry(refs, e) for e in collect([subs])]
    write_reports(refs, grades, subs / "old reports")
    write_site(refs, grades, subs / "old site")
    assert any((subs / "old reports").glob("*.md")) and (subs / "old site" / "index.html").exists()
    entries = collect([subs])
    graded = [e.label for e in entries if not e.skipped and not e.error]
    assert graded == [str(subs / "alice" / "out.txt")]
    skipped = {e.label.removeprefix(str(subs) + "/"): e.skipped for e in entries if e.skipped}
    assert skipped["old site/"] == "dicejack's own earlier site (--html), not searched"
    reports = [r for k, r in skipped.items() if k.startswith("old reports/") and k.endswith(".md")]
    assert reports == ["dicejack's own earlier report (--reports), not a submission"]
