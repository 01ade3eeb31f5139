"""Identity from the LMS-written part of a name only (issue 39, items 1-5 and 7): the Canvas
prefix read from the left, Blackboard's first attempt with a real date, Moodle's own part, ASCII
ids, `\\` part of a name, Gradescope metadata only beside the submissions it names (capped, `;`
refused, a failure is a row), links across students not followed, one spelling per student,
per-student folders, walks without recursion, dicejack's own earlier outputs never graded.
Each reproduction of the issue is a test here (they failed before the fix)."""

from __future__ import annotations

import csv
import io
import os
import unicodedata
import zipfile

import pytest

from dicejack import grade
from dicejack.cli import main
from dicejack.grade.intake.inputs import Entry, collect
from dicejack.grade.intake.lms_names import canvas_student, gradescope_students, lms_student
from dicejack.grade.outputs.lms import student_scores
from dicejack.grade.outputs.site import SITE_MARKER
from dicejack.grade.scoring.students import file_owner, student_ids

from .support import TEXT, submission_text, zip_bytes


def by_name(entries: list[Entry]) -> dict[str, Entry]:
    """The entries by their last name (after the last `/` or `!`)."""
    return {e.label.rsplit("!", 1)[-1].rsplit("/", 1)[-1]: e for e in entries}


def ids(entries: list[Entry]) -> dict[str, str | None]:
    return {k: (e.student.id if e.student else None) for k, e in by_name(entries).items()}


# --------------------------------------------------------- 1. Canvas, read from the left
@pytest.mark.parametrize("attack", [
    "bob_222_5002_x_111_text.html", "bob_222_5002_x_111_link.html",
    "bob_222_5002_x_LATE_111_text.html", "bob_222_5002_x_111_text.htm",
    "bob_222_5002_alice_111_text.html", "bob_LATE_222_5002_x_111_text.html",
])
def test_a_canvas_text_entry_name_inside_a_students_file_name_is_theirs(tmp_path, attack):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "alice_111_text.html").write_text(TEXT)
    (folder / "bob_222_5001_out.txt").write_text(TEXT)
    (folder / attack).write_text(TEXT)
    archive = tmp_path / "c.zip"
    archive.write_bytes(zip_bytes({p.name: p.read_bytes() for p in folder.iterdir()}))
    for given in (folder, archive):
        found = ids(collect([given]))
        assert found == {"alice_111_text.html": "111", "bob_222_5001_out.txt": "222",
                         attack: "222"}


def test_the_issue_reproduction_keeps_alices_grade(tmp_path, monkeypatch):
    """`dicejack grade c.zip --lms-csv l.csv --lms-format canvas`: bob's bad upload whose name
    ends in `_111_text.html` no longer replaces alice's grade."""
    monkeypatch.chdir(tmp_path)
    good, good7 = submission_text(6), submission_text(7)
    bad = "Best number of dice:\n" + "1 1\n" * 2 + "\nWin probability:\n" + "0.1 0.1\n" * 2
    (tmp_path / "c.zip").write_bytes(zip_bytes({
        "alice_111_text.html": good, "bob_222_5001_out.txt": good7,
        "bob_222_5002_x_111_text.html": bad}))
    code = main(["grade", "c.zip", "--sides", "4", "--low", "8", "--high", "9", "--dice", "2",
                 "-m", "100", "--games", "3000", "--references", "10", "--cache", "cache",
                 "--lms-csv", "l.csv", "--lms-format", "canvas", "--out", "book.csv"])
    assert code in (0, 1)
    rows = {r["ID"]: r for r in csv.DictReader(
        line for i, line in enumerate(open("l.csv")) if i != 1)}
    assert set(rows) == {"111", "222"}
    book = {r["submission"].rsplit("!", 1)[-1]: r for r in csv.DictReader(open("book.csv"))}
    assert book["bob_222_5002_x_111_text.html"]["student"] == "222"
    assert book["alice_111_text.html"]["kept"] == "yes"
    assert rows["111"]["dicejack"] == book["alice_111_text.html"]["score"]


