"""Running an untrusted program in a jail: a fresh folder, a cleared environment, resource
limits, a wall-clock timeout that ends the whole process group, output capped while it is read,
and no network. Plumbing only: what is run, and what its output means, is the caller's.

The jail is the strongest this machine offers, chosen once (:func:`choose_sandbox`) and never
weakened silently:

- ``bwrap`` (bubblewrap, when installed and user namespaces work): every namespace unshared (no
  network, own process tree whose first process is the program itself, so that its CPU time
  reaches the parent's accounting and its end ends every process it started; own hostname),
  /usr and the few /etc entries programs need read-only, an empty /tmp, the run's folder the
  only writable place and nothing else of the host's files visible;
- ``unshare`` (util-linux, when the kernel allows an unprivileged user namespace): no network
  and its own process tree, but the host's files stay readable (the header says so);
- ``none``: only the limits below, and only when the caller asks for it explicitly
  (``allow_unsafe``); otherwise :class:`SandboxError`.

In every mode the limits are set in the child before it executes (``preexec_fn`` calling only
:func:`resource.setrlimit` and, when dicejack runs as root, dropping to the unprivileged user
``nobody`` so that the process limit binds: the kernel ignores RLIMIT_NPROC for root); in a jail
the process limit is set inside it by ``prlimit`` (util-linux), so that it counts that jail's
processes only. The
process runs in its own session; on timeout or too much output the whole group is killed (and in
the two jails the process namespace with it, so a program that escapes its group dies too).
"""

from __future__ import annotations

import os
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dicejack.game import DicejackError

__all__ = ["MODES", "SandboxError", "Limits", "Sandbox", "RunResult", "choose_sandbox",
           "probe_mode", "run_jailed", "fresh_folder", "NOBODY"]

#: Sandbox modes, strongest first.
MODES = ("bwrap", "unshare", "none")
#: The unprivileged user a root parent drops to (uid, gid).
NOBODY = (65534, 65534)
#: What the run's folder is called inside the bwrap jail.
JAIL_DIR = "/work"
#: /etc entries bound read-only in the bwrap jail (those that exist): the dynamic linker's cache
#: and the alternatives links (java, javac), a JDK's configuration, locale and time zone data.
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
               "java-17-openjdk", "java-21-openjdk", "java-11-openjdk", "ssl/certs")
#: Environment every run gets (and nothing else).
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


class SandboxError(DicejackError):
    """No sandbox can be had here (and running without one was not allowed), or a bad limit."""


@dataclass(frozen=True)
class Limits:
    """Per-run limits. cpu_seconds: CPU time (RLIMIT_CPU; the kernel sends SIGXCPU, then kills);
    memory_bytes: address space (RLIMIT_AS); file_bytes: largest file written (RLIMIT_FSIZE);
    processes: processes and threads of the user (RLIMIT_NPROC); open_files (RLIMIT_NOFILE);
    wall_seconds: the timeout after which the process group is killed; output_bytes: stdout
    kept (more kills the run), stderr_bytes: stderr kept (more is dropped, not fatal)."""

    cpu_seconds: int = 20
    memory_bytes: int = 1 << 30
    file_bytes: int = 16 << 20
    processes: int = 64
    open_files: int = 64
    wall_seconds: float = 30.0
    output_bytes: int = 8 << 20
    stderr_bytes: int = 64 << 10

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_bytes", "file_bytes", "processes", "open_files",
                     "output_bytes", "stderr_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SandboxError(f"limit {name} must be a whole number >= 1, got {value!r}")
        if not self.wall_seconds > 0:
            raise SandboxError(f"limit wall_seconds must be > 0, got {self.wall_seconds!r}")


@dataclass(frozen=True)
class Sandbox:
    """The jail chosen for a batch: its mode and the sentence the batch header shows."""

    mode: str
    description: str
    run_as: tuple[int, int] | None = None  # (uid, gid) to drop to, when running as root

    @property
    def isolates_files(self) -> bool:
        return self.mode == "bwrap"


