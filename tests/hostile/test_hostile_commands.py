"""Hostile settings and signals against the commands: no traceback, no hang, nothing lost.

Each test attacks one class of the reliability issue: non-finite numbers in JSON output, absurd
sizes and empty error messages, a Dask scheduler that never answers (or answers garbage),
signals during `learn` and `report`, `report --out` over a folder dicejack did not write, and
inputs that are not regular files. Commands run in-process through ``dicejack.cli.main``, and in
a subprocess only where a signal is sent; every wait has a timeout.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dicejack import formats
from dicejack.cli import main
from dicejack.formats.json_output import json_safe, json_text
from dicejack.formats.learner_runs import load_run_npz
from dicejack.report.folder import MARKER
from dicejack.runtime import parallel

SMALL_REPORT = ["--games", "10,20", "--seeds", "1", "--workers", "1"]


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def strict_json(text: str) -> object:
    """json.loads that refuses NaN/Infinity tokens (Python's own loads accepts them)."""

    def refuse(token: str) -> None:
        raise AssertionError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def no_traceback(err: str) -> None:
    assert "Traceback" not in err and "Warning" not in err, err


# ------------------------------------------------------------------------ 1. JSON non-finite
def hostile_table(tmp_path: Path, capsys, name: str = "tables.txt") -> Path:
    """`dicejack learn` text output with inf, -inf, 1e309 and a 5000-digit number planted."""
    code, text, _ = run(capsys, "learn", "--games", 300, "--seed", 3)
    assert code == 0
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "probab" in line.lower())
    planted = ["inf", "-inf", "1e309", "9" * 5000, "nan"]
    for k in range(start + 3, start + 6):
        label, _, row = lines[k].partition("|")
        nums = row.split()
        nums[: len(planted)] = planted
        lines[k] = f"{label}| {' '.join(nums)}"
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_json_output_never_holds_non_finite_numbers(tmp_path, capsys):
    path = hostile_table(tmp_path, capsys)
    code, out, err = run(capsys, "compare", path, "--format", "json")
    assert code == 0, err
    data = strict_json(out)
    assert data["params"]["low"] == 15
    code, out, err = run(capsys, "compare", path)  # the text form takes the same data
    assert code == 0 and "p00" in out.lower() or out
    no_traceback(err)
    # solve and learn JSON go through the same safe writer
    for cmd in (["solve", "--format", "json"], ["learn", "--games", 50, "--format", "json"]):
        code, out, err = run(capsys, *cmd)
        assert code == 0, err
        strict_json(out)
    # the sanitiser itself: every non-finite value becomes null, numpy values become plain
    import numpy as np

    hostile = {"a": float("inf"), "b": [float("-inf"), float("nan"), np.float64("inf")],
               "c": np.array([1.0, np.nan]), "d": np.int64(3), "e": (True, None)}
    assert json_safe(hostile) == {"a": None, "b": [None, None, None], "c": [1.0, None],
                                  "d": 3, "e": [True, None]}
    assert strict_json(json_text(hostile)) == json_safe(hostile)


