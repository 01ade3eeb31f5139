"""Finding a submission's language and main file; command templates."""

import pytest

from dicejack.grade import GradeError
from dicejack.grade.programs import languages as lg


def test_each_language_and_its_commands(tmp_path):
    cases = {"a.py": "python", "Main.java": "java", "x.c": "c", "y.cpp": "c++"}
    for name, language in cases.items():
        folder = tmp_path / language
        folder.mkdir()
        (folder / name).write_text("int main(){}")
        p = lg.find_program(folder, language)
        assert p.language.name == language and p.main == name
    java = lg.find_program(tmp_path / "java", "j")
    assert java.run_command()[-1] == "Main" and java.build_command()[-1] == "./Main.java"
    assert "-proc:none" in java.build_command()  # no annotation processor of the submission's
    assert lg.find_program(tmp_path / "c", "c").run_command() == ["./program"]
    assert lg.find_program(tmp_path / "python", "p").run_command() == ["python3", "-I",
                                                                       "./a.py"]


@pytest.mark.parametrize("name", ["-specs=s.c", "-fplugin=x.c", "sub/-o.c"])
def test_a_source_named_like_an_option_is_the_rows_reason(tmp_path, name):
    (tmp_path / "main.c").write_text("int main(void) { return 0; }")
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("")
    with pytest.raises(GradeError, match="starts with '-'"):
        lg.find_program(tmp_path, "c")


def test_file_names_are_paths_never_options(tmp_path):
    (tmp_path / "@args.c").write_text("int main(void) { return 0; }")
    (tmp_path / "util.c").write_text("")
    assert lg.find_program(tmp_path, "c").build_command()[-3:-1] == ["./@args.c", "./util.c"]


def test_a_java_main_file_that_is_not_a_class_name_is_the_rows_reason(tmp_path):
    (tmp_path / "Main-v2.java").write_text(
        "public class Main { public static void main(String[] a) {} }")
    with pytest.raises(GradeError, match="not a Java class name"):
        lg.find_program(tmp_path, "j")


def test_the_java_main_class_and_its_package(tmp_path):
    (tmp_path / "Util.java").write_text("class Util {}")
    (tmp_path / "Game.java").write_text(
        "package course.pa3;\npublic class Game { public static void main(String[] a) {} }")
    p = lg.find_program(tmp_path, "s")
    assert p.main == "Game.java" and p.run_command()[-1] == "course.pa3.Game"
    assert set(p.build_command()[-2:]) == {"./Game.java", "./Util.java"}


def test_two_python_mains_are_ambiguous(tmp_path):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("if __name__ == '__main__':\n    pass\n")
    with pytest.raises(GradeError, match="cannot tell the main file"):
        lg.find_program(tmp_path, "s")


def test_no_source_is_a_reason(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(GradeError, match="no program found"):
        lg.find_program(tmp_path, "s")


def test_a_command_template_language(tmp_path):
    ruby = lg.parse_language("ruby .rb: ruby {main}")
    (tmp_path / "learn.rb").write_text("puts 1")
    p = lg.find_program(tmp_path, "s", {"ruby": ruby})
    assert p.run_command() == ["ruby", "./learn.rb"] and p.build_command() is None
    rust = lg.parse_language("rust .rs: rustc -O -o program {main} && ./program")
    assert rust.build == ("rustc", "-O", "-o", "program", "{main}") and rust.run == (
        "./program",)
    with pytest.raises(GradeError, match="language template"):
        lg.parse_language("ruby: ruby {main}")
