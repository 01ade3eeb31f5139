"""Student programs from files, class folders, folders per student and LMS zips."""

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig, GradeError
from dicejack.grade import programs as pg
from dicejack.grade.intake.lms_names import lms_student
from dicejack.grade.programs import languages
from dicejack.grade.programs.collect import collect_programs
from dicejack.grade.programs.conventions import Settings
from dicejack.grade.programs.languages import find_program
from dicejack.runtime import sandbox as sb

from .test_languages import _vendored


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


# ------------------------------------------------------------------ real LMS layouts
# The issue: "Canvas renames uploads: student_1003_5003_Learner.java holding public class Learner
# does not compile, and a C program with a local util.h renamed the same way does not either; a
# student's own .zip inside the Canvas download gets no row at all; a flat folder of two
# students' files (one main.c, one pa3.py) became one program and one row."

LAYOUTS = Path(__file__).resolve().parents[2] / "students" / "programs" / "layouts"


def _names(source) -> list[str]:
    return sorted(p.relative_to(source.folder).as_posix() for p in source.folder.rglob("*")
                  if p.is_file())


def _who(source):
    s = lms_student(source.student_parts(), deepest=source.deepest)
    return (s.lms, s.id) if s is not None else None


def test_a_canvas_renamed_java_file_goes_back_under_its_public_class(tmp_path):
    (found,) = collect_programs([LAYOUTS / "canvas_java"], tmp_path / "work")
    assert _names(found) == ["Learner.java"] and not found.error
    assert _who(found) == ("canvas", "1003")  # identity from the LMS name, never the code's
    assert found.parts[-1] == "student_1003_5003_Learner.java"
    p = find_program(found.folder, found.label)
    assert p.main == "Learner.java" and p.run_command()[-1] == "Learner"


def test_a_canvas_renamed_c_header_goes_back_under_its_include(tmp_path):
    (found,) = collect_programs([LAYOUTS / "canvas_c"], tmp_path / "work")
    assert _names(found) == ["learn.c", "util.h"] and _who(found) == ("canvas", "1004")


def test_one_renamed_file_given_alone_is_put_back(tmp_path):
    (found,) = collect_programs([LAYOUTS / "canvas_java" / "student_1003_5003_Learner.java"],
                                tmp_path / "work")
    assert _names(found) == ["Learner.java"] and _who(found) == ("canvas", "1003")


def test_a_flat_folder_is_one_student_per_lms_name(tmp_path):
    flat = tmp_path / "download"
    flat.mkdir()
    (flat / "alice_111_222_main.c").write_text('#include "util.h"\nint main(void){return 0;}')
    (flat / "alice_111_223_util.h").write_text("int twice(int);")
    (flat / "bob_333_444_pa3.py").write_text("print(1)")
    found = collect_programs([flat], tmp_path / "work")
    assert [_who(s) for s in found] == [("canvas", "111"), ("canvas", "333")]
    assert [_names(s) for s in found] == [["main.c", "util.h"], ["pa3.py"]]
    assert [s.label for s in found] == ["alice_111_223_util.h", "bob_333_444_pa3.py"]


def test_a_flat_download_packed_in_its_folder_is_one_student_per_lms_name(tmp_path):
    archive = tmp_path / "hw3.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("hw3/alice_111_222_main.c", "int main(void){return 0;}")
        zf.writestr("hw3/bob_333_444_pa3.py", "print(1)")
    found = collect_programs([archive], tmp_path / "work")
    assert [(_who(s), _names(s)) for s in found] == [(("canvas", "111"), ["main.c"]),
                                                     (("canvas", "333"), ["pa3.py"])]


