"""The cgroup modules' seams: every file system and process call they make on the cgroupfs,
and this process's cgroup state (the probe's cached answer, the pids that removed stale groups,
the v2 parents made), in one module that :mod:`.cgroup_layout` and :mod:`.cgroups` use as a
module (``cgroup_fs.write(...)``), so a test replacing one of them (a fake cgroupfs) reaches
every caller."""

from __future__ import annotations

import itertools
import os
import signal
import threading

__all__ = ["read", "write", "mkdir", "rmdir", "sigkill", "listdir", "lock", "probed",
           "numbers", "cleaned", "v2_parents"]

#: Held while the state below is read or changed (not reentrant).
lock = threading.Lock()
#: The probe's answer, once probed: "layout" (a cgroup_layout.Layout) or "reason" (str); and
#: "checked", support()'s answer once a trial group was made.
probed: dict[str, object] = {}
#: The numbers of this process's jails (jail-<n>, dicejack-<pid>-<n>).
numbers = itertools.count()
#: Pids (of this process, forks included) that removed stale groups.
cleaned: set[int] = set()
#: v2 parents made by this process.
v2_parents: set[str] = set()


def read(path: str) -> str:
    with open(path) as f:
        return f.read()


def write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def mkdir(path: str) -> None:
    os.mkdir(path)


def rmdir(path: str) -> None:
    os.rmdir(path)


def sigkill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def listdir(folder: str) -> list[str]:
    """The names in `folder`, sorted ([] when it is gone)."""
    try:
        return sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