@pytest.mark.parametrize("name", [
    "alice_１１１_5000_out.txt", "alice_١١١_5000_out.txt", "alice_111_５０００_out.txt",
    "alice_111" + "1" * 30 + "_5_o.txt"])
def test_digits_other_than_ascii_and_absurd_ids_are_not_ids(name):
    assert lms_student([name]) is None


def test_a_canvas_name_is_what_canvas_writes():
    assert canvas_student("smithjohn_12345_67890_out.txt").id == "12345"
    assert canvas_student("müller_jörg_7_8_out.txt").name == "müller_jörg"
    # a name Canvas would have lower-cased, or a token of digits inside it: not Canvas's
    assert canvas_student("Smith_12345_67890_out.txt") is None
    assert canvas_student("smith_12_x_12345_67890_out.txt") is None
    assert canvas_student("smith_12345_text.html.txt") is None


# ------------------------------------------------------- 2. Blackboard: first, real date
def test_blackboard_reads_the_first_attempt_and_only_real_dates():
    name = ("Lab3_bob_attempt_2024-03-01-11-00-00_x_alice_attempt_2099-12-31-23-59-59_"
            "notes.txt")
    student = lms_student([name])
    assert (student.id, student.order) == ("bob", "2024-03-01-11-00-00")
    assert lms_student(["Lab3_bob_attempt_9999-99-99-99-99-99_out.txt"]) is None
    assert lms_student(["Lab3_bob_attempt_2024-02-30-10-00-00_out.txt"]) is None
    assert lms_student(["Lab3_a;b_attempt_2024-03-01-11-00-00_out.txt"]) is None


def test_a_later_attempt_named_inside_a_file_does_not_become_the_latest(tmp_path):
    folder = tmp_path / "bb"
    folder.mkdir()
    (folder / "Lab3_alice_attempt_2024-03-01-10-00-00_out.txt").write_text(TEXT)
    (folder / ("Lab3_bob_attempt_2024-03-01-11-00-00_x_alice_attempt_2099-12-31-23-59-59_"
               "notes.txt")).write_text(TEXT)
    rows = [grade.Grade(submission=e.label, status="ok", score=50.0, verdict="pass",
                        student=e.student.id, lms=e.student.lms, order=e.student.order)
            for e in collect([folder])]
    scores = {s.student: s.submissions for s in student_scores(rows)}
    assert sorted(scores) == ["alice", "bob"]
    assert scores["alice"][0].endswith("Lab3_alice_attempt_2024-03-01-10-00-00_out.txt")


# --------------------------------------------- 3. Gradescope metadata: beside it, capped
def _alias_bomb(submission: str, size: int) -> str:
    """Metadata whose one long SID is aliased by many submitters (joined: size x aliases)."""
    long_sid = "9" * size
    aliases = "".join("  - *p\n" for _ in range(2000))
    return (f"anchor: &p\n  :sid: '{long_sid}'\n{submission}:\n  :submitters:\n  - *p\n"
            + aliases)


def test_metadata_inside_a_students_zip_is_never_read_and_the_batch_goes_on(tmp_path):
    bomb = _alias_bomb("submission_1", 2**20)
    inner = zip_bytes({"submission_metadata.yml": bomb, "submission_1/out.txt": TEXT})
    assert len(zipfile.ZipFile(io.BytesIO(inner)).read("submission_metadata.yml")) > 2**20
    download = tmp_path / "c.zip"
    download.write_bytes(zip_bytes({"bob_222_5000_sub.zip": inner,
                                    "alice_111_5001_out.txt": TEXT}))
    entries = by_name(collect([download]))
    assert entries["submission_metadata.yml"].skipped.startswith(
        "a submission_metadata.yml inside a submission")
    assert entries["out.txt"].student.id == "222"
    assert entries["alice_111_5001_out.txt"].student.id == "111"


