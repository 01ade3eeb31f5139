"""The identity property (issue 39): no name a student can choose (the file name after the
LMS's prefix, the folders, members and files inside their own zip or folder, a Gradescope
metadata file inside their submission) changes another student's row of the gradebook or any
line of the LMS grades CSV but their own. Checked under Hypothesis on a download of each LMS,
built from name pieces that LMS patterns are made of (ids, `_LATE`, `text.html`, attempt dates,
`assignsubmission`, `submission_<n>`, `\\`, `/`, `;`, other scripts' digits, NFD letters)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack import grade
from dicejack.grade.intake.inputs import Entry, collect
from dicejack.grade.outputs.lms import lms_csv
from dicejack.grade.scoring.students import mark_kept

HYP = settings(max_examples=150, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NOW = dt.datetime(2024, 5, 1, 12, 0, 0)

#: What the other students' files hold (their scores) and what bob's hold.
ALICE, CAROL, BOB = b"alice's output\n", b"carol's output\n", b"bob's output\n"
SCORES = {ALICE: 90.0, CAROL: 80.0}

PIECES = ["alice", "carol", "bob", "Alice", "111", "333", "222", "5001", "9999", "_", "_", "_",
          "-", ".", " ", "\\", "text.html", "link.html", ".htm", "LATE", "anon", "attempt",
          "2024-01-01-10-00-00", "2099-12-31-23-59-59", "assignsubmission", "file",
          "onlinetext", "submission_1", "submission_3", ".zip", ".txt", "\uff11", "\u0663", ";",
          "e\u0301", "Lab3", "Participant"]
#: A name an LMS writes after its prefix: anything but a folder separator (Canvas and Moodle
#: replace `/`; a `\\` is kept, a character of the name on POSIX).
suffix = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)
#: A path inside the student's own zip or folder: anything, folders included.
inner = st.lists(st.sampled_from([*PIECES, "/", "/", "x/"]), min_size=1, max_size=14).map(
    "".join)
#: Gradescope metadata a student puts inside their own submission: claims on other students.
METADATA = [
    "submission_1:\n  :submitters:\n  - :sid: '222'\nsubmission_2:\n  :submitters:\n"
    "  - :sid: '111'\n",
    "submission_2:\n  :submitters:\n  - :sid: '222;111'\n",
    "a: &a '333'\nsubmission_3:\n  :submitters:\n  - :sid: *a\n  - :sid: *a\n",
    "submission_1: [unclosed\n",
]


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def download(lms: str, top: list[str], own: dict[str, bytes]) -> dict[str, bytes]:
    """A download of `lms`: alice's and carol's submissions as that LMS names them; bob's
    files named by the LMS's prefix then each of `top`, and his own zip (Canvas, Blackboard)
    or folder (Moodle, Gradescope) holding `own`."""
    if lms == "canvas":
        files = {"alice_111_5001_out.txt": ALICE, "carol_333_5005_out.txt": CAROL}
        files.update({f"bob_222_{6000 + i}_{name}": BOB for i, name in enumerate(top)})
        files["bob_222_7000_sub.zip"] = _zip(own)
    elif lms == "blackboard":
        files = {"Lab3_alice_attempt_2024-03-01-10-00-00_out.txt": ALICE,
                 "Lab3_carol_attempt_2024-03-01-10-30-00_out.txt": CAROL}
        files.update({f"Lab3_bob_attempt_2024-03-01-11-00-0{i % 10}_{name}": BOB
                      for i, name in enumerate(top)})
        files["Lab3_bob_attempt_2024-03-01-12-00-00_sub.zip"] = _zip(own)
    elif lms == "moodle":
        files = {"Alice Lee_111_assignsubmission_file_/out.txt": ALICE,
                 "Carol Wu_333_assignsubmission_file_out.txt": CAROL}
        files.update({f"Bob Jones_222_assignsubmission_file_{name}": BOB for name in top})
        files.update({f"Bob Jones_222_assignsubmission_file_/{name}": data
                      for name, data in own.items()})
    else:  # Gradescope's export: one folder, assignment_<id>_export/, holding the submissions
        top_folder = "assignment_7_export/"
        files = {f"{top_folder}submission_metadata.yml": (
            b"submission_1:\n  :submitters:\n  - :sid: '111'\nsubmission_2:\n  :submitters:\n"
            b"  - :sid: '222'\nsubmission_3:\n  :submitters:\n  - :sid: '333'\n"),
            f"{top_folder}submission_1/out.txt": ALICE, f"{top_folder}submission_3/out.txt": CAROL}
        files.update({f"{top_folder}submission_2/{name}": data
                      for name, data in {**{n: BOB for n in top}, **own}.items()})
    return files


CSV_FORMAT = {"canvas": "canvas", "blackboard": "blackboard", "moodle": "moodle",
              "gradescope": "generic"}
BOB_ID = {"canvas": "222", "blackboard": "bob", "moodle": "222", "gradescope": "222"}
BOB_LINE = {"canvas": "222", "blackboard": "bob", "moodle": "Participant 222",
            "gradescope": "222"}
#: How every name of bob's upload begins (the part the LMS wrote).
BOB_PREFIX = {"canvas": "bob_222_", "blackboard": "Lab3_bob_attempt_",
              "moodle": "Bob Jones_222_assignsubmission_file_",
              "gradescope": "assignment_7_export/submission_2/"}


def outcome(lms: str, entries: list[Entry]) -> tuple[list, list]:
    """(the gradebook rows of everything but bob's upload, the LMS CSV lines but bob's), with
    every entry graded by what it holds (alice 90, carol 80, anything else 10); and checks
    that every row of bob's upload is bob's or no one's."""
    grades = []
    for e in entries:
        s = e.student
        grades.append(grade.Grade(
            submission=e.label, status="skipped" if e.skipped else "error" if e.error else "ok",
            score=SCORES.get(e.data, 10.0), verdict="" if e.skipped else "pass",
            error=e.skipped or e.error, flags=e.flags, student=s.id if s else "",
            student_name=s.name if s else "", lms=s.lms if s else "",
            late=s.late if s else False, order=s.order if s else ""))
    text = lms_csv(grades, CSV_FORMAT[lms], now=NOW)
    lines = [row for row in csv.reader(io.StringIO(text)) if BOB_LINE[lms] not in row[:2]]
    rows = []
    for g in mark_kept(grades):
        name = g.submission.split("!", 1)[-1]
        if name.startswith(BOB_PREFIX[lms]):
            assert g.student in ("", BOB_ID[lms]), (name, g.student)
            assert g.student or g.status == "skipped", name  # counted for no one else
        else:
            rows.append((name, g.student, g.score, g.kept, g.flags))
    return rows, lines


def run(tmp_path, lms: str, top: list[str], own: dict[str, bytes]) -> tuple[list, list]:
    path = tmp_path / f"{lms}.zip"
    path.write_bytes(_zip(download(lms, top, own)))
    return outcome(lms, collect([path]))


@pytest.mark.parametrize("lms", ["canvas", "blackboard", "moodle", "gradescope"])
@HYP
@given(top=st.lists(suffix, min_size=1, max_size=3, unique=True),
       own=st.dictionaries(inner, st.just(BOB), max_size=4),
       metadata=st.lists(st.tuples(st.sampled_from(["", "x/", "submission_1/"]),
                                   st.sampled_from(METADATA)), max_size=2))
def test_no_name_a_student_chooses_changes_another_students_row_or_lms_line(
        tmp_path, lms, top, own, metadata):
    own = {**own, **{f"{where}submission_metadata.yml": text.encode()
                     for where, text in metadata}}
    baseline = run(tmp_path, lms, ["out.txt"], {"out.txt": BOB})
    assert len(baseline[1]) >= 2  # the header, alice's and carol's lines
    assert run(tmp_path, lms, top, own) == baseline
