"""A control group per jail: join it before exec, cap memory (tmpfs pages are charged to the
memory cgroup), processes and CPU share, read its CPU time and peak memory, kill everything in
it, remove it; and the removal of stale groups a crashed batch left.

Why: rlimits bind one process each, so a jail of three processes may hold three times its memory
limit, files in a tmpfs count against none, and forty spinning processes get forty shares of the
CPU. A control group bounds the jail as a whole, and everything it starts is in it, whatever it
does to its signals or sessions (a new session leaves the process group, never the cgroup).

Where the groups are (:mod:`.cgroup_layout` finds it; :func:`support` says which, once, cached):

- cgroup v1: a group ``dicejack-<pid>-<n>`` under our own cgroup in each hierarchy (<pid> is
  ours). Limits: ``memory.limit_in_bytes`` and, when swap is accounted,
  ``memory.memsw.limit_in_bytes`` (the same value, so swap does not extend it), ``pids.max``,
  ``cpu.shares`` (the same for every jail: a jail of 40 processes gets the share of a jail of
  one) and ``cpu.cfs_quota_us`` (at most ``cpu_quota`` CPUs). Read: ``cpuacct.usage``,
  ``memory.max_usage_in_bytes``, ``memory.oom_control``.
- cgroup v2: jails are ``dicejack-<pid>/jail-<n>`` below the base the probe prepared. Limits:
  ``memory.max``, ``memory.swap.max`` = 0 (when present), ``pids.max``, ``cpu.weight`` (equal),
  ``cpu.max``. Read: ``cpu.stat`` usage_usec, ``memory.peak`` (when the kernel has it),
  ``memory.events``.
- neither: :func:`available` is False and :func:`support` says why in one line; the jail then
  falls back to per-process rlimits (runtime.sandbox).

Joining: :meth:`JailGroup.joiner` is a preexec function (between fork and exec: system calls
only) writing ``0`` (the writing process) into each ``cgroup.procs``; it must run before the
child drops to an unprivileged user, and a child that cannot join raises there, so it never runs
unbounded. Killing: v2's ``cgroup.kill`` when present; otherwise the group is frozen (so that
nothing forks or exits, and no pid is reused, while its pids are read), every process in it
gets SIGKILL, and it is thawed, in rounds until it is empty. Stale groups of an earlier batch
that crashed (``dicejack-<pid>...`` whose pid is gone) are killed and removed by
:func:`remove_stale_groups`, which the first :meth:`JailGroup.create` of a process calls.

File system calls and this process's state go through :mod:`.cgroup_fs` (tests fake a cgroupfs
there).
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from dicejack.runtime import cgroup_fs as fs
from dicejack.runtime import cgroup_layout
from dicejack.runtime.cgroup_layout import CgroupError

__all__ = ["CgroupError", "GroupLimits", "JailGroup", "support", "available",
           "remove_stale_groups"]

#: The CFS period (microseconds) of the CPU quota.
CPU_PERIOD_US = 100_000
#: Kill rounds before giving up, and how long one round waits for the group to empty.
KILL_ROUNDS = 10
ROUND_SECONDS = 1.0
#: Our groups' names: v1 ``dicejack-<pid>-<n>``, v2 ``dicejack-<pid>`` (the parent of jail-<n>).
PREFIX = "dicejack-"
_V1_NAME = re.compile(r"^dicejack-(\d+)-(\d+)$")
_V2_NAME = re.compile(r"^dicejack-(\d+)$")


@dataclass(frozen=True)
class GroupLimits:
    """A jail's limits as a whole. memory_bytes: memory of all its processes together, tmpfs
    files they write included (no swap beyond it); processes: processes and threads at once;
    cpu_weight: its CPU share against the other jails under contention (1..10000, the same for
    every jail: fairness is per jail, not per process); cpu_quota: at most this many CPUs' time
    (None: no quota)."""

    memory_bytes: int
    processes: int
    cpu_weight: int = 100
    cpu_quota: float | None = 1.0

    def __post_init__(self) -> None:
        for name, low in (("memory_bytes", 1 << 20), ("processes", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise CgroupError(f"limit {name} must be a whole number >= {low}, got {value!r}")
        weight = self.cpu_weight
        if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 10000:
            raise CgroupError(f"limit cpu_weight must be a whole number in 1..10000, got "
                              f"{weight!r}")
        if self.cpu_quota is not None and not 0.01 <= self.cpu_quota <= 1024:
            raise CgroupError(f"limit cpu_quota must be None or 0.01..1024 CPUs, got "
                              f"{self.cpu_quota!r}")


def _poll(done: Callable[[], bool], seconds: float) -> bool:
    """Whether `done()` came true within `seconds` (tiny sleeps between looks: the kernel
    finishes a freeze or a kill asynchronously, without an event to wait on)."""
    end = time.monotonic() + seconds
    delay = 0.0005
    while not done():
        if time.monotonic() >= end:
            return done()
        time.sleep(delay)
        delay = min(delay * 2, 0.02)
    return True


def _stale(pid: int) -> bool:
    """Whether a group named after `pid` is left over: that process is gone."""
    return pid != os.getpid() and not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def support() -> tuple[str, str]:
    """("v1" or "v2", where the jails' groups are made) or ("", why there are none: one line).
    Probed once (a trial group made and removed), then cached."""
    with fs.lock:
        if "checked" in fs.probed:
            return fs.probed["checked"]  # type: ignore[return-value]
    try:
        layout = cgroup_layout.layout()
        JailGroup.create(GroupLimits(64 << 20, 8)).close()
        answer = (layout.version, layout.description)
    except CgroupError as exc:
        answer = ("", f"no control groups for the jails: {exc}")
    with fs.lock:
        fs.probed["checked"] = answer
    return answer


def available() -> bool:
    """Whether jails can be bounded by control groups here (:func:`support` says how, or
    why not)."""
    return support()[0] != ""


class JailGroup:
    """One jail's control group (one folder per v1 hierarchy, one in v2). Make it with
    :meth:`create`; start the jail's first process with ``preexec_fn=group.joiner()``; end with
    :meth:`close` (or use it as a context manager). The figures stay readable after close."""

    def __init__(self, version: str, dirs: dict[str, str]) -> None:
        """A handle on existing folders (`dirs`: controller -> folder; v2: "" -> folder).
        :meth:`create` is the way to make one."""
        self.version = version
        self._dirs = dict(dirs)
        self._closed = False
        self._final: tuple[float, int | None, bool] | None = None
        #: The files a joining process writes itself into (one per distinct folder).
        self.join_paths: tuple[str, ...] = tuple(
            os.path.join(d, "cgroup.procs") for d in self._folders())

    @classmethod
    def create(cls, limits: GroupLimits) -> JailGroup:
        """A new group with `limits`; CgroupError when none can be made here. The first call in
        a process removes the stale groups of crashed earlier batches first."""
        layout = cgroup_layout.layout()
        pid = os.getpid()
        with fs.lock:
            first = pid not in fs.cleaned
            fs.cleaned.add(pid)
            number = next(fs.numbers)
        if first:
            remove_stale_groups()
        if layout.version == "v1":
            name = f"{PREFIX}{pid}-{number}"
            dirs = {c: os.path.join(base, name) for c, base in layout.bases.items()}
        else:
            dirs = {"": os.path.join(_v2_parent(layout.bases[""], pid), f"jail-{number}")}
        group = cls(layout.version, dirs)
        made = []
        try:
            for folder in group._folders():
                fs.mkdir(folder)
                made.append(folder)
            group._set(limits)
        except OSError as exc:
            for folder in reversed(made):
                try:
                    fs.rmdir(folder)
                except OSError:
                    pass
            raise CgroupError(f"cannot make the jail's control group: {exc.filename}: "
                              f"{exc.strerror}") from None
        return group

    def _folders(self) -> list[str]:
        return list(dict.fromkeys(self._dirs.values()))

    def _path(self, controller: str, name: str) -> str:
        return os.path.join(self._dirs["" if self.version == "v2" else controller], name)

    def _set(self, limits: GroupLimits) -> None:
        p = self._path
        quota = None if limits.cpu_quota is None else max(1000, round(limits.cpu_quota
                                                                      * CPU_PERIOD_US))
        if self.version == "v1":
            fs.write(p("memory", "memory.limit_in_bytes"), str(limits.memory_bytes))
            if os.path.exists(p("memory", "memory.memsw.limit_in_bytes")):
                fs.write(p("memory", "memory.memsw.limit_in_bytes"), str(limits.memory_bytes))
            fs.write(p("pids", "pids.max"), str(limits.processes))
            fs.write(p("cpu", "cpu.shares"), str(max(2, limits.cpu_weight * 1024 // 100)))
            if quota is not None:
                fs.write(p("cpu", "cpu.cfs_period_us"), str(CPU_PERIOD_US))
                fs.write(p("cpu", "cpu.cfs_quota_us"), str(quota))
        else:
            fs.write(p("", "memory.max"), str(limits.memory_bytes))
            if os.path.exists(p("", "memory.swap.max")):
                fs.write(p("", "memory.swap.max"), "0")
            fs.write(p("", "pids.max"), str(limits.processes))
            fs.write(p("", "cpu.weight"), str(limits.cpu_weight))
            fs.write(p("", "cpu.max"), f"{'max' if quota is None else quota} {CPU_PERIOD_US}")

    def joiner(self) -> Callable[[], None]:
        """A preexec function putting the child into this group (system calls only, the
        os functions bound beforehand). Run it before the child drops its privileges; if it
        fails, the child raises and never executes."""
        paths = self.join_paths
        open_, write, close, flags = os.open, os.write, os.close, os.O_WRONLY

        def join() -> None:
            for path in paths:
                fd = open_(path, flags)
                try:
                    write(fd, b"0")  # 0: the writing process, in any pid namespace
                finally:
                    close(fd)

        return join

    def pids(self) -> list[int]:
        """The processes now in the group (zombies excluded), as this process's pid namespace
        numbers them."""
        found: set[int] = set()
        for path in self.join_paths:
            try:
                found.update(int(x) for x in fs.read(path).split())
            except FileNotFoundError:
                pass
        return sorted(found)

    def _freeze(self, frozen: bool) -> bool:
        """Freeze (or thaw) the group; a freeze is waited for, within a round's time. False
        when the group has no freezer (a stale group's folder already removed)."""
        if self.version == "v1":
            state, value = self._path("freezer", "freezer.state"), "FROZEN" if frozen else "THAWED"
        else:
            state, value = self._path("", "cgroup.freeze"), "1" if frozen else "0"
        try:
            fs.write(state, value)
        except FileNotFoundError:
            return False
        if frozen and self.version == "v1":
            _poll(lambda: fs.read(state).strip() == "FROZEN", ROUND_SECONDS)
        elif frozen:
            events = self._path("", "cgroup.events")
            _poll(lambda: "frozen 1" in fs.read(events), ROUND_SECONDS)
        return True

    def kill(self) -> None:
        """Kill every process in the group, whatever it did to its signals or sessions, and
        return once none is left (zombies waiting for their parent do not count). CgroupError
        if some survive every round."""
        if self._closed:
            return
        killer = self._path("", "cgroup.kill") if self.version == "v2" else ""
        for _ in range(KILL_ROUNDS):
            if not self.pids():
                return
            try:
                if killer and os.path.exists(killer):
                    fs.write(killer, "1")
                else:
                    frozen = self._freeze(True)
                    for pid in self.pids():  # frozen: none of them forks, exits or is reused
                        fs.sigkill(pid)
                    if frozen:
                        self._freeze(False)
            except FileNotFoundError:
                pass  # the group's folder vanished under us: the next look says what is left
            if _poll(lambda: not self.pids(), ROUND_SECONDS):
                return
        raise CgroupError(f"processes {self.pids()} of {self} survived {KILL_ROUNDS} kills")

    def _figures(self) -> tuple[float, int | None, bool]:
        if self._final is not None:
            return self._final
        p = self._path
        if self.version == "v1":
            cpu = int(fs.read(p("cpuacct", "cpuacct.usage"))) / 1e9
            peak: int | None = int(fs.read(p("memory", "memory.max_usage_in_bytes")))
            oom = _counts(fs.read(p("memory", "memory.oom_control")))
            if "oom_kill" in oom:
                hit = oom["oom_kill"] > 0 or oom.get("under_oom", 0) > 0
            else:  # kernels before 4.13: a charge refused at the cap
                counters = [p("memory", f) for f in ("memory.failcnt", "memory.memsw.failcnt")]
                hit = any(int(fs.read(f)) > 0 for f in counters if os.path.exists(f))
        else:
            cpu = _counts(fs.read(p("", "cpu.stat"))).get("usage_usec", 0) / 1e6
            peak = (int(fs.read(p("", "memory.peak"))) if os.path.exists(p("", "memory.peak"))
                    else None)
            events = _counts(fs.read(p("", "memory.events")))
            hit = events.get("oom", 0) > 0 or events.get("oom_kill", 0) > 0
        return cpu, peak, hit

    def cpu_seconds(self) -> float:
        """CPU time (user and system) used by all the group's processes so far, the dead
        included."""
        return self._figures()[0]

    def memory_peak(self) -> int | None:
        """The most memory the group held at once, in bytes (None: a v2 kernel before 5.19,
        which does not record it)."""
        return self._figures()[1]

    def hit_memory_cap(self) -> bool:
        """Whether the group ran out of memory at its cap: the kernel's OOM killer was called
        in it (a process was killed, or an allocation refused) at least once."""
        return self._figures()[2]

    def close(self) -> None:
        """Kill everything in the group, then remove it (its figures kept). Idempotent; a group
        already removed is no error."""
        if self._closed:
            return
        self.kill()
        try:
            self._final = self._figures()
        except OSError:  # already removed by someone else
            self._final = (0.0, None, False)
        for folder in reversed(self._folders()):
            _remove(folder)
        self._closed = True

    def __enter__(self) -> JailGroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JailGroup({self.version}, {self._dirs.get('memory') or self._folders()[0]})"


def _counts(text: str) -> dict[str, int]:
    """'key value' lines as a dict (cpu.stat, memory.events, memory.oom_control)."""
    pairs = (line.split() for line in text.splitlines())
    return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].lstrip("-").isdigit()}


