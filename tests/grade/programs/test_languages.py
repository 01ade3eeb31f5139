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


def _vendored(root, n=993):
    """A student's Main.java beside a vendored library of `n` trivial classes (one with its own
    main, deeper than the student's)."""
    (root / "Main.java").write_text(
        "import org.vendored.library.pkg.C0;\n"
        "public class Main { public static void main(String[] a) {\n"
        "  System.out.println(\"vendored \" + new C0().value()); } }\n")
    lib = root / "lib" / "org" / "vendored" / "library" / "pkg"
    lib.mkdir(parents=True)
    for k in range(n):
        (lib / f"C{k}.java").write_text(
            f"package org.vendored.library.pkg;\npublic class C{k} {{ public int value() "
            f"{{ return {k}; }} }}\n")
    (lib / "Tool.java").write_text("package org.vendored.library.pkg;\npublic class Tool { "
                                   "public static void main(String[] a) {} }\n")


def test_a_program_with_its_vendored_library_is_found_and_its_sources_go_in_a_file(tmp_path):
    _vendored(tmp_path)
    p = lg.find_program(tmp_path, "s")
    assert p.main == "Main.java" and len(p.sources) == 995  # the main nearest the top
    cmd = p.build_command()
    assert cmd[-1] == f"@./{p.argfile}" and len(cmd) < 30
    listed = (tmp_path / p.argfile).read_text().split("\n")
    assert listed[0] == '"./Main.java"' and len(listed) == 996 and listed[-1] == ""


def test_more_than_max_source_files_is_the_rows_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(lg, "MAX_SOURCE_FILES", 3)
    for k in range(4):
        (tmp_path / f"f{k}.c").write_text("")
    with pytest.raises(GradeError, match="more than 3 source files"):
        lg.find_program(tmp_path, "c")


def test_an_argument_file_quotes_every_name_and_is_never_the_students(tmp_path, monkeypatch):
    monkeypatch.setattr(lg, "ARGFILE_OVER", 0)
    odd = ['a b.c', 'q"u\'o.c', 'back\\slash.c', '#hash.c', '@at.c', 'main.c']
    for name in odd:
        (tmp_path / name).write_text("")
    (tmp_path / "dicejack-sources-0.args").write_text("-o /etc/passwd")  # the student's
    p = lg.find_program(tmp_path, "c")
    assert p.argfile == "dicejack-sources-1.args"
    assert (tmp_path / "dicejack-sources-0.args").read_text() == "-o /etc/passwd"
    lines = (tmp_path / p.argfile).read_text().splitlines()
    assert r"./a\ b.c" in lines and r"./q\"u\'o.c" in lines and r"./back\\slash.c" in lines
    assert all(line.startswith("./") for line in lines)
    java = lg._quoted('x "y"\\z\n.java', "javac")
    assert java == b'"./x \\"y\\"\\\\z\\n.java"'


def test_reading_a_java_main_file_of_blank_lines_costs_one_pass(tmp_path):
    (tmp_path / "Main.java").write_bytes(
        b"public class Main { public static void main(String[] a) {} }" + b"\n" * 1_000_000)
    assert lg.find_program(tmp_path, "s").stem == "Main"
