"""`grade --run` against students who attack the grader (issue 43's audit): each attack is one
test, run as a real batch beside a faithful classmate. Every case must end as the attacker's
own row while the batch finishes, nothing of the grader's environment or of a classmate's
files appears in any output, no process of the batch outlives it, and the classmate's row is
untouched. A build is arbitrary code (a javac annotation processor, a gcc plugin): the build
attacks are written as a language template whose build step is a shell script, the same power
with fewer moving parts, and the Java processor itself is one more test."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import textwrap
import uuid
from pathlib import Path

import pytest

from dicejack.cli import main
from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig
from dicejack.grade import programs as pg
from dicejack.runtime import cgroups, tree
from dicejack.runtime import sandbox as sb

CORPUS = Path(__file__).resolve().parents[1] / "students" / "programs"
FAITHFUL = CORPUS / "faithful" / "learn_argv.py"
TINY = pg.Settings(6, 7, 9, 2, 10.0, 300)
ARGV = "argv: {sides} {low} {high} {dice} {m} {games}"
SECRET = "grader-secret-7Hq2ZpX9"  # in the grader's environment during every batch
CLASSMATE_SECRET = "classmate-answer-Vb41Qe"  # in the faithful classmate's folder
#: A build that runs a script: what a compiler plug-in can do, as a language.
SHELL = pg.parse_language("shellbuild .sh: sh {main} && sh ./run.sh")
MARK = "dicejack-hostile-marker"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3"),
]


_CACHE: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _shared_cache(tmp_path_factory):
    """One reference-run cache for the module: every batch grades the same tiny game."""
    _CACHE[:] = [tmp_path_factory.mktemp("refs")]
    yield
    _CACHE.clear()


def _bwrap() -> sb.Sandbox:
    try:
        return sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"bubblewrap does not work here: {exc}")


def _classmate(root: Path) -> Path:
    folder = root / "classmate"
    folder.mkdir()
    shutil.copy(FAITHFUL, folder / "learn.py")
    (folder / "notes.txt").write_text(CLASSMATE_SECRET)
    return folder


def _batch(tmp_path: Path, attacker: Path, monkeypatch, *, box: sb.Sandbox | None = None,
           limits: sb.Limits = sb.Limits(wall_seconds=30.0, cpu_seconds=30),
           languages=None, extra: list[Path] = ()):
    """Grade the attacker beside the faithful classmate at the tiny game; every output the
    batch writes, as one text, and the rows by label."""
    monkeypatch.setenv("DICEJACK_INSTRUCTOR_TOKEN", SECRET)
    root = attacker.parent
    classmate = _classmate(root) if not (root / "classmate").exists() else root / "classmate"
    out = tmp_path / "out"
    out.mkdir()
    config = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games)
    plan = pg.RunPlan((pg.PlannedSetting(TINY, "assigned", 1),))
    runner = pg.Runner(box or _bwrap(), limits)
    batch = pg.grade_programs(config, plan, [attacker, classmate, *extra], runner,
                              conventions=(pg.parse_convention(ARGV),), languages=languages,
                              cache_dir=_CACHE[0], out=out / "book.csv",
                              runs_out=out / "runs.csv", lms_csv=out / "lms.csv",
                              reports=out / "reports", site=out / "site")
    written = b"".join(p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file())
    rows = {s.label: s for s in batch.students}
    return rows, written


#: Keys of the grader's environment that a jail's own environment also has (their values are
#: the jail's, or too common to tell a leak by).
_COMMON = {b"PATH", b"LANG", b"LC_ALL", b"HOME", b"TMPDIR", b"PWD", b"OLDPWD", b"SHELL", b"TERM",
           b"USER", b"LOGNAME", b"SHLVL", b"_", b"HOSTNAME"}


def _grader_env() -> list[bytes]:
    """Entries of the grader's *starting* environment, which is what a link to
    /proc/self/environ followed by the grader shows (monkeypatch.setenv never reaches it: SECRET
    alone cannot catch such a leak), that nothing but a leak can bring into an output."""
    entries = Path("/proc/self/environ").read_bytes().split(b"\0")
    return [e for e in entries
            if b"=" in e and e.split(b"=", 1)[0] not in _COMMON and len(e) >= 16]


def _assert_contained(rows, written, attacker: str, marker: str = ""):
    said = written + b"".join(repr(s).encode() for s in rows.values())
    assert SECRET.encode() not in said
    assert CLASSMATE_SECRET.encode() not in said
    leaked = [e[:40] for e in _grader_env() if e in said]
    assert not leaked, f"the grader's environment leaked: {leaked}"
    mate = rows["classmate"]
    assert mate.grade.status == "ok" and mate.grade.verdict != "fail", mate.grade
    assert attacker in rows
    if marker:
        _assert_no_survivor(marker)


def _marker() -> str:
    """A marker of this test's own processes (another run of the file beside it has others)."""
    return f"{MARK}-{uuid.uuid4().hex[:12]}"