def test_an_alias_bomb_in_the_exports_own_metadata_is_a_row(tmp_path):
    problems: list[str] = []
    people = gradescope_students(_alias_bomb("submission_1", 2**20), problems)
    assert people == {} and problems == ["submission_1: 2,001 submitters, over the 100 limit"]
    long_one = "submission_1:\n  :submitters:\n  - :sid: '" + "1" * 300 + "'\n"
    assert gradescope_students(long_one, problems) == {}
    assert "over 254 characters" in problems[-1]
    export = tmp_path / "export"
    (export / "submission_1").mkdir(parents=True)
    (export / "submission_2").mkdir()
    (export / "submission_metadata.yml").write_text(
        _alias_bomb("submission_1", 2**20).replace("anchor:", "submission_2:\n  :submitters:\n"
                                                   "  - :sid: '200'\nanchor:"))
    (export / "submission_1" / "out.txt").write_text(TEXT)
    (export / "submission_2" / "out.txt").write_text(TEXT)
    rows = collect([export])
    meta = next(e for e in rows if e.label.endswith("submission_metadata.yml"))
    assert "not named by it" in meta.skipped and "2,001 submitters" in meta.skipped
    assert [e.student.id for e in rows if not e.skipped] == ["submission_1", "200"]


def test_a_gradescope_id_holding_a_semicolon_counts_for_no_one_else(tmp_path):
    problems: list[str] = []
    text = ("submission_1:\n  :submitters:\n  - :sid: '222;111'\n"
            "submission_2:\n  :submitters:\n  - :sid: '111'\n")
    people = gradescope_students(text, problems)
    assert set(people) == {"submission_2"} and "holding ';'" in problems[0]
    g = grade.Grade(submission="x", status="ok", student="a;b", lms="blackboard")
    assert student_ids(g) == ("a;b",)  # only Gradescope names groups
    assert student_ids(grade.Grade(submission="x", status="ok", student="a;b",
                                         lms="gradescope")) == ("a", "b")


def test_metadata_beside_no_submission_folder_is_not_read(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "submission_metadata.yml").write_text("[" * 100_000)
    (folder / "alice_111_5001_out.txt").write_text(TEXT)
    alice, meta = collect([folder])
    assert "beside no submission_<id> folder" in meta.skipped and alice.student.id == "111"


# ------------------------------------------------------ 4. a backslash is part of a name
def test_a_backslash_never_splits_a_name(tmp_path):
    name = "bob_222_5002_x\\alice_111_9999_out.txt"
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / name).write_text(TEXT)
    (folder / "alice_111_5001_out.txt").write_text(TEXT)
    archive = tmp_path / "c.zip"
    archive.write_bytes(zip_bytes({name: TEXT, "alice_111_5001_out.txt": TEXT,
                                   "carol_333_5003_w.zip": zip_bytes({"a\\b.txt": TEXT})}))
    for given in (folder, archive):
        found = {e.label.rsplit("!", 1)[-1].removeprefix(str(folder) + "/"): e
                 for e in collect([given])}
        assert found[name].student.id == "222" and found[name].student.order.endswith("5002")
    assert file_owner("c.zip!x\\y.txt") == ("x\\y" if os.sep == "/" else "y")


# ------------------------------------------------- 5. Moodle, links, digits, spellings
def test_a_moodle_folder_is_read_to_its_end_and_a_moodle_file_from_its_start(tmp_path):
    root = tmp_path / "moodle"
    eve = root / "Eve x_111_assignsubmission_file__222_assignsubmission_file_"
    eve.mkdir(parents=True)
    (eve / "out.txt").write_text(TEXT)
    (root / "Ann Lee_111_assignsubmission_file_").mkdir()
    (root / "Ann Lee_111_assignsubmission_file_" / "out.txt").write_text(TEXT)
    (root / "Bo Chen_333_assignsubmission_file_x_111_assignsubmission_file_.txt").write_text(TEXT)
    found = {e.label.removeprefix(str(root) + "/"): e.student.id for e in collect([root])}
    assert found == {eve.name + "/out.txt": "222", "Ann Lee_111_assignsubmission_file_/out.txt":
                     "111", "Bo Chen_333_assignsubmission_file_x_111_assignsubmission_file_.txt":
                     "333"}


