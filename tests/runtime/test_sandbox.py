"""The jail of runtime.sandbox against hostile programs: each ends with a result saying why, and
what the jail promises (no network, a cleared environment, the host's files out of sight in
bwrap) holds. Every available mode is tested; a mode this machine lacks is skipped, saying so."""

from __future__ import annotations

import shutil
import socket
import textwrap
from pathlib import Path

import pytest

from dicejack.runtime import cgroups
from dicejack.runtime import sandbox as sb

#: The system's Python (the jail shows /usr only, not a virtual environment).
PYTHON = "/usr/bin/python3"
pytestmark = pytest.mark.skipif(not Path(PYTHON).exists(), reason="no /usr/bin/python3")
MODES = [pytest.param(m, marks=pytest.mark.skipif(not sb.probe_mode(m),
                                                   reason=f"the {m} sandbox does not work here"))
         for m in sb.MODES]


def jail(mode: str) -> sb.Sandbox:
    root = __import__("os").geteuid() == 0
    return sb.Sandbox(mode, mode, sb.NOBODY if root and mode == "bwrap" else None,
                      bool(cgroups.support()[0]))


def run(mode: str, source: str, limits: sb.Limits = sb.Limits(wall_seconds=60.0), *,
        stdin: bytes = b"", args: tuple[str, ...] = ()) -> sb.RunResult:
    box = jail(mode)
    folder = sb.private_folder()
    try:
        (folder / "prog.py").write_text(textwrap.dedent(source))
        return sb.run_jailed(box, [PYTHON, "prog.py", *args], source=folder, limits=limits,
                             stdin=stdin)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("mode", MODES)
def test_a_plain_program_runs_with_its_input(mode):
    r = run(mode, "import sys; print(sys.stdin.read().strip()[::-1], sys.argv[1])",
            stdin=b"abc\n", args=("x",))
    assert r.ok and r.stdout == b"cba x\n" and r.why() == ""


@pytest.mark.parametrize("mode", MODES)
def test_sleeping_past_the_timeout_is_killed(mode):
    r = run(mode, "import time; print('started', flush=True); time.sleep(600)",
            sb.Limits(wall_seconds=2.0))
    assert r.reason == "timeout" and "timed out" in r.why()
    assert r.stdout == b"started\n"


#: A program that prints, closes its output and sleeps on: the wait for its end keeps the deadline
#: (with its output closed, only the wait can). Forever in a jail; without one a broken wait
#: would sleep it out, so there it ends after 20 s, and it runs first: a wait without the
#: deadline then fails this test instead of hanging the suite.
_CLOSED_SLEEPER = """\
import os, sys, time
print("started", flush=True)
os.close(1)
os.close(2)
time.sleep({seconds})
"""


@pytest.mark.parametrize("mode", sorted(MODES, key=lambda p: p.values[0] != "none"))
def test_a_program_that_closes_its_output_and_sleeps_times_out(mode):
    seconds = 20 if mode == "none" else 10 ** 8
    r = run(mode, _CLOSED_SLEEPER.format(seconds=seconds), sb.Limits(wall_seconds=1.0))
    assert r.reason == "timeout" and "timed out" in r.why() and not r.ok
    assert r.stdout == b"started\n"


@pytest.mark.parametrize("mode", MODES)
def test_an_infinite_loop_hits_the_cpu_limit(mode):
    r = run(mode, "while True: pass", sb.Limits(cpu_seconds=1, wall_seconds=120.0))
    assert r.reason == "cpu-limit" and not r.ok


@pytest.mark.parametrize("mode", MODES)
def test_a_memory_hog_fails_inside_its_limit(mode):
    r = run(mode, "a = bytearray(8 << 30)\nprint('got it')",
            sb.Limits(memory_bytes=512 << 20, wall_seconds=60.0))
    assert r.exit_code != 0 and b"MemoryError" in r.stderr and b"got it" not in r.stdout


@pytest.mark.parametrize("mode", MODES)
def test_a_gigabyte_of_output_is_cut_at_the_cap(mode):
    r = run(mode, """\
        import sys
        block = b'1 2 3 4 5 6 7 8 9\\n' * 60000
        for _ in range(1000):
            sys.stdout.buffer.write(block)
        """, sb.Limits(output_bytes=1 << 20, wall_seconds=60.0))
    assert r.reason == "output-limit" and len(r.stdout) == 1 << 20


@pytest.mark.parametrize("mode", MODES)
def test_a_fork_bomb_is_contained(mode):
    r = run(mode, """\
        import os, time
        for _ in range(10000):
            try:
                os.fork()
            except OSError:
                pass
        time.sleep(600)
        """, sb.Limits(processes=16, wall_seconds=3.0))
    assert r.reason == "timeout" and not r.ok


@pytest.mark.parametrize("mode", MODES)
def test_the_environment_is_cleared(mode, monkeypatch):
    monkeypatch.setenv("DICEJACK_TEST_SECRET", "hunter2")
    r = run(mode, "import os; print(sorted(os.environ.items()))")
    assert r.ok and b"hunter2" not in r.stdout and b"'PATH'" in r.stdout


