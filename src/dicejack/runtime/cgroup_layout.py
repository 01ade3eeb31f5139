"""Where the jails' control groups go: probe the mounts (/proc/self/mountinfo) and our own
cgroups (/proc/self/cgroup) for a v1 or v2 layout, preparing a v2 base when needed, once per
process (:func:`layout`, cached). The groups themselves are :mod:`.cgroups`'.

- cgroup v1 (the memory, pids, cpu, cpuacct and freezer hierarchies mounted): a group per jail
  under our own cgroup in each hierarchy, which must be ours to write.
- cgroup v2 (unified): jails go below a base whose subtree has the memory, pids and cpu
  controllers enabled. The base is the hierarchy's top when we are root (controllers enabled in
  its ``cgroup.subtree_control`` if needed), else (or when the top refuses) our own cgroup, when
  it is ours to write: a delegated subtree, e.g.
  ``systemd-run --user --scope -p Delegate=yes dicejack grade --run ...``. v2 lets a cgroup
  enable controllers for its children only when it holds no process itself, so we first move
  our own process into the leaf ``<own>/grader``; when other processes share our cgroup this is
  refused (we never move them) and the probe says so.
- neither (no cgroups, a controller missing, not ours to write): a :class:`CgroupError` saying
  why in one line.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass, field

from dicejack.runtime import cgroup_fs as fs
from dicejack.runtime.messages import DicejackError

__all__ = ["CgroupError", "Layout", "probe", "layout", "enable", "PROC_MOUNTINFO", "PROC_CGROUP",
           "V1_CONTROLLERS", "V2_CONTROLLERS", "V2_LEAF"]

#: Where the mounts and our own cgroups are read (tests point a probe at a fake tree).
PROC_MOUNTINFO = "/proc/self/mountinfo"
PROC_CGROUP = "/proc/self/cgroup"
#: The v1 hierarchies a jail needs, and the v2 controllers.
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
V2_CONTROLLERS = ("memory", "pids", "cpu")
#: The leaf our own process moves into when our own cgroup is the v2 base.
V2_LEAF = "grader"


class CgroupError(DicejackError):
    """No control group can be made here (the reason says why), a bad limit, or a group whose
    processes would not die."""


@dataclass(frozen=True)
class Layout:
    """What the probe found: the version, and where jails are made (v1: controller -> our
    cgroup's folder in its hierarchy; v2: "" -> the base whose subtree has the controllers)."""

    version: str
    bases: dict[str, str] = field(hash=False)
    description: str


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def _mounts(mountinfo: str) -> list[tuple[str, str, str, list[str]]]:
    """(fstype, root, mount point, super options) of every cgroup mount in `mountinfo`."""
    found = []
    for line in mountinfo.splitlines():
        head, sep, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if not sep or len(fields) < 5 or len(rest) < 3 or rest[0] not in ("cgroup", "cgroup2"):
            continue
        found.append((rest[0], _unescape(fields[3]), _unescape(fields[4]), rest[2].split(",")))
    return found


def _own_paths(proc_cgroup: str) -> dict[str, str]:
    """Our cgroup path in each hierarchy, by controller ("" for the v2 hierarchy)."""
    paths = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    return paths


def _folder(point: str, root: str, path: str | None) -> str | None:
    """The folder of cgroup `path` under a mount of the hierarchy's `root` at `point`, or None
    when the mount does not show it."""
    if path is None or "/.." in path:
        return None
    root = root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None
    rel = path[len(root):].strip("/")
    return os.path.join(point, rel) if rel else point


def probe(mountinfo: str = PROC_MOUNTINFO, cgroup: str = PROC_CGROUP,
           euid: int | None = None) -> Layout:
    """Where jails can be made here, preparing a v2 base if needed; CgroupError saying why
    not."""
    try:
        mounts = _mounts(fs.read(mountinfo))
        own = _own_paths(fs.read(cgroup))
    except OSError as exc:
        raise CgroupError(f"cannot read {exc.filename}: {exc.strerror}") from None
    v1: dict[str, str] = {}
    for fstype, root, point, options in mounts:
        for controller in options:
            if fstype == "cgroup" and controller in V1_CONTROLLERS and controller not in v1:
                folder = _folder(point, root, own.get(controller))
                if folder is not None and os.path.isdir(folder):
                    v1[controller] = folder
    if v1:
        missing = [c for c in V1_CONTROLLERS if c not in v1]
        if missing:
            raise CgroupError(f"cgroup v1 without the {', '.join(missing)} hierarchy")
        unwritable = sorted({d for d in v1.values() if not os.access(d, os.W_OK)})
        if unwritable:
            raise CgroupError(f"cgroup v1: our cgroup {unwritable[0]} is not ours to write "
                              f"(run as root)")
        return Layout("v1", v1, f"cgroup v1: a group per jail under {v1['memory']} (memory, "
                                 f"pids, cpu, cpuacct, freezer)")
    unified = [(root, point) for fstype, root, point, _ in mounts if fstype == "cgroup2"]
    if not unified or "" not in own:
        raise CgroupError("no cgroup hierarchy is mounted")
    euid = os.geteuid() if euid is None else euid
    reasons = []
    for root, point in unified:
        mine = _folder(point, root, own[""])
        if mine is None:
            continue
        for base in ([point] if euid == 0 and point != mine else []) + [mine]:
            try:
                _prepare_v2(base, moving_in=base == mine)
            except CgroupError as exc:
                reasons.append(str(exc))
                continue
            return Layout("v2", {"": base}, f"cgroup v2: a group per jail under {base} "
                                             f"(memory, pids, cpu)")
        break
    raise CgroupError(reasons[-1] if reasons else "cgroup v2 does not show our own cgroup")


def enable(folder: str) -> None:
    """The controllers a jail needs enabled for `folder`'s children (those not yet on)."""
    wanted = [c for c in V2_CONTROLLERS
              if c not in fs.read(os.path.join(folder, "cgroup.subtree_control")).split()]
    if wanted:
        fs.write(os.path.join(folder, "cgroup.subtree_control"),
               " ".join(f"+{c}" for c in wanted))


def _prepare_v2(base: str, *, moving_in: bool) -> None:
    """Make `base`'s children able to have the controllers: enable them in its subtree_control;
    if `base` is our own cgroup (`moving_in`), first move our process into its leaf
    ``grader`` (v2: no processes in a cgroup whose children have controllers)."""
    try:
        have = fs.read(os.path.join(base, "cgroup.controllers")).split()
    except OSError as exc:
        raise CgroupError(f"cgroup v2: cannot read {base}: {exc.strerror}") from None
    missing = [c for c in V2_CONTROLLERS if c not in have]
    if missing:
        raise CgroupError(f"cgroup v2: the {', '.join(missing)} controller is not delegated to "
                          f"{base} (run dicejack under systemd-run --user --scope -p "
                          f"Delegate=yes, or as root)")
    if not os.access(os.path.join(base, "cgroup.subtree_control"), os.W_OK):
        raise CgroupError(f"cgroup v2: {base} is not ours to write (run dicejack under "
                          f"systemd-run --user --scope -p Delegate=yes, or as root)")
    try:
        enable(base)
        return
    except OSError as exc:
        if not moving_in or exc.errno != errno.EBUSY:
            raise CgroupError(f"cgroup v2: cannot enable the controllers in {base}: "
                              f"{exc.strerror}") from None
    leaf = os.path.join(base, V2_LEAF)
    try:
        if not os.path.isdir(leaf):
            fs.mkdir(leaf)
        fs.write(os.path.join(leaf, "cgroup.procs"), "0")
        enable(base)
    except OSError as exc:
        try:  # leave our process where it was
            fs.write(os.path.join(base, "cgroup.procs"), "0")
            fs.rmdir(leaf)
        except OSError:
            pass
        raise CgroupError(f"cgroup v2: other processes share our cgroup {base}, so its children "
                          f"cannot have controllers ({exc.strerror}): run dicejack in a scope "
                          f"of its own (systemd-run --user --scope -p Delegate=yes ...)") from None


def layout() -> Layout:
    """Where jails are made here: probed on first use, then cached (``cgroup_fs.probed``);
    CgroupError saying why not."""
    with fs.lock:
        if not fs.probed:
            try:
                fs.probed["layout"] = probe()
            except CgroupError as exc:
                fs.probed["reason"] = str(exc)
        if "layout" in fs.probed:
            layout = fs.probed["layout"]
            assert isinstance(layout, Layout)
            return layout
    raise CgroupError(str(fs.probed["reason"]))