def _zip(members: dict[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_a_students_own_zip_in_the_download_is_that_students(tmp_path):
    own = _zip({"pa3/Learner.java": "public class Learner {}", "pa3/lib.zip": _zip(
        {"x.java": "class X {}"}), "../../escape.py": "print(1)"})
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("alice_111_222_submission.zip", own)
        zf.writestr("bob_333_444_pa3.py", "print(1)")
        zf.writestr("carol_555_666_broken.zip", b"PK\x03\x04 not a zip")
    work = tmp_path / "work"
    found = collect_programs([archive], work)
    by = {_who(s): s for s in found}
    assert set(by) == {("canvas", "111"), ("canvas", "333"), ("canvas", "555")}
    alice = by[("canvas", "111")]
    assert not alice.error and _names(alice) == ["pa3/Learner.java", "pa3/lib.zip"]  # not nested
    assert alice.parts == ("submissions.zip", "alice_111_222_submission.zip")
    assert "cannot read the archive carol_555_666_broken.zip" in by[("canvas", "555")].error
    assert not by[("canvas", "333")].error
    assert not any(work.rglob("escape.py")) and not (tmp_path / "escape.py").exists()


def test_two_files_wanting_one_name_keep_the_lms_latest_and_say_so(tmp_path):
    flat = tmp_path / "download"
    flat.mkdir()
    (flat / "ann_7_10_Game.java").write_text("public class Game { /* old */ }")
    (flat / "ann_7_12_Game-1.java").write_text(
        "public class Game { public static void main(String[] a) {} }")
    (found,) = collect_programs([flat], tmp_path / "work")
    assert _names(found) == ["Game.java"] and "main" in (found.folder / "Game.java").read_text()
    assert found.notes and "kept the latest, ann_7_12_Game-1.java" in found.notes[0]


@pytest.mark.parametrize("own", ["-o.c", "..", ".", "x.c"])
def test_a_name_put_back_is_a_plain_name_in_the_folder(tmp_path, own):
    flat = tmp_path / "download"
    flat.mkdir()
    name = f"eve_9_9_{own}"
    (flat / name).write_text("int main(void){return 0;}")
    (flat / "eve_9_8_main.c").write_text("int helper(void){return 0;}")
    (found,) = collect_programs([flat], tmp_path / "work")
    names = [p.name for p in found.folder.iterdir()]
    assert set(names) == {"main.c", own if own == "x.c" else name}
    assert all(p.parent == found.folder for p in found.folder.iterdir())


def test_the_java_name_comes_from_the_public_top_level_type_not_comments(tmp_path):
    flat = tmp_path / "download"
    flat.mkdir()
    (flat / "fay_4_5_anything.java").write_text(
        "// public class Wrong {}\n/* public class Wrong2 */\nimport java.util.*;\n"
        "final public class Right {\n  public static class Inner {}\n"
        "  public static void main(String[] a) { String s = \"public class Str\"; }\n}\n")
    (found,) = collect_programs([flat], tmp_path / "work")
    assert _names(found) == ["Right.java"]


def test_names_deeper_than_the_lms_level_are_never_put_back(tmp_path):
    cls = tmp_path / "class"
    (cls / "gus").mkdir(parents=True)
    (cls / "gus" / "ann_7_10_Game.java").write_text("public class Game {}")
    (found,) = collect_programs([cls], tmp_path / "work")
    assert _names(found) == ["ann_7_10_Game.java"] and _who(found) is None


# ------------------------------------------------------------------ built and run in the jail

TINY = Settings(6, 7, 9, 2, 10.0, 300)
ARGV = "argv: {sides} {low} {high} {dice} {m} {games}"
FAITHFUL = LAYOUTS.parent / "faithful" / "learn_argv.py"


def _runner() -> pg.Runner:
    try:
        box = sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")
    return pg.Runner(box, sb.Limits(wall_seconds=60.0, cpu_seconds=60))


def _build_and_run(source, runner, settings=TINY) -> bytes:
    program = find_program(source.folder, source.label, None, source.parts)
    built = pg.build(program, runner)
    try:
        assert not built.error, built.error
        result = pg.run_once(built, runner, pg.parse_convention(ARGV), settings)
        assert result.ok, result.stderr
        return result.stdout
    finally:
        built.discard()


@pytest.mark.slow
@pytest.mark.parametrize("layout, compiler", [("canvas_java", "javac"), ("canvas_c", "gcc")])
def test_canvas_renamed_programs_build_and_run_in_the_jail(tmp_path, layout, compiler):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    (source,) = collect_programs([LAYOUTS / layout], tmp_path / "work")
    out = _build_and_run(source, _runner()).decode()
    assert out.startswith("Best number of dice:\n") and len(out.splitlines()) == 2 * 7 + 3


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")
def test_a_java_program_with_its_vendored_library_of_993_files_builds(tmp_path):
    folder = tmp_path / "class" / "alice"  # a student's folder in a class folder
    folder.mkdir(parents=True)
    _vendored(folder)
    (source,) = collect_programs([folder.parent], tmp_path / "work")
    assert _build_and_run(source, _runner()) == b"vendored 0\n"


@pytest.mark.slow
@pytest.mark.parametrize("compiler, files", [
    ("gcc", {"main file.c": '#include "odd.h"\nint main(void){return helper();}',
             "it's \"odd\"\\.c": "int helper(void){return 0;}", "odd.h": "int helper(void);"}),
    ("javac", {"Main.java": "public class Main { public static void main(String[] a) "
                            "{ System.exit(new Odd().v()); } }",
               "Odd.java": "class Odd { int v() { return 0; } }",
               "it's \"odd\"\\ #x.java": "class Other {}"}),
])
def test_an_argument_file_of_odd_names_builds(tmp_path, monkeypatch, compiler, files):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    monkeypatch.setattr(languages, "ARGFILE_OVER", 0)
    folder = tmp_path / "odd"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    (source,) = collect_programs([folder], tmp_path / "work")
    program = find_program(source.folder, source.label)
    assert program.argfile and program.build_command()[-1 if compiler == "javac" else -2] \
        .startswith("@./")
    runner = _runner()
    built = pg.build(program, runner)
    try:
        assert not built.error, built.error
    finally:
        built.discard()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("javac") is None,
                    reason="gcc or javac is not installed")
def test_a_flat_canvas_download_grades_one_row_per_student(tmp_path):
    """alice's C program and its renamed header, bob's Python file, carol's own zip of a Java
    program, and dan's corrupt zip, all flat in one folder: four rows, each the LMS's student."""
    flat = tmp_path / "download"
    flat.mkdir()
    c = LAYOUTS / "canvas_c"
    shutil.copy(c / "student_1004_5004_learn.c", flat / "alice_111_222_learn.c")
    shutil.copy(c / "student_1004_5004_util.h", flat / "alice_111_223_util.h")
    shutil.copy(FAITHFUL, flat / "bob_333_444_pa3.py")
    java = (LAYOUTS / "canvas_java" / "student_1003_5003_Learner.java").read_text()
    (flat / "carol_555_666_submission.zip").write_bytes(_zip({"pa3/Learner.java": java}))
    (flat / "dan_777_888_submission.zip").write_bytes(b"PK\x03\x04 torn")
    config = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games)
    plan = pg.RunPlan((pg.PlannedSetting(TINY, "assigned", 1),))
    batch = pg.grade_programs(config, plan, [flat], _runner(),
                              conventions=(pg.parse_convention(ARGV),),
                              cache_dir=tmp_path / "refs")
    rows = {s.grade.student: s for s in batch.students}
    assert set(rows) == {"111", "333", "555", "777"}
    assert {rows[k].language for k in ("111", "333", "555")} == {"c", "python", "java"}
    for k in ("111", "333", "555"):
        assert rows[k].grade.status == "ok" and rows[k].grade.lms == "canvas", rows[k].grade
    assert "cannot read the archive dan_777_888_submission.zip" in rows["777"].grade.error