def _assert_no_survivor(marker: str):
    """No process whose command line carries `marker` is alive (zombies included)."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            left.append(pid)
    assert not left, f"processes of the batch outlived it: {left}"


def _shell_program(root: Path, build: str, run: str) -> Path:
    folder = root / "attacker"
    folder.mkdir(parents=True)
    (folder / "build.sh").write_text(textwrap.dedent(build))
    (folder / "run.sh").write_text(textwrap.dedent(run))
    return folder


# 1. build-time links, devices and special bits --------------------------------------------


def test_links_a_build_leaves_are_never_followed(tmp_path, monkeypatch):
    root = tmp_path / "class"
    attacker = _shell_program(root, """\
        ln -s /proc/self/environ env
        ln -s /proc/self/cwd cwd
        ln -s /proc/1/environ env1
        ln -s ../../.. up
        ln -s /tmp tmp
        """, """\
        cat env env1 >&2
        ls -R cwd/ up/ tmp/ >&2
        cat cwd/../*/*/notes.txt up/*/*/notes.txt >&2 2>/dev/null
        exit 1
        """)
    rows, written = _batch(tmp_path, attacker, monkeypatch, languages={"shellbuild": SHELL})
    _assert_contained(rows, written, "attacker")
    assert rows["attacker"].grade.verdict == "fail"


def test_links_to_environ_left_by_a_build_leak_nothing(tmp_path, monkeypatch):
    """The program itself says when what its link shows is not its own environment."""
    root = tmp_path / "class"
    attacker = _shell_program(root, """\
        ln -s /proc/self/environ env
        """, """\
        if [ -r env ] && ! cmp -s env /proc/self/environ; then
            tr '\\0' '\\n' < env | tail -n 2 >&2
            echo "FOREIGN-ENV" >&2
        fi
        exit 1
        """)
    rows, written = _batch(tmp_path, attacker, monkeypatch, languages={"shellbuild": SHELL})
    _assert_contained(rows, written, "attacker")
    assert b"FOREIGN-ENV" not in written
    assert rows["attacker"].grade.verdict == "fail"


def test_a_link_to_dev_zero_left_by_a_build_does_not_fill_the_disk(tmp_path, monkeypatch):
    root = tmp_path / "class"
    attacker = _shell_program(root, "ln -s /dev/zero zero\nmkfifo pipe\n",
                              "wc -c zero >&2\nexit 1\n")
    rows, written = _batch(tmp_path, attacker, monkeypatch, languages={"shellbuild": SHELL})
    _assert_contained(rows, written, "attacker")
    assert rows["attacker"].grade.verdict == "fail"


def test_a_setuid_file_left_by_a_build_loses_its_bit(tmp_path, monkeypatch):
    """The build's folder as the grader unpacks it holds plain files without special bits."""
    root = tmp_path / "class"
    attacker = _shell_program(root, """\
        cp /bin/sh ./sh-root && chmod 6755 ./sh-root && chmod 1777 .
        """, "ls -l sh-root >&2\nexit 1\n")
    box = _bwrap()
    program = pg.find_program(attacker, "attacker", {"shellbuild": SHELL})
    built = pg.build(program, pg.Runner(box))
    try:
        assert not built.error, built.error
        modes = [p.stat().st_mode for p in [built.folder, *built.folder.rglob("*")]]
        assert all(not m & 0o7000 for m in modes), [oct(m) for m in modes]
        assert not any(p.is_symlink() for p in built.folder.rglob("*"))
    finally:
        built.discard()