@pytest.mark.parametrize("mode", MODES)
def test_no_network_in_a_jail(mode):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        r = run(mode, f"""\
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=5)
                print("connected")
            except OSError as exc:
                print("blocked", type(exc).__name__)
            """)
    finally:
        server.close()
    assert r.ok
    assert r.stdout.startswith(b"connected" if mode == "none" else b"blocked")


@pytest.mark.parametrize("mode", MODES)
def test_files_outside_the_folder(mode, tmp_path):
    secret = tmp_path / "other-student.txt"
    secret.write_text("someone else's answer")
    secret.chmod(0o644)
    tmp_path.chmod(0o755)
    r = run(mode, f"""\
        import os
        try:
            print(os.listdir('..') if os.path.isdir('..') else 'none')
        except OSError as exc:
            print("unlistable", type(exc).__name__)
        try:
            print(open({str(secret)!r}).read())
        except OSError as exc:
            print("unreadable", type(exc).__name__)
        """)
    assert r.ok
    if mode == "bwrap":  # the only mode that hides the host's files
        assert b"someone else's answer" not in r.stdout and b"unreadable" in r.stdout


def test_a_bad_limit_is_refused():
    with pytest.raises(sb.SandboxError, match="processes"):
        sb.Limits(processes=0)


def test_no_weaker_jail_is_ever_chosen_silently(monkeypatch):
    """Without bubblewrap the batch is refused, naming how to install it and the option that
    accepts a weaker jail; the weaker jail is used only when named, and says so."""
    monkeypatch.setattr(sb, "probe_mode", lambda mode: mode != "bwrap")
    with pytest.raises(sb.SandboxError, match="apt install bubblewrap.*--unsafe-sandbox"):
        sb.choose_sandbox()
    assert sb.choose_sandbox(weaker="unshare").mode == "unshare"
    assert "UNSHARE" in sb.choose_sandbox(weaker="unshare").description
    assert sb.choose_sandbox(weaker="none").mode == "none"
    assert "NONE" in sb.choose_sandbox(weaker="none").description
    with pytest.raises(sb.SandboxError, match="one of unshare, none"):
        sb.choose_sandbox(weaker="bwrap-lite")
    monkeypatch.setattr(sb, "probe_mode", lambda mode: mode == "none")
    with pytest.raises(sb.SandboxError, match="neither does the unshare jail"):
        sb.choose_sandbox(weaker="unshare")


def test_bubblewrap_is_chosen_whenever_it_works(monkeypatch):
    monkeypatch.setattr(sb, "probe_mode", lambda mode: True)
    assert sb.choose_sandbox(weaker="none").mode == "bwrap"


@pytest.mark.parametrize("mode", [m for m in MODES if m.values[0] != "none"])
def test_a_fork_bomb_does_not_starve_its_neighbours(mode):
    """The process limit counts each jail's own processes: runs beside a fork bomb still run."""
    import threading

    ended: list[sb.RunResult] = []
    bomb = threading.Thread(target=lambda: ended.append(run(mode, """\
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """, sb.Limits(processes=16, wall_seconds=3.0))))
    bomb.start()
    beside = [run(mode, "print('fine')")]
    while bomb.is_alive():
        beside.append(run(mode, "print('fine')"))
    bomb.join()
    assert ended[0].reason == "timeout"
    assert all(r.ok and r.stdout == b"fine\n" for r in beside), [r.why() for r in beside]


@pytest.mark.parametrize("mode", MODES)
def test_cancelling_kills_a_running_program(mode):
    """Ctrl-C in the caller (the cancel event) ends a run at once, whatever its timeout."""
    import threading

    cancel = threading.Event()
    cancel.set()
    box = jail(mode)
    folder = sb.private_folder()
    try:
        (folder / "prog.py").write_text("import time; time.sleep(3600)")
        r = sb.run_jailed(box, [PYTHON, "prog.py"], source=folder,
                          limits=sb.Limits(wall_seconds=3600.0), cancel=cancel)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert r.reason == "cancelled" and not r.ok


@pytest.mark.parametrize("mode", MODES)
def test_collect_returns_the_named_plain_files_only(mode):
    """A run whose printout is a file: its stdout goes to stderr, the named files it left come
    back (a link or a file not named does not), the exit status is the program's."""
    box = jail(mode)
    folder = sb.private_folder()
    try:
        (folder / "prog.py").write_text(textwrap.dedent("""\
            import os
            print("to stderr")
            open("output.txt", "w").write("tables\\n")
            open("other.txt", "w").write("not named\\n")
            os.symlink("/etc/passwd", "link.txt")
            raise SystemExit(3)
            """))
        r = sb.run_jailed(box, [PYTHON, "prog.py"], source=folder,
                          limits=sb.Limits(wall_seconds=60.0),
                          collect=("output.txt", "link.txt", "missing.txt"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert r.exit_code == 3 and b"to stderr" in r.stderr
    assert sb.collected(r.stdout) == {"output.txt": b"tables\n"}


def test_collect_takes_plain_names_only():
    with pytest.raises(sb.SandboxError):
        sb.check_collect(["../x"])
    with pytest.raises(sb.SandboxError):
        sb.check_collect(["a b; rm -rf /"])
    assert sb.collected(b"not a tar") == {}
