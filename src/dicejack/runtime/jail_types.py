"""What a jailed run is given and gives back (:mod:`dicejack.runtime.sandbox` is the face):
its limits, the jail chosen, what the run did, and the error when no jail can be had."""

from __future__ import annotations

from dataclasses import dataclass, field

from dicejack.runtime.messages import DicejackError

__all__ = ["SandboxError", "Limits", "Sandbox", "RunResult"]


class SandboxError(DicejackError):
    """No sandbox can be had here (and running without one was not allowed), or a bad limit."""


@dataclass(frozen=True)
class Limits:
    """Per-run limits. cpu_seconds: CPU time (RLIMIT_CPU; the kernel sends SIGXCPU, then kills);
    memory_bytes: address space per process (RLIMIT_AS) and, with control groups, the whole
    jail's memory (its memory file systems included); file_bytes: largest file written
    (RLIMIT_FSIZE); disk_bytes: the size of each of the jail's two memory file systems
    (/work, /tmp; bwrap only); processes: processes and threads of the jail; open_files
    (RLIMIT_NOFILE); wall_seconds: the timeout after which the whole jail is killed;
    output_bytes: stdout kept (more kills the run), stderr_bytes: stderr kept (more is dropped,
    not fatal)."""

    cpu_seconds: int = 20
    memory_bytes: int = 1 << 30
    file_bytes: int = 16 << 20
    disk_bytes: int = 128 << 20
    processes: int = 64
    open_files: int = 64
    wall_seconds: float = 30.0
    output_bytes: int = 8 << 20
    stderr_bytes: int = 64 << 10

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_bytes", "file_bytes", "disk_bytes", "processes",
                     "open_files", "output_bytes", "stderr_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SandboxError(f"limit {name} must be a whole number >= 1, got {value!r}")
        if not self.wall_seconds > 0:
            raise SandboxError(f"limit wall_seconds must be > 0, got {self.wall_seconds!r}")


@dataclass(frozen=True)
class Sandbox:
    """The jail chosen for a batch: its mode, the sentence the batch header shows, the user a
    root parent drops to in bubblewrap, and whether control groups bound each jail."""

    mode: str
    description: str
    run_as: tuple[int, int] | None = None  # (uid, gid) to drop to, when running as root
    grouped: bool = False  # each jail in a control group of its own (memory, CPU, processes)

    @property
    def isolates_files(self) -> bool:
        return self.mode == "bwrap"


@dataclass(frozen=True)
class RunResult:
    """What one jailed run did. reason: "" (it exited by itself), "timeout", "output-limit",
    "cpu-limit", "memory-limit" or "cancelled"; exit_code: the program's (negative: a
    signal)."""

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
        """One line: why the run did not end well ("" when it did). The program's own words
        (a stderr line) are the caller's to escape before showing them."""
        if self.reason == "timeout":
            return "timed out (killed after the wall-clock limit)"
        if self.reason == "output-limit":
            return f"printed more than the output limit ({len(self.stdout):,} bytes kept)"
        if self.reason == "cpu-limit":
            return "used up its CPU-time limit"
        if self.reason == "memory-limit":
            return "used up its memory limit (killed)"
        if self.reason:
            return self.reason
        if self.exit_code != 0:
            tail = self.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            said = f": {tail[0][:200]}" if tail else ""
            if self.exit_code < 0:
                return f"killed by signal {-self.exit_code}{said}"
            return f"exit code {self.exit_code}{said}"
        return ""