def _remove(folder: str) -> None:
    """rmdir a killed group's folder: a missing one is fine; one still busy after a round's time
    (its last processes being torn down) is a CgroupError."""
    def gone() -> bool:
        try:
            fs.rmdir(folder)
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise CgroupError(f"cannot remove {folder}: {exc.strerror}") from None
            return False
        return True

    if not _poll(gone, ROUND_SECONDS):
        raise CgroupError(f"cannot remove {folder}: still in use")


def _v2_parent(base: str, pid: int) -> str:
    """This process's parent of jails in v2, made (with the controllers enabled for its
    children) on first use, and removed when the process exits."""
    parent = os.path.join(base, f"{PREFIX}{pid}")
    with fs.lock:
        if parent in fs.v2_parents:
            return parent
        try:
            if not os.path.isdir(parent):
                fs.mkdir(parent)
            cgroup_layout.enable(parent)
        except OSError as exc:
            raise CgroupError(f"cannot make {parent}: {exc.strerror}") from None
        fs.v2_parents.add(parent)
    atexit.register(_rmdir_quietly, parent)
    return parent


def _rmdir_quietly(folder: str) -> None:
    try:
        fs.rmdir(folder)
    except OSError:
        pass


def remove_stale_groups() -> int:
    """Kill and remove the groups of earlier dicejack processes that are gone (a crashed
    batch's jails, still holding their processes and memory); how many were removed. Groups of
    live processes, ours included, are left alone."""
    layout = cgroup_layout.layout()
    removed = 0
    if layout.version == "v1":
        names = {name for base in layout.bases.values() for name in fs.listdir(base)}
        for name in sorted(names):
            match = _V1_NAME.match(name)
            if match and _stale(int(match.group(1))):
                JailGroup("v1", {c: os.path.join(base, name)
                                 for c, base in layout.bases.items()}).close()
                removed += 1
        return removed
    base = layout.bases[""]
    for name in fs.listdir(base):
        match = _V2_NAME.match(name)
        if not match or not _stale(int(match.group(1))):
            continue
        parent = os.path.join(base, name)
        for child in fs.listdir(parent):
            if os.path.isdir(os.path.join(parent, child)):
                JailGroup("v2", {"": os.path.join(parent, child)}).close()
                removed += 1
        _remove(parent)
    return removed