def test_a_build_leaving_a_deep_tree_is_its_own_row(tmp_path, monkeypatch):
    root = tmp_path / "class"
    attacker = _shell_program(root, """\
        d=.; i=0
        while [ $i -lt 1500 ]; do d=$d/a; i=$((i+1)); done
        mkdir -p $d
        """, "exit 0\n")
    rows, written = _batch(tmp_path, attacker, monkeypatch, languages={"shellbuild": SHELL})
    _assert_contained(rows, written, "attacker")
    assert "deeper than" in rows["attacker"].grade.error


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")
def test_a_java_annotation_processor_never_runs(tmp_path, monkeypatch):
    """A class file of the submission's named in META-INF/services runs inside javac unless
    annotation processing is off; here it would leave a link to the grader's environment."""
    evil_src = tmp_path / "evil"
    evil_src.mkdir()
    (evil_src / "Evil.java").write_text(textwrap.dedent("""\
        import java.nio.file.*;
        import java.util.Set;
        import javax.annotation.processing.*;
        import javax.lang.model.element.TypeElement;
        @SupportedAnnotationTypes("*")
        public class Evil extends AbstractProcessor {
            public synchronized void init(ProcessingEnvironment env) {
                super.init(env);
                try {
                    Files.createSymbolicLink(Paths.get("leak_env"),
                                             Paths.get("/proc/self/environ"));
                    Files.writeString(Paths.get("processor_ran"), "yes");
                } catch (Exception e) { }
            }
            public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) {
                return false;
            }
        }
        """))
    subprocess.run(["javac", "-d", str(evil_src), str(evil_src / "Evil.java")], check=True,
                   capture_output=True)
    attacker = tmp_path / "class" / "attacker"
    (attacker / "META-INF" / "services").mkdir(parents=True)
    (attacker / "META-INF" / "services" / "javax.annotation.processing.Processor").write_text(
        "Evil\n")
    shutil.copy(evil_src / "Evil.class", attacker / "Evil.class")
    (attacker / "Main.java").write_text(textwrap.dedent("""\
        import java.nio.file.*;
        public class Main {
            public static void main(String[] a) throws Exception {
                try {
                    System.err.println(new String(Files.readAllBytes(Paths.get("leak_env")))
                                       .replace('\\0', ' '));
                } catch (Exception e) { }
                System.err.println("ran=" + Files.exists(Paths.get("processor_ran")));
                System.exit(1);
            }
        }
        """))
    rows, written = _batch(tmp_path, attacker, monkeypatch,
                           limits=sb.Limits(wall_seconds=60.0, cpu_seconds=60))
    _assert_contained(rows, written, "attacker")
    assert b"ran=true" not in written  # printed last: a long leak cannot push it out


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_a_c_file_named_like_an_option_is_the_rows_reason(tmp_path, monkeypatch):
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "main.c").write_text("int main(void) { return 0; }\n")
    (attacker / "-specs=s.c").write_text("%include </proc/self/environ>\n")
    rows, written = _batch(tmp_path, attacker, monkeypatch)
    _assert_contained(rows, written, "attacker")
    assert "starts with '-'" in rows["attacker"].grade.error


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_a_c_file_named_like_an_option_runs_nothing(tmp_path, monkeypatch):
    """A file named ``-B.c`` would make gcc look for its own programs in the folder: the
    submission's script would run as the compiler."""
    attacker = tmp_path / "class" / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "main.c").write_text(textwrap.dedent("""\
        #include <stdio.h>
        int main(void) {
            int c;
            FILE *f = fopen("env", "rb");
            if (fopen("injected", "rb")) fputs("INJECTED ", stderr);
            if (f) while ((c = fgetc(f)) != EOF) fputc(c ? c : ' ', stderr);
            fputs("\\n", stderr);
            return 1;
        }
        """))
    (attacker / "-B.c").write_text("int unused;\n")
    (attacker / ".ccc1").write_text(
        '#!/bin/sh\nln -s /proc/self/environ env 2>/dev/null\n: > injected\n'
        'exec "$(gcc -print-prog-name=cc1)" "$@"\n')
    (attacker / ".ccc1").chmod(0o755)
    rows, written = _batch(tmp_path, attacker, monkeypatch)
    _assert_contained(rows, written, "attacker")
    assert b"INJECTED" not in written
    assert "starts with '-'" in rows["attacker"].grade.error