@pytest.mark.parametrize("text", [b"public " * 140_000, b"/*" * 400_000, b"'\"" * 400_000,
                                  b"#include \"" * 90_000, b"\n" * 900_000 + b"from"])
def test_reading_a_hostile_renamed_file_costs_one_pass(tmp_path, text):
    flat = tmp_path / "download"
    flat.mkdir()
    (flat / "hal_1_2_Slow.java").write_bytes(text)
    (flat / "hal_1_3_slow.c").write_bytes(text)
    (flat / "hal_1_4_slow.py").write_bytes(text)
    (found,) = collect_programs([flat], tmp_path / "work")
    assert _names(found) == ["Slow.java", "slow.c", "slow.py"]


def test_a_students_folder_given_alone_with_its_vendored_library_is_one_program(tmp_path):
    (tmp_path / "alice").mkdir()
    _vendored(tmp_path / "alice")
    (found,) = collect_programs([tmp_path / "alice"], tmp_path / "work")
    assert found.label == "alice" and len(_names(found)) == 995


def test_a_class_folder_of_java_files_is_still_a_class_folder(tmp_path):
    cls = tmp_path / "class"
    (cls / "bob" / "src").mkdir(parents=True)
    (cls / "Main.java").write_text("public class Main { public static void main(String[] a) {} }")
    (cls / "bob" / "src" / "Game.java").write_text(
        "package bob;\npublic class Game { public static void main(String[] a) {} }")
    assert [s.label for s in collect_programs([cls], tmp_path / "work")] == ["Main.java", "bob"]


def test_reading_a_folder_given_alone_of_blank_lines_costs_one_pass(tmp_path):
    alice = tmp_path / "alice"
    (alice / "lib").mkdir(parents=True)
    (alice / "Main.java").write_bytes(b"\n" * 1_000_000 + b"import lib.X;")
    (alice / "lib" / "X.java").write_bytes(b"\n" * 60_000 + b"package lib;")
    (found,) = collect_programs([alice], tmp_path / "work")
    assert found.label == "alice"  # (the slow reading took minutes: a regression shows)