def test_a_link_from_one_students_folder_to_anothers_file_is_not_followed(tmp_path):
    root = tmp_path / "moodle"
    alice = root / "Alice_111_assignsubmission_file_"
    bob = root / "Bob_222_assignsubmission_file_"
    alice.mkdir(parents=True)
    bob.mkdir()
    (alice / "out.txt").write_text(TEXT)
    (bob / "notes.txt").write_text(TEXT)
    os.symlink(alice / "out.txt", bob / "out.txt")
    os.symlink(bob / "notes.txt", bob / "again.txt")  # inside bob's own folder: followed
    canvas = tmp_path / "canvas"
    canvas.mkdir()
    (canvas / "alice_111_5001_out.txt").write_text(TEXT)
    os.symlink(canvas / "alice_111_5001_out.txt", canvas / "bob_222_5002_out.txt")
    plain = tmp_path / "plain"
    (plain / "alice").mkdir(parents=True)
    (plain / "bob").mkdir()
    (plain / "alice" / "out.txt").write_text(TEXT)
    os.symlink(plain / "alice" / "out.txt", plain / "bob" / "out.txt")
    rows = {e.label.removeprefix(str(tmp_path) + "/"): e
            for e in collect([root, canvas, plain])}
    for link in (f"moodle/{bob.name}/out.txt", "canvas/bob_222_5002_out.txt", "plain/bob/out.txt"):
        assert rows[link].skipped == ("not followed: a symbolic link leading outside the "
                                      "student's own folder") and rows[link].path is None
    assert not rows[f"moodle/{bob.name}/again.txt"].skipped
    assert rows[f"moodle/{bob.name}/again.txt"].student.id == "222"


def test_look_alike_names_are_one_student_and_flagged(tmp_path):
    root = tmp_path / "subs"
    nfc, nfd = "Café", unicodedata.normalize("NFD", "Café")
    assert nfc != nfd
    for name in (nfc, nfd, "ALICE", "alice", "bob"):
        (root / name).mkdir(parents=True)
        (root / name / "out.txt").write_text(TEXT)
    entries = collect([root])
    students = [e.student.id for e in entries]
    assert sorted(set(students)) == sorted({"ALICE", nfc, "bob"})
    flagged = {e.student.id for e in entries if "identity-ambiguous" in e.flags}
    assert flagged == {"ALICE"}  # two Unicode forms of one name are one name: not flagged
    top = tmp_path / "top"
    top.mkdir()
    for name in (nfc, nfd, "Bob", "bob"):
        (top / f"{name}.txt").write_text(TEXT)
    found = collect([top])
    owners = [e.student.id if e.student else file_owner(e.label) for e in found]
    assert sorted(owners) == sorted([nfc, nfc, "Bob", "Bob"])
    assert {e.student.id for e in found if e.flags} == {"Bob"}
    rows = [grade.Grade(submission=e.label, status="ok", score=1.0, verdict="pass",
                        student=e.student.id, lms=e.student.lms, flags=e.flags)
            for e in entries]
    keys = [s.student.casefold() for s in student_scores(rows)]
    assert len(keys) == len(set(keys)) == 3
    # Blackboard user names and e-mail addresses: one person in any case
    folder = tmp_path / "bb"
    folder.mkdir()
    for user in ("jdoe", "JDoe"):
        (folder / f"Lab3_{user}_attempt_2024-03-01-11-00-0{len(user)}_out.txt").write_text(TEXT)
    assert {e.student.id for e in collect([folder])} == {"JDoe"}