# 2. the weaker jails are chosen only by name, and keep runs apart --------------------------


def test_without_bubblewrap_grade_run_refuses_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sb, "probe_mode", lambda mode: mode != "bwrap")
    code = main(["grade", "--run", str(FAITHFUL), "--sides", "6", "--low", "7", "--high", "9",
                 "--dice", "2", "-m", "10", "--games", "300"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "install bubblewrap" in err[0] and "--unsafe-sandbox" in err[0]


@pytest.mark.skipif(os.geteuid() != 0 or not sb.probe_mode("unshare"),
                    reason="needs root and a working unshare")
def test_in_the_unshare_jail_each_run_is_a_user_of_its_own(tmp_path, monkeypatch):
    """As root the weaker jail gives every run its own user: a program cannot read a private
    file of the grader's, write the reference cache, or touch a classmate's folder."""
    private = tmp_path / "home"
    private.mkdir(mode=0o700)
    (private / "id_rsa").write_text(SECRET)
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "evil.py").write_text(textwrap.dedent(f"""\
        import glob, os, sys
        for path in [{str(private / 'id_rsa')!r}, *glob.glob('/tmp/dicejack-*/**/notes.txt',
                     recursive=True)]:
            try:
                sys.stderr.write(open(path).read())
            except OSError as exc:
                sys.stderr.write(f"no: {{exc.strerror}} ")
        for path in glob.glob({str(_CACHE[0])!r} + '/**', recursive=True) + \\
                glob.glob('/tmp/dicejack-*/**/learn.py', recursive=True):
            try:
                open(path, 'a').write('# spoiled')
                sys.stderr.write('WROTE ' + path)
            except OSError:
                pass
        sys.exit(1)
        """))
    box = sb.choose_sandbox(weaker="unshare") if not sb.probe_mode("bwrap") else sb.Sandbox(
        "unshare", "unshare", None, bool(cgroups.support()[0]))
    rows, written = _batch(tmp_path, attacker, monkeypatch, box=box)
    _assert_contained(rows, written, "attacker")
    assert b"WROTE" not in written


# 3. one program never stops the batch or outlives it ---------------------------------------


def test_a_program_making_1500_nested_folders_is_one_row(tmp_path, monkeypatch):
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "deep.py").write_text(textwrap.dedent("""\
        import os, sys
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
        os.chmod(".", 0)
        sys.exit(3)
        """))
    for box in (_bwrap(), *([sb.Sandbox("none", "none", None, bool(cgroups.support()[0]))]
                            if os.geteuid() == 0 else [])):
        rows, written = _batch(tmp_path / box.mode, _copy_to(attacker, tmp_path / box.mode),
                               monkeypatch, box=box)
        _assert_contained(rows, written, "attacker")
        assert "exit code 3" in rows["attacker"].grade.error


