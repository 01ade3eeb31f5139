"""One jailed process run to its end (:mod:`dicejack.runtime.sandbox` builds its command and
folder): limits set in the child between fork and exec, its output read within caps, waited
for within the deadline, then killed with everything it started (its control group and its
process group), and its CPU time counted for :func:`jails_cpu_seconds`."""

from __future__ import annotations

import os
import resource
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from dicejack.runtime import cgroups
from dicejack.runtime.jail_types import Limits, RunResult

__all__ = ["limiter", "run_process", "end_jail", "wait_for", "kill_group", "jails_cpu_seconds"]

_spent = [0.0]  # CPU seconds of every jail this process ran (jails_cpu_seconds)
_spent_lock = threading.Lock()


def jails_cpu_seconds() -> float:
    """The CPU time of every jail this process has run so far, as their RunResults said: a
    jail's processes are not the grader's waited-for children (bubblewrap's own first process
    reaps them), so the grader's rusage misses them; with control groups this is every process
    of every jail, without them what the kernel told the jail tool."""
    with _spent_lock:
        return _spent[0]


def limiter(limits: Limits, run_as: tuple[int, int] | None, group: cgroups.JailGroup | None,
            per_user_nproc: bool):  # noqa: ANN202 - a preexec function
    cpu = limits.cpu_seconds
    settings = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes)),
        (resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes)),
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if per_user_nproc:  # no jail of processes: the kernel counts the run's own user's
        settings.append((resource.RLIMIT_NPROC, (limits.processes, limits.processes)))
    join = group.joiner() if group is not None else None
    setrlimit, setgroups, setgid, setuid = (resource.setrlimit, os.setgroups, os.setgid,
                                            os.setuid)

    def limit() -> None:  # runs in the child between fork and exec: system calls only
        if join is not None:  # before dropping the user: the group's files are root's
            join()
        if run_as is not None:
            setgroups([])
            setgid(run_as[1])
            setuid(run_as[0])
        for what, value in settings:
            setrlimit(what, value)

    return limit


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def pump(proc: subprocess.Popen, sel: selectors.BaseSelector, out: bytearray,
          err: bytearray, limits: Limits, deadline: float,
          cancel: threading.Event | None) -> tuple[str, bool]:
    """Read the program's stdout into `out` and stderr into `err` until both close, the
    deadline passes, `cancel` is set or stdout passes its limit; (reason to kill it or '',
    whether stderr was cut)."""
    reason = ""
    err_cut = False
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout", err_cut
        if cancel is not None and cancel.is_set():
            return "cancelled", err_cut
        for key, _ in sel.select(timeout=min(left, 0.2)):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            if key.fileobj is proc.stdout:
                out += chunk
                if len(out) > limits.output_bytes:
                    del out[limits.output_bytes:]
                    reason = "output-limit"
            elif len(err) < limits.stderr_bytes:
                err += chunk[: limits.stderr_bytes - len(err)]
            else:
                err_cut = True
        if reason:
            break
    return reason, err_cut


def run_process(cmd: list[str], cwd: Path, argv: Sequence[str], limits: Limits, stdin: bytes,
                cancel: threading.Event | None, group: cgroups.JailGroup | None, preexec,
         run_env: dict[str, str]) -> RunResult:  # noqa: ANN001
    began = time.monotonic()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=run_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, preexec_fn=preexec)
    out, err = bytearray(), bytearray()
    reason = ""
    err_cut = False
    status = usage = None
    sel = selectors.DefaultSelector()
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        try:
            if stdin:
                proc.stdin.write(stdin[:65536])  # within a pipe's buffer: never blocks
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        for stream in (proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream, selectors.EVENT_READ)
        deadline = began + limits.wall_seconds
        reason, err_cut = pump(proc, sel, out, err, limits, deadline, cancel)
        if reason:
            end_jail(proc, group)
        # output closed: the program is ending; wait for it within what is left of the deadline
        status, usage = wait_for(proc, deadline, cancel)
        if status is None:
            reason = reason or ("cancelled" if cancel is not None and cancel.is_set()
                                else "timeout")
            end_jail(proc, group)
            status, usage = wait_for(proc, None)
    finally:
        sel.close()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        if proc.returncode is None:
            end_jail(proc, group)
            wait_for(proc, None)
        if group is not None:  # whatever the jail left behind dies now
            group.kill()
    code = os.waitstatus_to_exitcode(status) if status is not None else -signal.SIGKILL
    cpu = (usage.ru_utime + usage.ru_stime) if usage is not None else 0.0
    if group is not None:
        cpu = max(cpu, group.cpu_seconds())
    xcpu = code in (-signal.SIGXCPU, 128 + signal.SIGXCPU)
    spent = code != 0 and cpu >= 0.9 * limits.cpu_seconds  # a jail's tool may report it as 1
    if not reason and group is not None and code != 0 and group.hit_memory_cap():
        reason = "memory-limit"
    if not reason and (xcpu or spent):
        reason = "cpu-limit"
    with _spent_lock:
        _spent[0] += cpu
    return RunResult(code, bytes(out), bytes(err), time.monotonic() - began, cpu, reason,
                     err_cut, tuple(argv))


def end_jail(proc: subprocess.Popen, group: cgroups.JailGroup | None) -> None:
    """Kill the jail: its control group when it has one, and the tool's process group (whose
    end ends the jail's process tree)."""
    if group is not None:
        group.kill()
    kill_group(proc)


def wait_for(proc: subprocess.Popen, deadline: float | None,
          cancel: threading.Event | None = None):  # noqa: ANN202
    """(wait status, rusage) of `proc` (with its waited-for descendants), or (None, None) when
    `deadline` passes or `cancel` is set first. Polls: a blocking wait could outlive the
    deadline."""
    delay = 0.001
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return status, usage
        if deadline is not None and (time.monotonic() >= deadline
                                     or (cancel is not None and cancel.is_set())):
            return None, None
        time.sleep(delay)  # not a test waiting: the parent polling a child's end
        delay = min(delay * 2, 0.05)