@dataclass(frozen=True)
class RunResult:
    """What one jailed run did. reason: "" (it exited by itself), "timeout", "output-limit",
    "cpu-limit" or "cancelled"; exit_code: the program's (negative: a signal)."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    seconds: float
    cpu_seconds: float
    reason: str = ""
    stderr_truncated: bool = False
    command: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.reason == "" and self.exit_code == 0

    def why(self) -> str:
        """One line: why the run did not end well ("" when it did)."""
        if self.reason == "timeout":
            return "timed out (killed after the wall-clock limit)"
        if self.reason == "output-limit":
            return f"printed more than the output limit ({len(self.stdout):,} bytes kept)"
        if self.reason == "cpu-limit":
            return "used up its CPU-time limit"
        if self.reason:
            return self.reason
        if self.exit_code != 0:
            tail = self.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            said = f": {tail[0][:200]}" if tail else ""
            if self.exit_code < 0:
                return f"killed by signal {-self.exit_code}{said}"
            return f"exit code {self.exit_code}{said}"
        return ""


def _works(cmd: Sequence[str], run_as: tuple[int, int] | None) -> bool:
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                           env=dict(BASE_ENV), preexec_fn=_dropper(run_as))
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0 and r.stdout.strip() == b"ok"


def _dropper(run_as: tuple[int, int] | None):  # noqa: ANN202 - a preexec function or None
    if run_as is None:
        return None
    uid, gid = run_as

    def drop() -> None:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)

    return drop


def _run_as() -> tuple[int, int] | None:
    return NOBODY if os.geteuid() == 0 else None


def probe_mode(mode: str) -> bool:
    """Does `mode` work on this machine (its tool installed and the kernel allowing it)?"""
    run_as = _run_as()
    with tempfile.TemporaryDirectory(prefix="dicejack-probe-") as tmp:
        if run_as is not None:
            os.chown(tmp, *run_as)
        if mode == "bwrap":
            return shutil.which("bwrap") is not None and _works(
                [*_bwrap_prefix(Path(tmp)), "/bin/sh", "-c", "echo ok"], run_as)
        if mode == "unshare":
            return shutil.which("unshare") is not None and _works(
                [*_unshare_prefix(), "/bin/sh", "-c", "echo ok"], run_as)
    return mode == "none"


def choose_sandbox(prefer: str | None = None, *, allow_unsafe: bool = False) -> Sandbox:
    """The strongest sandbox this machine offers (or `prefer`, checked). Without one,
    SandboxError unless `allow_unsafe` (then mode ``none``, said in its description)."""
    run_as = _run_as()
    if prefer is not None and prefer not in MODES:
        raise SandboxError(f"sandbox must be one of {', '.join(MODES)}, got {prefer!r}")
    wanted = [prefer] if prefer is not None else list(MODES[:2])
    for mode in wanted:
        if mode == "none":
            break
        if probe_mode(mode):
            return Sandbox(mode, _DESCRIPTIONS[mode], run_as)
    if prefer not in (None, "none"):
        raise SandboxError(f"the {prefer} sandbox does not work on this machine")
    if not allow_unsafe:
        raise SandboxError(
            "no sandbox works on this machine (bubblewrap not installed, no user namespaces "
            "for unshare): install bubblewrap, or pass --unsafe-no-sandbox to run the "
            "programs with resource limits only")
    return Sandbox("none", _DESCRIPTIONS["none"], run_as)


_DESCRIPTIONS = {
    "bwrap": "bubblewrap: no network, own process tree, only /usr (read-only) and the run's "
             "own folder visible; resource limits and a wall-clock timeout",
    "unshare": "unshare: no network, own process tree; the host's files stay readable; "
               "resource limits and a wall-clock timeout",
    "none": "NONE (--unsafe-no-sandbox): network and the host's files reachable; resource "
            "limits (the process limit only when run as root) and a wall-clock timeout only",
}


def _bwrap_prefix(folder: Path) -> list[str]:
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1",
           "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin"):
        target = Path("/") / name
        if target.is_symlink():
            cmd += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            cmd += ["--ro-bind", str(target), str(target)]
    for entry in ETC_ENTRIES:
        path = Path("/etc") / entry
        if path.exists():
            cmd += ["--ro-bind", str(path), str(path)]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--bind", str(folder), JAIL_DIR, "--chdir", JAIL_DIR, "--clearenv"]
    for key, value in {**BASE_ENV, "HOME": JAIL_DIR, "TMPDIR": "/tmp"}.items():
        cmd += ["--setenv", key, value]
    return [*cmd, "--"]


def _unshare_prefix() -> list[str]:
    return ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child",
            "--mount", "--mount-proc", "--"]


def fresh_folder(files: Path | None = None, *, run_as: tuple[int, int] | None = None,
                 prefix: str = "dicejack-run-") -> Path:
    """A new private temporary folder (a copy of the folder `files` when given), owned by
    `run_as` when given so that the dropped user can write it. The caller removes it."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    if files is not None:
        shutil.copytree(files, tmp, dirs_exist_ok=True, symlinks=False)
    if run_as is not None:
        for root, dirs, names in os.walk(tmp):
            for name in (*dirs, *names):
                os.chown(os.path.join(root, name), *run_as, follow_symlinks=False)
        os.chown(tmp, *run_as)
    return tmp