def _copy_to(folder: Path, where: Path) -> Path:
    dest = where / "class" / folder.name
    shutil.copytree(folder, dest)
    return dest


@pytest.mark.parametrize("hazard", ["fifo", "socket", "mode-000", "deep", "link-out"])
def test_a_hostile_file_in_a_students_folder_is_that_students_row(tmp_path, monkeypatch,
                                                                   hazard):
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    shutil.copy(FAITHFUL, attacker / "learn.py")
    listener = socket.socket(socket.AF_UNIX)
    if hazard == "fifo":
        os.mkfifo(attacker / "pipe")
    elif hazard == "socket":  # no one can open it, root included
        listener.bind(str(attacker / "sock"))
    elif hazard == "mode-000":
        (attacker / "locked.txt").write_text("x")
        (attacker / "locked.txt").chmod(0)
        (attacker / "locked").mkdir()
        (attacker / "locked").chmod(0)
    elif hazard == "deep":
        fd = os.open(attacker, os.O_RDONLY)
        for _ in range(1200):
            os.mkdir("d", dir_fd=fd)
            fd2 = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = fd2
        os.close(fd)
    else:
        (attacker / "env").symlink_to("/proc/self/environ")
        (attacker / "mate").symlink_to(root / "classmate")
    try:
        rows, written = _batch(tmp_path, attacker, monkeypatch)
    finally:  # pytest's own clean-up recurses: a deep tree is removed here
        listener.close()
        tree.remove_tree(attacker)
    _assert_contained(rows, written, "attacker")
    if hazard == "deep":
        assert "deeper than" in rows["attacker"].grade.error
    else:  # the hazard is left out; the program itself is faithful
        assert rows["attacker"].grade.status == "ok", rows["attacker"].grade


def _modes() -> list:
    """The jails to hold to a promise here: bubblewrap, and the weaker ones this machine runs
    (``none`` only with control groups: without them it promises no process tree)."""
    grouped = bool(cgroups.support()[0])
    return [pytest.param(m, marks=pytest.mark.skipif(
        not sb.probe_mode(m) or (m == "none" and not grouped),
        reason=f"the {m} jail does not work here" if m != "none" or grouped else
        "no control groups here")) for m in sb.MODES]


@pytest.mark.parametrize("mode", _modes())
def test_a_jails_first_process_cannot_outlive_the_batch(tmp_path, monkeypatch, mode):
    """The program clears its parent-death signal, leaves its session and keeps children
    going; when the run ends (here: its timeout) every one of them is gone, in every jail."""
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    mark = _marker()
    (attacker / "linger.py").write_text(textwrap.dedent(f"""\
        import ctypes, os, sys, time
        ctypes.CDLL(None).prctl(1, 0)  # PR_SET_PDEATHSIG: none
        os.setsid() if os.getpid() != os.getsid(0) else None
        for _ in range(3):
            if os.fork() == 0:
                os.setsid()
                ctypes.CDLL(None).prctl(1, 0)
                os.execv("/bin/sleep", ["{mark}", "600"])
        os.execv("/bin/sleep", ["{mark}", "600"])
        """))
    box = sb.Sandbox(mode, mode, sb.NOBODY if os.geteuid() == 0 and mode == "bwrap" else None,
                     bool(cgroups.support()[0]))
    rows, written = _batch(tmp_path, attacker, monkeypatch, box=box,
                           limits=sb.Limits(wall_seconds=3.0, cpu_seconds=3))
    _assert_contained(rows, written, "attacker", mark)
    assert "timed out" in rows["attacker"].grade.error


