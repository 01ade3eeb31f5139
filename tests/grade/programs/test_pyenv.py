"""The Python student programs run on (grade.programs.pyenv, `grade --run --python`): the default
environment has numpy and holds no dicejack, a Python program finds it first in the jail, which
shows nothing else of the host; `--python system` is the system's python3 alone; a requirements
file is built once and cached; a bad SPEC is a one-line error.

The default environment is built once per session (then cached in the user's cache across
sessions): its tests skip, saying why, when pip cannot reach the package index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from dicejack.cli import main
from dicejack.grade import GradeError
from dicejack.grade import programs as pg
from dicejack.grade.programs import pyenv
from dicejack.runtime import sandbox as sb

pytestmark = pytest.mark.skipif(not pyenv.SYSTEM_PYTHON.exists(), reason="no /usr/bin/python3")
NUMPY = "import numpy; print(numpy.__version__)\n"
PROGRAM = (Path(__file__).resolve().parents[2] / "students" / "programs" / "faithful"
           / "learn_argv.py")
GAME = ["--sides", "6", "--low", "10", "--high", "12", "--dice", "2", "-m", "10",
        "--games", "2000"]


@pytest.fixture(scope="session")
def box() -> sb.Sandbox:
    try:
        return sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no bubblewrap here: {exc}")


@pytest.fixture(scope="session")
def default_env(box) -> pg.pyenv.StudentPython:
    """The default environment, built on first use (once, whatever runs concurrently)."""
    try:
        return pyenv.default_python(box)
    except GradeError as exc:
        if "pip cannot install" in str(exc):
            pytest.skip(f"pip cannot reach the package index here: {exc}")
        raise


@pytest.fixture
def open_folder():
    """A folder every user may pass (the jail's user is another when we are root)."""
    folder = Path(tempfile.mkdtemp(prefix="dicejack-pyenv-", dir="/tmp"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _run(box: sb.Sandbox, python: pyenv.StudentPython | None, code: str,
         tmp_path: Path) -> sb.RunResult:
    """Run `code` as a student's main.py, as grade --run does (its run command, its jail)."""
    folder = tmp_path / "student"
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text(code)
    program = pg.find_program(folder, "student")
    runner = pg.Runner(box, python=python)
    built = pg.build(program, runner)
    return sb.run_jailed(box, program.run_command(), source=built.folder,
                         **runner.shown(program))


def test_numpy_is_there_with_the_default_environment(box, default_env, tmp_path):
    r = _run(box, default_env, NUMPY, tmp_path)
    assert r.ok, r.stderr
    version = r.stdout.decode().strip()
    assert f"numpy {version}" in default_env.description
    for name in pyenv.DEFAULT_PACKAGES:
        assert f"{name} " in default_env.description
    r = _run(box, default_env, "import colorama, tabulate, tqdm, sys; print(sys.executable)",
             tmp_path)
    assert r.ok and r.stdout.decode().strip() == default_env.python, r.stderr


def test_the_system_python_has_no_numpy(box, tmp_path):
    host = subprocess.run([str(pyenv.SYSTEM_PYTHON), "-I", "-c", "import numpy"],
                          capture_output=True)
    if host.returncode == 0:
        pytest.skip("this system's python3 has numpy of its own (a distribution package)")
    system = pyenv.resolve_python("system", box)
    assert system.folder is None and system.python == "/usr/bin/python3"
    assert system.description.startswith("system /usr/bin/python3 (Python 3.")
    r = _run(box, system, NUMPY, tmp_path)
    assert not r.ok and b"No module named 'numpy'" in r.stderr


def test_the_environment_holds_no_dicejack_and_shows_nothing_else(box, default_env, tmp_path):
    code = (
        "import json, os, sys\n"
        "try:\n"
        "    import dicejack\n"
        "    mine = 'imported'\n"
        "except ImportError:\n"
        "    mine = 'absent'\n"
        "env = sys.argv[1]\n"
        "walk = []\n"
        "path = env\n"
        "while path != '/':\n"
        "    parent = os.path.dirname(path)\n"
        "    walk.append([parent, sorted(os.listdir(parent)), os.path.basename(path)])\n"
        "    path = parent\n"
        "try:\n"
        "    open(os.path.join(env, 'x'), 'w')\n"
        "    wrote = True\n"
        "except OSError:\n"
        "    wrote = False\n"
        "print(json.dumps({'dicejack': mine, 'walk': walk, 'wrote': wrote,\n"
        "                  'root': os.path.exists('/root') and os.listdir('/root')}))\n")
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "main.py").write_text(code)
    r = sb.run_jailed(box, ["python3", "-I", "./main.py", str(default_env.folder)],
                      source=folder, readonly=default_env.readonly, path=default_env.path)
    assert r.ok, r.stderr
    seen = json.loads(r.stdout)
    assert seen["dicejack"] == "absent" and seen["wrote"] is False
    for parent, listing, child in seen["walk"][:-1]:  # every folder above it but /: only it
        assert listing == [child], (parent, listing)
    assert seen["walk"][-1][2] in seen["walk"][-1][1]
    if box.isolates_files and "root" not in default_env.folder.parts:
        assert seen["root"] is False  # root's home is not in the jail at all
    assert not list(default_env.folder.rglob("dicejack/__init__.py"))


def test_a_requirements_file_is_built_once_then_cached(tmp_path, monkeypatch, box,
                                                       open_folder):
    monkeypatch.setenv("DICEJACK_CACHE", str(open_folder / "cache"))
    wanted = tmp_path / "requirements.txt"
    wanted.write_text("# nothing but the standard library this year\n")
    said: list[str] = []
    first = pyenv.resolve_python(str(wanted), box, notify=said.append)
    assert first.folder is not None and first.folder.parent == open_folder / "cache" / "python"
    assert said and "building" in said[0]
    facts = json.loads((first.folder / pyenv.MARKER).read_text())
    assert facts["requirements"].startswith("# nothing")
    assert first.description.endswith("the standard library only")
    (first.folder / "kept.txt").write_text("a rebuild would lose me")
    said.clear()
    second = pyenv.resolve_python(str(wanted), box, notify=said.append)
    assert second.folder == first.folder and said == []
    assert (second.folder / "kept.txt").exists()
    assert not [p for p in first.folder.parent.iterdir() if p.name.endswith(".building")]
    wanted.write_text("# another year\n")
    assert pyenv.resolve_python(str(wanted), box).folder != first.folder


def _fake_venv(folder: Path, home: str) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text(f"home = {home}\ninclude-system-site-packages = false\n")
    (folder / "bin" / "python3").symlink_to(pyenv.SYSTEM_PYTHON)
    return folder


def test_an_environment_that_holds_dicejack_is_refused(box, open_folder):
    env = open_folder / "env"
    subprocess.run([str(pyenv.SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(env)],
                   check=True)
    site = next(env.glob("lib/python3*/site-packages"))
    (site / "dicejack").mkdir()
    (site / "dicejack" / "__init__.py").write_text("")
    for path in (site / "dicejack", site / "dicejack" / "__init__.py"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    with pytest.raises(GradeError, match="holds dicejack"):
        pyenv.resolve_python(str(env), box)


@pytest.mark.parametrize("spec, message", [
    ("no/such/requirements.txt", "is none of them"),
    ("{empty}", "is not a Python environment"),
    ("{elsewhere}", "which the jail does not show"),
])
def test_bad_specs_are_one_line_errors(spec, message, box, open_folder):
    (open_folder / "empty").mkdir()
    _fake_venv(open_folder / "elsewhere", "/opt/not-in-the-jail/bin")
    (open_folder / "elsewhere" / "bin" / "python3").unlink()
    (open_folder / "elsewhere" / "bin" / "python3").write_text("")
    spec = spec.format(empty=open_folder / "empty", elsewhere=open_folder / "elsewhere")
    with pytest.raises(GradeError, match=message) as caught:
        pyenv.resolve_python(spec, box)
    assert "\n" not in str(caught.value)


def test_an_environment_the_jails_user_cannot_reach_is_refused(box, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root's jails run as another user")
    assert not tmp_path.parent.parent.stat().st_mode & 0o001  # pytest's own folder: closed
    env = _fake_venv(tmp_path / "env", "/usr/bin")
    with pytest.raises(GradeError, match="cannot reach"):
        pyenv.resolve_python(str(env), box)


def test_the_header_names_the_python_and_a_bad_spec_exits_2(default_env, monkeypatch,
                                                            capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pg, "grade_programs", lambda *a, **k: (_ for _ in ()).throw(
        SystemExit(3)))
    with pytest.raises(SystemExit):
        main(["grade", "--run", str(PROGRAM), *GAME])
    err = capsys.readouterr().err
    assert f"python: {default_env.description}" in err.splitlines()
    code = main(["grade", "--run", str(PROGRAM), *GAME, "--python", "nowhere.txt"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 2 and err[0].startswith("sandbox: "), err
    assert "--python takes system" in err[1] and "Traceback" not in err[1]
    code = main(["grade", str(PROGRAM), *GAME, "--python", "system"])
    assert code == 2 and "--python and --probe-secret go with --run" in capsys.readouterr().err