# ------------------------------------------------------------- 7. folders, depth, outputs
def test_unnamed_files_in_per_student_folders_keep_their_folder(tmp_path):
    subs = tmp_path / "subs"
    for who in ("alice", "bob"):
        (subs / who / "run").mkdir(parents=True)
        (subs / who / "out.txt").write_text(TEXT)
    (subs / "bob" / "run" / "final.txt").write_text(TEXT)
    (subs / "carol.zip").write_bytes(zip_bytes({"out.txt": TEXT}))
    (subs / "dave.txt").write_text(TEXT)
    entries = collect([subs])
    found = {e.label.removeprefix(str(subs) + "/"): e.student.id if e.student else None
             for e in entries}
    assert found == {"alice/out.txt": "alice", "bob/out.txt": "bob", "bob/run/final.txt": "bob",
                     "carol.zip!out.txt": "carol", "dave.txt": None}
    rows = [grade.Grade(submission=e.label, status="ok", score=1.0, verdict="pass",
                        student=e.student.id if e.student else "") for e in entries]
    assert sorted(s.student for s in student_scores(rows)) == ["alice", "bob", "carol",
                                                                      "dave"]
    # a zip given that holds one folder of its own name: the folders inside it are the students
    packed = tmp_path / "subs.zip"
    packed.write_bytes(zip_bytes({"subs/alice/out.txt": TEXT, "subs/bob/out.txt": TEXT}))
    assert [e.student.id for e in collect([packed])] == ["alice", "bob"]


def test_a_folder_nested_990_deep_is_walked_without_recursion(tmp_path):
    deep = tmp_path / "deep"
    levels = [str(deep)]
    for _ in range(990):  # one by one: os.makedirs (and shutil.rmtree) themselves recurse
        levels.append(os.path.join(levels[-1], "a"))
    try:
        for level in levels:
            os.mkdir(level)
        with open(os.path.join(levels[-1], "out.txt"), "w") as fh:
            fh.write(TEXT)
        (deep / "top.txt").write_text(TEXT)
        entries = collect([deep])
        assert [e.label.rsplit("/", 1)[-1] for e in entries] == ["top.txt", "out.txt"]
        assert entries[1].student.id == "a" and not entries[1].error
    finally:  # removed bottom up, so that pytest's own clean-up never meets it
        for name in (os.path.join(levels[-1], "out.txt"), str(deep / "top.txt")):
            if os.path.exists(name):
                os.remove(name)
        for level in reversed(levels):
            if os.path.isdir(level):
                os.rmdir(level)


def test_earlier_sites_and_reports_inside_the_graded_folder_are_not_graded(tmp_path):
    assert SITE_MARKER == ".dicejack-site"  # the marker grade.site writes
    subs = tmp_path / "subs"
    (subs / "old-site").mkdir(parents=True)
    (subs / "old-site" / SITE_MARKER).write_text("site")
    (subs / "old-site" / "index.html").write_text(TEXT)
    (subs / "old-reports").mkdir()
    (subs / "old-reports" / "alice.md").write_text("# Grade: `alice.txt`\n\n" + TEXT)
    (subs / "old-reports" / "notes.md").write_text(TEXT)  # not a report: graded
    (subs / "alice.txt").write_text(TEXT)
    archive = tmp_path / "again.zip"
    archive.write_bytes(zip_bytes({"site/.dicejack-site": "x", "site/a.html": TEXT,
                                   "r/alice.md": "# Grade: `alice.txt`\n" + TEXT,
                                   "bob.txt": TEXT}))
    rows = {e.label.removeprefix(str(subs) + "/"): e for e in collect([subs, archive])}
    assert rows["old-site/"].skipped == "dicejack's own earlier site (--html), not searched"
    assert rows["old-reports/alice.md"].skipped == ("dicejack's own earlier report (--reports), "
                                                    "not a submission")
    graded = sorted(k.rsplit("/", 1)[-1] for k, e in rows.items() if not e.skipped)
    assert graded == ["again.zip!bob.txt", "alice.txt", "notes.md"]
    assert rows[f"{archive}!site/"].skipped.startswith("dicejack's own earlier site")
    assert rows[f"{archive}!r/alice.md"].skipped.startswith("dicejack's own earlier report")