@pytest.mark.skipif(not cgroups.support()[0], reason="no writable control groups here")
def test_a_jails_memory_is_capped_as_a_whole(tmp_path, monkeypatch):
    """Three processes of 300 MiB each under a 512 MiB cap: the jail cannot hold them all (the
    per-process limit alone would let it hold 900 MiB)."""
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "hog.py").write_text(textwrap.dedent("""\
        import os, sys, time
        kids = []
        for _ in range(3):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                block = bytearray(300 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                os.write(w, b"1")
                time.sleep(30)
                os._exit(0)
            kids.append((pid, r))
        held = sum(len(os.read(r, 1)) for _, r in kids)
        print("held", held, file=sys.stderr)
        sys.exit(1)
        """))
    rows, written = _batch(tmp_path, attacker, monkeypatch,
                           limits=sb.Limits(wall_seconds=30.0, cpu_seconds=30,
                                            memory_bytes=512 << 20))
    _assert_contained(rows, written, "attacker")
    assert b"held 3" not in written


def test_a_jails_disk_is_capped(tmp_path, monkeypatch):
    """Writing to /tmp and to the run's folder stops at the jail's disk cap."""
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "fill.py").write_text(textwrap.dedent("""\
        import sys
        total = 0
        for place in ("/tmp", "."):
            for i in range(1000):
                try:
                    with open(f"{place}/f{i}", "wb") as f:
                        f.write(b"x" * (8 << 20))
                    total += 8 << 20
                except OSError:
                    break
        print("wrote", total >> 20, file=sys.stderr)
        sys.exit(1)
        """))
    rows, written = _batch(tmp_path, attacker, monkeypatch,
                           limits=sb.Limits(wall_seconds=60.0, cpu_seconds=60,
                                            disk_bytes=64 << 20))
    _assert_contained(rows, written, "attacker")
    said = rows["attacker"].runs[0].stderr_tail
    assert "wrote" in said and int(said.split("wrote")[1].split()[0]) <= 128, said


@pytest.mark.skipif(not cgroups.support()[0], reason="no writable control groups here")
def test_many_spinning_processes_do_not_starve_a_classmate(tmp_path, monkeypatch):
    """60 processes spinning in their own sessions get one jail's CPU share, not 60: a classmate
    needing 3 s of CPU (some 90 s at a 1/62 share of two CPUs) ends within its 40 s timeout."""
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "spin.py").write_text(textwrap.dedent("""\
        import os
        for _ in range(60):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        while True:
            pass
        """))
    mate = root / "classmate"
    mate.mkdir()
    (mate / "learn.py").write_text(
        "import time\n_t = time.process_time()\nwhile time.process_time() - _t < 3:\n    pass\n"
        + FAITHFUL.read_text())
    (mate / "notes.txt").write_text(CLASSMATE_SECRET)
    rows, written = _batch(tmp_path, attacker, monkeypatch,
                           limits=sb.Limits(wall_seconds=40.0, cpu_seconds=40, processes=64))
    _assert_contained(rows, written, "attacker")


# 4. text from students is text everywhere --------------------------------------------------


def test_escape_sequences_never_reach_the_terminal(tmp_path, monkeypatch, capfd):
    root = tmp_path / "class"
    attacker = root / "attacker"
    attacker.mkdir(parents=True)
    (attacker / "esc.py").write_text(
        "import sys\nsys.stderr.write('\\x1b[2J\\x1b]0;pwned\\x07ALL 3 PROGRAMS PASSED\\r\\n')\n"
        "sys.exit(1)\n")
    monkeypatch.chdir(tmp_path)
    _bwrap()
    code = main(["grade", "--run", str(attacker), "--sides", "6", "--low", "7", "--high", "9",
                 "--dice", "2", "-m", "10", "--games", "300", "--input", ARGV, "--runs", "1",
                 "--python", "system",
                 "--cache", str(_CACHE[0]), "--out", "book.csv"])
    out, err = capfd.readouterr()
    assert code in (0, 1)
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "\\x1b" in err  # shown, escaped