def _limiter(limits: Limits, run_as: tuple[int, int] | None, jailed: bool):  # noqa: ANN202
    cpu = limits.cpu_seconds
    settings = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes)),
        (resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes)),
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if not jailed and run_as is not None:  # in a jail: set inside it (jailed_command)
        # unjailed, the kernel counts every process of the user: only a user of ours (nobody)
        # can be capped without starving the caller's own processes
        settings.append((resource.RLIMIT_NPROC, (limits.processes, limits.processes)))
    setrlimit, setgroups, setgid, setuid = (resource.setrlimit, os.setgroups, os.setgid,
                                            os.setuid)

    def limit() -> None:  # runs in the child between fork and exec: system calls only
        if run_as is not None:
            setgroups([])
            setgid(run_as[1])
            setuid(run_as[0])
        for what, value in settings:
            setrlimit(what, value)

    return limit


def jailed_command(sandbox: Sandbox, folder: Path, argv: Sequence[str],
                   limits: Limits = Limits()) -> list[str]:
    """The command line that runs `argv` in `folder` under `sandbox` (argv's paths relative to
    the folder, which is the working directory in every mode). In a jail the process limit is
    set inside it (prlimit), where the kernel counts only the jail's own processes: set before
    the user namespace is made, it would cap every jail of the user together, and one fork bomb
    would starve the others."""
    inner = ["prlimit", f"--nproc={limits.processes}", "--", *argv]
    if sandbox.mode == "bwrap":
        return [*_bwrap_prefix(folder), *inner]
    if sandbox.mode == "unshare":
        return [*_unshare_prefix(), *inner]
    return list(argv)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _pump(proc: subprocess.Popen, sel: selectors.BaseSelector, out: bytearray,
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


def run_jailed(
    sandbox: Sandbox,
    folder: Path,
    argv: Sequence[str],
    *,
    limits: Limits = Limits(),
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    cancel: threading.Event | None = None,
) -> RunResult:
    """Run `argv` in `folder` under `sandbox` with `limits`, feeding `stdin`; never raises for
    what the program does (its result says), only OSError when it cannot be started at all.
    stdout beyond limits.output_bytes kills the run (reason output-limit); stderr beyond
    limits.stderr_bytes is dropped. Setting `cancel` (Ctrl-C in the caller) kills the run within
    a fraction of a second (reason cancelled)."""
    cmd = jailed_command(sandbox, folder, argv, limits)
    run_env = {**BASE_ENV, "HOME": str(folder), **(env or {})}
    began = time.monotonic()
    proc = subprocess.Popen(
        cmd, cwd=folder, env=run_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=_limiter(limits, sandbox.run_as, sandbox.mode != "none"),
    )
    out, err = bytearray(), bytearray()
    reason = ""
    err_cut = False
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
        reason, err_cut = _pump(proc, sel, out, err, limits, deadline, cancel)
        if reason:
            _kill_group(proc)
        # output closed: the program is ending; wait for it within what is left of the deadline
        status, usage = _wait(proc, deadline)
        if status is None:
            reason = reason or "timeout"
            _kill_group(proc)
            status, usage = _wait(proc, None)
    finally:
        sel.close()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        if proc.returncode is None:
            _kill_group(proc)
            _wait(proc, None)
    code = os.waitstatus_to_exitcode(status) if status is not None else -signal.SIGKILL
    cpu = (usage.ru_utime + usage.ru_stime) if usage is not None else 0.0
    xcpu = code in (-signal.SIGXCPU, 128 + signal.SIGXCPU)
    spent = code != 0 and cpu >= 0.9 * limits.cpu_seconds  # a jail's tool may report it as 1
    if not reason and (xcpu or spent):
        reason = "cpu-limit"
    return RunResult(code, bytes(out), bytes(err), time.monotonic() - began, cpu, reason,
                     err_cut, tuple(argv))


def _wait(proc: subprocess.Popen, deadline: float | None):  # noqa: ANN202
    """(wait status, rusage) of `proc` (with its waited-for descendants), or (None, None) when
    `deadline` passes first. Polls: a blocking wait could outlive the deadline."""
    delay = 0.001
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return status, usage
        if deadline is not None and time.monotonic() >= deadline:
            return None, None
        time.sleep(delay)  # not a test waiting: the parent polling a child's end
        delay = min(delay * 2, 0.05)