def test_report_metrics_json_is_valid_and_carries_the_marker(tmp_path, capsys):
    out_dir = tmp_path / "rep"
    code, _, err = run(capsys, "report", *SMALL_REPORT, "--out", out_dir)
    assert code == 0, err
    no_traceback(err)
    strict_json((out_dir / "metrics.json").read_text())
    assert (out_dir / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no temporaries beside it


def no_work_starts(monkeypatch) -> None:
    """Any learning or study started from here on fails the test (a refusal must come first):
    the games' progress and the study's task map are where every learn and report begins."""
    def started(*args, **kwargs):
        raise AssertionError("the work started before the refusal")

    monkeypatch.setattr(parallel, "games_progress_bar", started)
    monkeypatch.setattr(parallel, "map_tasks", started)


# ------------------------------------------------------------------- 2. sizes, empty messages
@pytest.mark.parametrize("args, named", [
    (["learn", "--games", str(2**63)], "--games"),
    (["learn", "--games", "1" + "0" * 5000], "--games"),
    (["report", "--games", "1e18"], "--games 1,000,000,000,000,000,000 is more than the limit"),
    (["report", "--games", "100..1e300"], "game count 1e300 is too large"),
    (["report", "--seeds", str(10**12)], "--seeds 1000000000000"),
    (["report", "--seeds", "10000", "-m", "1,2,3", "--games", "100..1e9"], "seeds x"),
])
def test_absurd_sizes_are_refused_up_front(tmp_path, capsys, monkeypatch, args, named):
    no_work_starts(monkeypatch)  # refused, not attempted
    code, out, err = run(capsys, *args, "--out", tmp_path / "x")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and named in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("exc", [MemoryError(), OSError(), parallel.ExecutorError(""),
                                 OSError(13, "Permission denied", "/x/y")])
def test_every_error_message_says_something(monkeypatch, capsys, exc):
    import dicejack.cli.solve as cli

    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(cli, "make_game", fail)
    code, _, err = run(capsys, "solve")
    assert code == 2 and err.startswith("error: ")
    assert len(err.strip()) > len("error: ") + 3, err
    no_traceback(err)


# ------------------------------------------------------------------------------- 3. Dask hang
def serve(reply: bytes | None) -> tuple[str, threading.Event]:
    """A local TCP server that accepts connections and then sleeps (or sends `reply`)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    stop = threading.Event()
    held: list[socket.socket] = []

    def loop() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if reply is not None:
                try:
                    conn.sendall(reply)
                except OSError:
                    pass
        for conn in held:
            conn.close()
        sock.close()

    threading.Thread(target=loop, daemon=True).start()
    return f"tcp://127.0.0.1:{sock.getsockname()[1]}", stop


@pytest.mark.slow
@pytest.mark.parametrize("reply", [None, b"\xff" * 64 + os.urandom(256)],
                         ids=["silent", "garbage"])
def test_dask_scheduler_that_never_answers_gives_up_in_time(tmp_path, capsys, monkeypatch,
                                                            reply):
    pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1)
    address, stop = serve(reply)
    try:
        code, _, err = run(capsys, "report", *SMALL_REPORT[:4], "--dask", address,
                           "--out", tmp_path / "r")
    finally:
        stop.set()
    assert code == 2, err
    assert err.startswith(f"error: cannot connect to the Dask scheduler {address}"), err
    assert err.count("\n") == 1 and "EiB" not in err
    assert list(tmp_path.iterdir()) == []  # the temporary report folder is gone too


# -------------------------------------------------------------------------------- 4. signals
ENTRY = "import sys; from dicejack.cli import main; sys.exit(main(sys.argv[1:]))"


#: The command line, with one line PLAYING on stderr once the learner has played a first chunk:
#: the readiness signal a test waits for (no sleeping and hoping it is far enough).
PLAYING = "test: playing"
ENTRY_SAYING_PLAYING = f"""
import sys
from dicejack.runtime import parallel
bar = parallel.games_progress_bar
def games_progress_bar(*args, **kwargs):
    update, close = bar(*args, **kwargs)
    said = []
    def playing(session):
        update(session)
        if not said and session.played > 0:
            said.append(True)
            print({PLAYING!r}, file=sys.stderr, flush=True)
    return playing, close
parallel.games_progress_bar = games_progress_bar
from dicejack.cli import main
sys.exit(main(sys.argv[1:]))
"""


def start(args: list[str], cwd: Path, *, script: bool = False, entry: str = ENTRY
          ) -> subprocess.Popen:
    cmd = ([str(Path(sys.executable).parent / "dicejack")] if script
           else [sys.executable, "-c", entry])
    return subprocess.Popen(cmd + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def finish(proc: subprocess.Popen, timeout: float = 30) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"still running after {timeout} s: {err[-500:]}")
    return proc.returncode, out, err


def wait_for_line(proc: subprocess.Popen, line: str, timeout: float = 300) -> bool:
    """Read `proc`'s stderr until `line` (True) or its end (False); a hang guard ends the
    process after `timeout` seconds. What was read before the line is dropped."""
    found = threading.Event()

    def read() -> None:
        for got in proc.stderr:
            if got.rstrip("\n") == line:
                found.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        os.killpg(proc.pid, signal.SIGKILL)
    return found.is_set()


def wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@pytest.mark.slow
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_during_learn_saves_a_resumable_run(tmp_path, sig, code):
    proc = start(["learn", "--games", str(10**10), "--out", "run.npz"], tmp_path,
                 entry=ENTRY_SAYING_PLAYING)
    assert wait_for_line(proc, PLAYING), "the learner never said it was playing"
    proc.send_signal(sig)
    rc, out, err = finish(proc)
    assert rc == code, err
    assert "interrupted" in err and "Traceback" not in err
    run = load_run_npz(tmp_path / "run.npz")
    assert 0 < run.games < 10**10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.npz"]  # no temporaries


@pytest.mark.parametrize("delay", [0.05, 0.2])
def test_early_ctrl_c_prints_no_traceback(tmp_path, delay):
    proc = start(["learn", "--games", "1000000000", "--out", "run.npz"], tmp_path, script=True)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    rc, _, err = finish(proc)
    assert rc == 130, err
    assert "Traceback" not in err and "interrupted" in err


def test_ctrl_c_during_the_final_save_still_saves_the_finished_run(tmp_path, capsys,
                                                                   monkeypatch):
    real_save = formats.save_learner_run

    def save_interrupted(path, run):
        os.kill(os.getpid(), signal.SIGINT)  # lands during the save
        time.sleep(0.05)
        real_save(path, run)

    monkeypatch.setattr(formats, "save_learner_run", save_interrupted)
    out = tmp_path / "run.npz"
    code, _, err = run(capsys, "learn", "--games", 2000, "--out", out)
    assert code == 130 and "interrupted" in err, err
    assert load_run_npz(out).games == 2000


@pytest.mark.slow
@needs_proc
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143)])
def test_signal_during_report_stops_workers_and_leaves_nothing(tmp_path, sig, code):
    proc = start(["report", "--games", "100..1e9", "--seeds", "4", "--workers", "2",
                  "--out", "rep"], tmp_path)
    assert wait_for(lambda: len(children(proc.pid)) >= 2, 30), "no worker processes started"
    workers = children(proc.pid)
    time.sleep(0.5)
    proc.send_signal(sig)
    rc, _, err = finish(proc)
    assert rc == code, err
    assert "interrupted" in err and "Traceback" not in err
    assert wait_for(lambda: not any(alive(pid) for pid in workers), 10), "orphaned workers"
    assert list(tmp_path.iterdir()) == []  # no .rep.XXXX.tmp/ folder, no half report


# ---------------------------------------------------------------------- 5. what --out replaces
def test_report_out_never_replaces_a_folder_dicejack_did_not_write(tmp_path, capsys,
                                                                    monkeypatch):
    mine = tmp_path / "mine"
    (mine / "sub").mkdir(parents=True)
    (mine / "notes.txt").write_text("my notes\n")
    no_work_starts(monkeypatch)  # refused before any work
    code, _, err = run(capsys, "report", *SMALL_REPORT, "--out", mine)
    assert code == 2 and MARKER in err and err.count("\n") == 1, err
    assert (mine / "notes.txt").read_text() == "my notes\n" and (mine / "sub").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_out_targets_that_cannot_be_written_fail_before_the_work(tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("x")
    code, _, err = run(capsys, "report", *SMALL_REPORT, "--out", ".")
    assert code == 2 and "current folder" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]

    import dicejack.solver as solver

    def never(*args, **kwargs):
        raise AssertionError("solved before checking --out")

    monkeypatch.setattr(solver, "solve", never)
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for target in ("dir", "fifo", "missing/x.json"):
        code, _, err = run(capsys, "solve", "--format", "json", "--out", target)
        assert code == 2 and err.startswith("error: ") and target in err, err
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        code, _, err = run(capsys, "solve", "--out", ro / "sol.txt")
        assert code == 2 and "not writable" in err, err
    code, _, err = run(capsys, "learn", "--games", 10, "--out", "fifo")
    assert code == 2 and "not a regular file" in err, err


# --------------------------------------------------------------------------- 6. input kinds
def test_compare_says_what_a_non_file_is_and_never_opens_a_fifo(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.txt")
    os.mkfifo(tmp_path / "pipe.npz")
    (tmp_path / "folder.npz").mkdir()
    for name, kind in [("pipe.txt", "FIFO"), ("pipe.npz", "FIFO"), ("folder.npz", "folder"),
                       ("nothing.txt", "no such file")]:
        code, _, err = run(capsys, "compare", tmp_path / name)  # a FIFO open would hang here
        assert code == 2 and kind in err and err.count("\n") == 1, err


def test_cjk_names_and_non_finite_values_print_no_warnings(tmp_path, capsys):
    path = hostile_table(tmp_path, capsys, name="表格-数据.txt")
    for fmt in ("text", "json"):
        code, _, err = run(capsys, "compare", path, "--format", fmt)
        assert code == 0 and err == "", err
    code, _, err = run(capsys, "report", *SMALL_REPORT, "--out", tmp_path / "报告")
    assert code == 0, err
    no_traceback(err)
    assert (tmp_path / "报告" / MARKER).is_file()
