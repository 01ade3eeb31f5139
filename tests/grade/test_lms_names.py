"""Student identifiers from LMS file names: Canvas, Moodle, Gradescope (through the export's
metadata, read and never run) and Blackboard, and the Blackboard receipt rule."""

from __future__ import annotations

import pytest

from dicejack.grade.intake.lms_names import (
    MetadataError,
    Student,
    gradescope_students,
    lms_student,
    receipt_reason,
)

from .support import GS_METADATA


@pytest.mark.parametrize("parts, expected", [
    # Canvas: <name>[_LATE]_<user id>_<attachment id>_<file>, anonymous, text entries
    (["submissions.zip", "smithjohn_12345_67890_output.txt"],
     Student("12345", "smithjohn", "canvas", order="00000000000000067890")),
    (["leeann_LATE_23456_78901_out-1.txt"],
     Student("23456", "leeann", "canvas", late=True, order="00000000000000078901")),
    (["obrien_sean_34567_11111_my_out_2.txt"],  # Canvas keeps `_` of a name, never `_<n>_`
     Student("34567", "obrien_sean", "canvas", order="00000000000000011111")),
    (["LATE_anon_Ab3xY_45678_output.txt"],
     Student("anon_Ab3xY", "", "canvas", late=True, order="00000000000000045678")),
    (["anon_Zq9_45678_output.txt"],
     Student("anon_Zq9", "", "canvas", order="00000000000000045678")),
    (["doejane_34567_text.html"], Student("34567", "doejane", "canvas")),
    (["doejane_LATE_34567_link.html"], Student("34567", "doejane", "canvas", late=True)),
    (["s.zip", "kimmo_45678_99999_work.zip", "work", "out.txt"],
     Student("45678", "kimmo", "canvas", order="00000000000000099999")),
    # Moodle: <full name>_<participant>_assignsubmission_<plugin>_ as folder or file prefix
    (["dl.zip", "Ann Lee_1001_assignsubmission_file_", "out.txt"],
     Student("1001", "Ann Lee", "moodle")),
    (["Ann Lee_1001_assignsubmission_file_out.txt"], Student("1001", "Ann Lee", "moodle")),
    (["Participant_1003_assignsubmission_file_", "sub", "results.txt"],
     Student("1003", "", "moodle")),
    (["Group A-Bo Chen_1002_assignsubmission_onlinetext_", "onlinetext.html"],
     Student("1002", "Group A-Bo Chen", "moodle")),
    # Blackboard: <assignment>_<user>_attempt_<date>[_<file>]
    (["Lab 3_jdoe3_attempt_2024-02-28-21-02-38_output.txt"],
     Student("jdoe3", "", "blackboard", order="2024-02-28-21-02-38")),
    (["Lab_3_final_jdoe3_attempt_2024-02-28-21-02-38.txt"],
     Student("jdoe3", "", "blackboard", order="2024-02-28-21-02-38")),
    # Gradescope: submission_<id> folders, through the export's metadata when known
    (["export", "submission_111", "output.txt"], Student("100", "Solo Student", "gradescope")),
    (["export", "submission_222", "output.txt"],
     Student("200;two@example.edu", "Pair One; Pair Two", "gradescope")),
    (["export", "submission_333", "out.txt"], Student("No Ids", "No Ids", "gradescope")),
    (["export", "submission_444", "out.txt"], Student("submission_444", "", "gradescope")),
    # only the LMS-written part: a student's own file name never moves the match
    (["bob_222_5002_x_111_text.html"],
     Student("222", "bob", "canvas", order="00000000000000005002")),
    (["Lab3_bob_attempt_2024-03-01-11-00-00_x_alice_attempt_2099-12-31-23-59-59_n.txt"],
     Student("bob", "", "blackboard", order="2024-03-01-11-00-00")),
    (["Eve x_111_assignsubmission_file__222_assignsubmission_file_", "out.txt"],
     Student("222", "Eve x_111_assignsubmission_file_", "moodle")),
    (["Bo_222_assignsubmission_file_x_111_assignsubmission_file_.txt"],
     Student("222", "Bo", "moodle")),
    (["bob_222_5002_x\\alice_111_9999_out.txt"],
     Student("222", "bob", "canvas", order="00000000000000005002")),
    (["alice_\uff11\uff11\uff11_5000_out.txt"], None),
    (["Lab3_bob_attempt_9999-99-99-99-99-99_out.txt"], None),
    # not an LMS name: a folder that looks like Canvas is not Canvas (Canvas names files)
    (["hw_1_2_final", "out.txt"], None),
    (["alice", "output.txt"], None),
    (["submission_111.txt"], None),
])
def test_lms_names(parts, expected):
    known = gradescope_students(GS_METADATA)
    assert lms_student(parts, known) == expected


def test_gradescope_metadata_is_read_not_run():
    people = gradescope_students(GS_METADATA)
    assert set(people) == {"submission_111", "submission_222", "submission_333"}
    with pytest.raises(MetadataError, match="^not a mapping"):
        gradescope_students("!!python/object/apply:os.system ['echo hi']\n")
    assert gradescope_students("") == {}


def test_a_blackboard_receipt_is_skipped_only_beside_its_files():
    receipt = "Lab 3_jdoe3_attempt_2024-02-28-21-02-38.txt"
    files = [receipt, "Lab 3_jdoe3_attempt_2024-02-28-21-02-38_output.txt"]
    assert receipt_reason(receipt, files) == (
        "the Blackboard receipt of an attempt whose files are graded")
    assert receipt_reason(receipt, [receipt, "Lab 3_asmith_attempt_2024-02-28-"
                                          "21-02-38_output.txt"]) == ""
    assert receipt_reason(files[1], files) == ""  # a file of the attempt, not its receipt
