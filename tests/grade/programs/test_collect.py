"""Student programs from files, class folders, folders per student and LMS zips."""

import zipfile

import pytest

from dicejack.grade import GradeError
from dicejack.grade.programs.collect import collect_programs


def test_a_class_folder_of_files_and_folders(tmp_path):
    cls = tmp_path / "class"
    (cls / "alice").mkdir(parents=True)
    (cls / "alice" / "Main.java").write_text("public class Main {}")
    (cls / "alice" / "Util.java").write_text("class Util {}")
    (cls / "bob.py").write_text("print(1)")
    (cls / "carol.c").write_text("int main(){}")
    (cls / "notes.txt").write_text("not a program")
    found = collect_programs([cls], tmp_path / "work")
    assert [s.label for s in found] == ["alice", "bob.py", "carol.c"]
    assert sorted(p.name for p in found[0].folder.iterdir()) == ["Main.java", "Util.java"]


def test_one_students_folder_given_alone_is_one_program(tmp_path):
    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "Game.java").write_text(
        "public class Game { public static void main(String[] a) {} }")
    (tmp_path / "dave" / "Dice.java").write_text("class Dice {}")
    found = collect_programs([tmp_path / "dave"], tmp_path / "work")
    assert [s.label for s in found] == ["dave"]


def test_an_lms_zip_names_students_and_drops_escaping_members(tmp_path):
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("smithjohn_12345_67890_learn.py", "print(1)")
        zf.writestr("doejane_23456_78901_learn.c", "int main(){}")
        zf.writestr("../escape.py", "print('outside')")
    work = tmp_path / "work"
    found = collect_programs([archive], work)
    assert [s.parts[-1] for s in found] == ["doejane_23456_78901_learn.c",
                                            "smithjohn_12345_67890_learn.py"]
    assert all(s.parts[0] == "submissions.zip" for s in found)
    assert not (tmp_path / "escape.py").exists() and not any(work.rglob("escape.py"))


def test_a_missing_path_is_an_error(tmp_path):
    with pytest.raises(GradeError, match="no such file"):
        collect_programs([tmp_path / "nothing"], tmp_path / "work")
