"""runtime.cgroups and runtime.cgroup_layout: a jail bounded as a whole. On this machine's
cgroups (skipped, saying why, where none are writable) real processes show that memory (tmpfs
included), processes and CPU share are capped per jail and that everything a jail started dies
with it; the v2 path, and the probing of both versions, are checked against a fake cgroupfs in a
temporary folder (hooked in through runtime.cgroup_fs) that keeps the kernel's rules that matter
here."""

from __future__ import annotations

import atexit
import errno
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from dicejack.runtime import cgroup_fs, cgroup_layout, cgroups

PYTHON = "/usr/bin/python3"
MiB = 1 << 20


# ---------------------------------------------------------------- on this machine's cgroups


@pytest.fixture
def make_group():
    """JailGroup.create with the given limits (closed after the test); skips when this machine
    has no writable cgroups."""
    version, why = cgroups.support()
    if not version:
        pytest.skip(why)
    if not Path(PYTHON).exists():
        pytest.skip(f"no {PYTHON}")
    made: list[cgroups.JailGroup] = []

    def make(memory: int = 256 * MiB, processes: int = 64, **kw) -> cgroups.JailGroup:
        group = cgroups.JailGroup.create(cgroups.GroupLimits(memory, processes, **kw))
        made.append(group)
        return group

    yield make
    for group in made:
        group.close()


def start(group: cgroups.JailGroup, code: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([PYTHON, "-c", code], preexec_fn=group.joiner(), **kw)


def until(condition, seconds: float = 30.0) -> bool:
    """Whether `condition()` comes true within `seconds` (a bounded poll)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def dead(pid: int) -> bool:
    """The process is gone, or a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def test_a_process_over_the_memory_cap_is_killed(make_group):
    group = make_group(memory=200 * MiB)
    proc = start(group, "x = b'x' * (400 << 20); print('survived')", stdout=subprocess.PIPE)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL and out == b""
    assert group.hit_memory_cap()
    assert group.memory_peak() <= 200 * MiB


def test_the_memory_cap_binds_the_jail_as_a_whole(make_group):
    # three processes of 150 MiB each: within a per-process limit of 200 MiB, not within a
    # jail's 300 MiB together
    group = make_group(memory=300 * MiB)
    code = "import sys; x = b'x' * (150 << 20); print('held', flush=True); sys.stdin.read()"
    procs = [start(group, code, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
             for _ in range(3)]
    for proc in procs:  # each holds its 150 MiB, or died trying
        proc.stdout.readline()
    for proc in procs:
        proc.communicate(timeout=120)
    codes = [proc.returncode for proc in procs]
    assert -signal.SIGKILL in codes, codes
    assert group.hit_memory_cap() and group.memory_peak() <= 300 * MiB


def test_tmpfs_files_count_against_the_memory_cap(make_group):
    shm = Path("/dev/shm")
    kinds = {line.split()[1]: line.split()[2] for line in Path("/proc/mounts").read_text()
             .splitlines() if len(line.split()) > 2}
    if kinds.get(str(shm)) != "tmpfs" or shutil.which("dd") is None:
        pytest.skip("/dev/shm is not a tmpfs here (or no dd)")
    group = make_group(memory=200 * MiB)
    target = shm / f"dicejack-test-{uuid.uuid4().hex}"
    try:
        proc = subprocess.Popen(["dd", "if=/dev/zero", f"of={target}", "bs=1M", "count=300"],
                                preexec_fn=group.joiner(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        proc.communicate(timeout=120)
        assert proc.returncode != 0
        assert target.stat().st_size <= 200 * MiB
        assert group.hit_memory_cap()
    finally:
        target.unlink(missing_ok=True)


FORK_BOMB = """
import os
r, w = os.pipe()
made = failed = 0
for _ in range(30):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        os.read(r, 1)
        os._exit(0)
    made += 1
print(made, failed, flush=True)
os.read(r, 1)
"""


def test_the_process_cap_stops_a_fork_bomb(make_group):
    group = make_group(processes=20)
    proc = start(group, FORK_BOMB, stdout=subprocess.PIPE)
    made, failed = map(int, proc.stdout.readline().split())
    assert (made, failed) == (19, 11)  # 20 with the first process
    assert len(group.pids()) == 20
    group.kill()
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL and group.pids() == []


SPIN = "import os; os.sched_setaffinity(0, {%d}); print('spinning', flush=True)\nwhile True: pass"


@pytest.mark.slow
def test_a_jail_of_many_processes_gets_the_cpu_share_of_a_jail_of_one(make_group):
    cpu = max(os.sched_getaffinity(0))
    many, one = make_group(cpu_quota=None), make_group(cpu_quota=None)
    procs = [start(many, SPIN % cpu, stdout=subprocess.PIPE) for _ in range(10)]
    procs.append(start(one, SPIN % cpu, stdout=subprocess.PIPE))
    try:
        for proc in procs:  # all pinned and spinning: the measurement starts now
            assert proc.stdout.readline() == b"spinning\n"
        began, a0, b0 = time.monotonic(), many.cpu_seconds(), one.cpu_seconds()
        end = began + 30
        while many.cpu_seconds() - a0 + one.cpu_seconds() - b0 < 1.5 and time.monotonic() < end:
            time.sleep(0.05)  # a bounded poll: until the two jails have used 1.5 CPU seconds
        a, b = many.cpu_seconds() - a0, one.cpu_seconds() - b0
        wall = time.monotonic() - began
    finally:
        many.kill()
        one.kill()
        for proc in procs:
            proc.communicate(timeout=30)
    share = b / (a + b)
    print(f"\ncpu share: the jail of 1 process {b:.2f} s, the jail of 10 {a:.2f} s in {wall:.2f} "
          f"s on one CPU: {share:.0%} of the two jails' CPU, {b / wall:.0%} of the wall time "
          f"(per process it would be 9%)")
    assert share >= 0.3


DAEMONS = r"""
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
os.setsid()
out = sys.stdout.fileno()
for _ in range(3):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # a daemon: its parent exits, so init adopts it
            os.setsid()
            os.write(out, b"%d\n" % os.getpid())
            while True:
                signal.pause()
        os._exit(0)
os.write(out, b"%d\n" % os.getpid())
while True:
    signal.pause()
"""


def test_kill_ends_everything_the_jail_started_whatever_its_sessions(make_group):
    group = make_group()
    proc = start(group, DAEMONS, stdout=subprocess.PIPE)
    pids = [int(proc.stdout.readline()) for _ in range(4)]
    assert proc.pid in pids
    assert until(lambda: group.pids() == sorted(pids))  # the daemons' parents have exited
    os.killpg(proc.pid, signal.SIGKILL)  # what killing the run's process group reaches
    proc.wait(timeout=30)  # (its output stays open: the daemons hold it)
    daemons = [pid for pid in pids if pid != proc.pid]
    assert until(lambda: group.pids() == sorted(daemons))
    assert not any(dead(pid) for pid in daemons)
    group.kill()
    assert group.pids() == [] and all(dead(pid) for pid in daemons)
    assert proc.stdout.read() == b""  # closed: no process holds it any more
    proc.stdout.close()


def test_close_removes_the_group_and_keeps_its_figures(make_group):
    group = make_group()
    folders = [Path(p).parent for p in group.join_paths]
    assert folders and all(folder.is_dir() for folder in folders)
    proc = start(group, "import time; sum(range(10**6)); print('ok', flush=True); time.sleep(600)",
                 stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ok\n"
    group.close()
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not any(folder.exists() for folder in folders)
    assert group.cpu_seconds() > 0 and group.memory_peak() > 0 and not group.hit_memory_cap()
    group.close()  # idempotent


def test_close_of_a_group_removed_meanwhile_is_no_error(make_group):
    with make_group() as group:
        for path in group.join_paths:
            os.rmdir(Path(path).parent)


def test_a_child_that_cannot_join_never_runs(make_group, tmp_path):
    group = make_group()
    group.close()
    with pytest.raises(subprocess.SubprocessError):
        subprocess.run([PYTHON, "-c", f"open({str(tmp_path / 'ran')!r}, 'w')"],
                       preexec_fn=group.joiner(), check=False)
    assert not (tmp_path / "ran").exists()


def test_stale_groups_of_a_gone_process_are_killed_and_removed(make_group):
    make_group()  # cgroups work here; the first create has cleaned up already
    layout = cgroup_layout.layout()
    gone = subprocess.Popen(["true"])
    gone.wait()
    sleeper = subprocess.Popen(["sleep", "600"])  # alive: its groups stay
    stale = {c: os.path.join(base, f"dicejack-{gone.pid}-0") for c, base in layout.bases.items()}
    kept = {c: os.path.join(base, f"dicejack-{sleeper.pid}-0")
            for c, base in layout.bases.items()}
    if layout.version == "v2":
        pytest.skip("the v2 layout's stale groups are checked on the fake cgroupfs")
    for folder in [*stale.values(), *kept.values()]:
        os.mkdir(folder)
    try:
        orphan = subprocess.Popen(["sleep", "600"],
                                  preexec_fn=cgroups.JailGroup("v1", stale).joiner())
        assert cgroups.remove_stale_groups() >= 1
        orphan.communicate(timeout=30)
        assert orphan.returncode == -signal.SIGKILL
        assert not any(os.path.exists(f) for f in stale.values())
        assert all(os.path.isdir(f) for f in kept.values())
    finally:
        sleeper.kill()
        sleeper.wait()
        cgroups.JailGroup("v1", kept).close()
        cgroups.JailGroup("v1", stale).close()


@pytest.mark.parametrize("bad", [dict(memory_bytes=0), dict(processes=0),
                                 dict(processes=True), dict(cpu_weight=0),
                                 dict(cpu_weight=10001), dict(cpu_quota=0.0)])
def test_bad_limits_are_refused(bad):
    with pytest.raises(cgroups.CgroupError):
        cgroups.GroupLimits(**{"memory_bytes": 64 * MiB, "processes": 8, **bad})


# ---------------------------------------------------------------- probing, on fake trees


def mountinfo(*mounts: tuple[str, str, str, str]) -> str:
    """mountinfo lines for (fstype, root, mount point, super options)."""
    return "".join(f"{30 + i} 1 0:{40 + i} {root} {point} rw,nosuid - {fstype} cgroup {opts}\n"
                   for i, (fstype, root, point, opts) in enumerate(mounts))


def write_proc(tmp_path: Path, mounts: str, own: str) -> tuple[str, str]:
    (tmp_path / "mountinfo").write_text(mounts)
    (tmp_path / "cgroup").write_text(own)
    return str(tmp_path / "mountinfo"), str(tmp_path / "cgroup")


def test_v1_probe_finds_our_folder_in_every_hierarchy(tmp_path):
    cg = tmp_path / "cg"
    for folder in ["memory/sub", "cpu,cpuacct/a/b", "pids", "freezer/f"]:
        (cg / folder).mkdir(parents=True)
    mounts = mountinfo(("tmpfs", "/", "/x", "rw"),
                       ("cgroup", "/docker/abc", f"{cg}/memory", "rw,memory"),
                       ("cgroup", "/", f"{cg}/cpu,cpuacct", "rw,cpu,cpuacct"),
                       ("cgroup", "/", f"{cg}/pids", "rw,pids"),
                       ("cgroup", "/", f"{cg}/freezer", "rw,freezer"),
                       ("cgroup", "/", f"{cg}/systemd", "rw,name=systemd"),
                       ("cgroup2", "/", f"{cg}/unified", "rw"))
    own = ("5:memory:/docker/abc/sub\n4:cpu,cpuacct:/a/b\n3:pids:/\n2:freezer:/f\n"
           "1:name=systemd:/\n0::/\n")
    layout = cgroup_layout.probe(*write_proc(tmp_path, mounts, own))
    assert layout.version == "v1"
    assert layout.bases == {"memory": f"{cg}/memory/sub", "cpu": f"{cg}/cpu,cpuacct/a/b",
                            "cpuacct": f"{cg}/cpu,cpuacct/a/b", "pids": f"{cg}/pids",
                            "freezer": f"{cg}/freezer/f"}
    group = cgroups.JailGroup("v1", {c: os.path.join(b, "j") for c, b in layout.bases.items()})
    assert len(group.join_paths) == 4  # cpu and cpuacct share one folder


def test_v1_without_a_hierarchy_says_which(tmp_path):
    cg = tmp_path / "cg"
    (cg / "memory").mkdir(parents=True)
    mounts = mountinfo(("cgroup", "/", f"{cg}/memory", "rw,memory"))
    with pytest.raises(cgroups.CgroupError, match="pids, cpu, cpuacct, freezer"):
        cgroup_layout.probe(*write_proc(tmp_path, mounts, "1:memory:/\n"))


def test_no_cgroups_at_all_says_so(tmp_path):
    with pytest.raises(cgroups.CgroupError, match="no cgroup hierarchy"):
        cgroup_layout.probe(*write_proc(tmp_path, mountinfo(("proc", "/", "/proc", "rw")), ""))


class FakeCgroupFS:
    """A cgroup v2 tree in a folder, with the kernel's rules that the module meets: a child's
    controllers are its parent's subtree_control; a controller's files exist only where it is
    enabled; no processes in a non-root cgroup whose children have controllers (either way
    round: EBUSY); a busy cgroup cannot be removed; cgroup.kill and cgroup.freeze act on the
    whole subtree. Processes are numbers; `me` is the one writing "0"."""

    FILES = {"memory": {"memory.max": "max", "memory.swap.max": "max", "memory.peak": "0",
                        "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"},
             "pids": {"pids.max": "max"}, "cpu": {"cpu.weight": "100", "cpu.max": "max 100000"}}

    def __init__(self, top: Path, controllers: str = "cpuset cpu io memory hugetlb pids",
                 *, kill_file: bool = True, peak_file: bool = True) -> None:
        self.top, self.me = top, os.getpid()
        self.kill_file, self.peak_file = kill_file, peak_file
        self.writes: list[tuple[str, str]] = []
        self.killed: list[int] = []
        top.mkdir()
        self._files(top, controllers)

    def _files(self, folder: Path, controllers: str) -> None:
        core = {"cgroup.controllers": controllers, "cgroup.subtree_control": "",
                "cgroup.procs": "", "cgroup.events": "populated 0\nfrozen 0\n",
                "cgroup.freeze": "0", "cpu.stat": "usage_usec 0\nuser_usec 0\nsystem_usec 0\n"}
        if self.kill_file:
            core["cgroup.kill"] = ""
        for controller in controllers.split():
            core.update(self.FILES.get(controller, {}))
        if not self.peak_file:
            core.pop("memory.peak", None)
        for name, text in core.items():
            (folder / name).write_text(text)

    def procs(self, folder: Path) -> list[int]:
        return [int(x) for x in (folder / "cgroup.procs").read_text().split()]

    def set_procs(self, folder: Path, pids: list[int]) -> None:
        (folder / "cgroup.procs").write_text("".join(f"{p}\n" for p in pids))

    def tree(self, folder: Path) -> list[Path]:
        return [folder, *(p for p in sorted(folder.rglob("*")) if p.is_dir())]

    def make(self, rel: str, *, procs: list[int] = (), enable: str = "") -> Path:
        """Set up a cgroup (its ancestors too, with the controllers passed down)."""
        folder = self.top
        for part in rel.strip("/").split("/"):
            passed = folder / "cgroup.subtree_control"
            if not passed.read_text().strip():
                passed.write_text((folder / "cgroup.controllers").read_text())
            folder = folder / part
            if not folder.is_dir():
                folder.mkdir()
                self._files(folder, passed.read_text())
        (folder / "cgroup.subtree_control").write_text(enable)
        self.set_procs(folder, list(procs))
        return folder

    # the module's file system hooks

    def mkdir(self, path: str) -> None:
        folder = Path(path)
        folder.mkdir()
        self._files(folder, (folder.parent / "cgroup.subtree_control").read_text())

    def rmdir(self, path: str) -> None:
        folder = Path(path)
        if not folder.exists():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if self.procs(folder) or any(p.is_dir() for p in folder.iterdir()):
            raise OSError(errno.EBUSY, "Device or resource busy", path)
        shutil.rmtree(folder)

    def write(self, path: str, text: str) -> None:
        file = Path(path)
        if not file.exists():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        folder, name = file.parent, file.name
        self.writes.append((f"{folder.relative_to(self.top)}/{name}", text))
        if name == "cgroup.procs":
            pid = self.me if text.strip() == "0" else int(text)
            if folder != self.top and (folder / "cgroup.subtree_control").read_text().strip():
                raise OSError(errno.EBUSY, "Device or resource busy", path)
            for other in self.tree(self.top):
                self.set_procs(other, [p for p in self.procs(other) if p != pid])
            self.set_procs(folder, [*self.procs(folder), pid])
        elif name == "cgroup.subtree_control":
            on = (folder / "cgroup.subtree_control").read_text().split()
            for token in text.split():
                if token[1:] not in (folder / "cgroup.controllers").read_text().split():
                    raise OSError(errno.ENOENT, "No such file or directory", path)
                if folder != self.top and self.procs(folder):
                    raise OSError(errno.EBUSY, "Device or resource busy", path)
                on = [c for c in on if c != token[1:]] + ([token[1:]] if token[0] == "+" else [])
            file.write_text(" ".join(on))
        elif name == "cgroup.kill":
            for other in self.tree(folder):
                self.killed += self.procs(other)
                self.set_procs(other, [])
        elif name == "cgroup.freeze":
            file.write_text(text)
            (folder / "cgroup.events").write_text(f"populated 1\nfrozen {text.strip()}\n")
        else:
            file.write_text(text)

    def sigkill(self, pid: int) -> None:
        frozen = [f for f in self.tree(self.top) if pid in self.procs(f)
                  and (f / "cgroup.freeze").read_text().strip() == "1"]
        assert frozen, f"pid {pid} killed while not frozen"
        self.killed.append(pid)
        for folder in frozen:
            self.set_procs(folder, [p for p in self.procs(folder) if p != pid])


@pytest.fixture
def fake_v2(tmp_path, monkeypatch):
    """A fake cgroupfs at tmp_path/cg, hooked in through cgroup_fs (its probe cache emptied)."""
    fs = FakeCgroupFS(tmp_path / "cg")
    for name in ("mkdir", "rmdir", "write", "sigkill"):
        monkeypatch.setattr(cgroup_fs, name, getattr(fs, name))
    monkeypatch.setattr(cgroup_fs, "probed", {})
    monkeypatch.setattr(cgroup_fs, "cleaned", set())
    monkeypatch.setattr(cgroup_fs, "v2_parents", set())
    monkeypatch.setattr(atexit, "register", lambda *a: None)
    return fs


def probe_v2(fs: FakeCgroupFS, tmp_path: Path, own: str, euid: int) -> cgroup_layout.Layout:
    files = write_proc(tmp_path, mountinfo(("cgroup2", "/", str(fs.top), "rw,nsdelegate")),
                       f"0::{own}\n")
    layout = cgroup_layout.probe(*files, euid=euid)
    cgroup_fs.probed["layout"] = layout  # what create() and remove_stale_groups() use
    return layout


def test_v2_as_root_makes_jails_under_the_top_with_every_limit(fake_v2, tmp_path):
    fs = fake_v2
    fs.make("/system.slice/grading.service", procs=[fs.me, 77])  # shared: not ours to move
    layout = probe_v2(fs, tmp_path, "/system.slice/grading.service", euid=0)
    assert layout.version == "v2" and layout.bases == {"": str(fs.top)}
    assert {"memory", "pids", "cpu"} <= set((fs.top / "cgroup.subtree_control").read_text().split())
    group = cgroups.JailGroup.create(cgroups.GroupLimits(200 * MiB, 20, cpu_quota=1.5))
    jail = Path(group.join_paths[0]).parent
    assert len(group.join_paths) == 1 and jail.parent == fs.top / f"dicejack-{os.getpid()}"
    assert jail.name.startswith("jail-")
    assert (jail.parent / "cgroup.subtree_control").read_text().split() == \
        ["memory", "pids", "cpu"]
    assert {name: (jail / name).read_text() for name in
            ("memory.max", "memory.swap.max", "pids.max", "cpu.weight", "cpu.max")} == \
        {"memory.max": str(200 * MiB), "memory.swap.max": "0", "pids.max": "20",
         "cpu.weight": "100", "cpu.max": "150000 100000"}
    group.joiner()()  # the preexec function: "0" (the writing process) into cgroup.procs
    assert (jail / "cgroup.procs").read_text() == "0"


def test_v2_delegated_moves_only_our_process_into_a_leaf(fake_v2, tmp_path):
    fs = fake_v2
    own = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope"
    fs.make(own, procs=[fs.me])
    layout = probe_v2(fs, tmp_path, own, euid=1000)
    base = fs.top / own.strip("/")
    assert layout.bases == {"": str(base)}
    assert fs.procs(base) == [] and fs.procs(base / "grader") == [fs.me]
    assert (base / "cgroup.subtree_control").read_text().split() == ["memory", "pids", "cpu"]
    group = cgroups.JailGroup.create(cgroups.GroupLimits(64 * MiB, 8, cpu_quota=None))
    jail = Path(group.join_paths[0]).parent
    assert jail.parent == base / f"dicejack-{os.getpid()}"
    assert (jail / "cpu.max").read_text() == "max 100000"
    group.close()
    assert not jail.exists()


def test_v2_delegated_refuses_when_others_share_our_cgroup(fake_v2, tmp_path):
    fs = fake_v2
    own = "/user.slice/user-1000.slice/session-3.scope"
    fs.make(own, procs=[fs.me, 4321])
    with pytest.raises(cgroups.CgroupError, match="other processes share.*systemd-run"):
        probe_v2(fs, tmp_path, own, euid=1000)
    base = fs.top / own.strip("/")
    assert sorted(fs.procs(base)) == sorted([fs.me, 4321])
    assert not (base / "grader").exists()


def test_v2_without_a_delegated_controller_says_which(fake_v2, tmp_path):
    fs = fake_v2
    fs.make("/user.slice", enable="memory pids")  # no cpu for its children
    fs.make("/user.slice/session-3.scope", procs=[fs.me])
    with pytest.raises(cgroups.CgroupError, match="cpu controller is not delegated"):
        probe_v2(fs, tmp_path, "/user.slice/session-3.scope", euid=1000)


def test_v2_kill_uses_cgroup_kill_and_close_removes_the_jail(fake_v2, tmp_path):
    fs = fake_v2
    probe_v2(fs, tmp_path, "/", euid=0)
    group = cgroups.JailGroup.create(cgroups.GroupLimits(64 * MiB, 8))
    jail = Path(group.join_paths[0]).parent
    fs.set_procs(jail, [901, 902])
    group.kill()
    assert fs.killed == [901, 902] and group.pids() == []
    assert (f"{jail.relative_to(fs.top)}/cgroup.kill", "1") in fs.writes
    group.close()
    assert not jail.exists() and jail.parent.exists()  # the parent goes when we exit


def test_v2_kill_without_cgroup_kill_freezes_kills_and_thaws(fake_v2, tmp_path):
    fs = fake_v2
    fs.kill_file = False
    probe_v2(fs, tmp_path, "/", euid=0)
    group = cgroups.JailGroup.create(cgroups.GroupLimits(64 * MiB, 8))
    jail = Path(group.join_paths[0]).parent
    fs.set_procs(jail, [901, 902])
    group.kill()  # FakeCgroupFS.sigkill asserts each kill hits a frozen process
    assert sorted(fs.killed) == [901, 902]
    freezes = [text for path, text in fs.writes if path.endswith("cgroup.freeze")]
    assert freezes == ["1", "0"] and (jail / "cgroup.freeze").read_text() == "0"


def test_v2_figures(fake_v2, tmp_path):
    fs = fake_v2
    probe_v2(fs, tmp_path, "/", euid=0)
    with cgroups.JailGroup.create(cgroups.GroupLimits(64 * MiB, 8)) as group:
        jail = Path(group.join_paths[0]).parent
        assert (group.cpu_seconds(), group.memory_peak(), group.hit_memory_cap()) == (0, 0, False)
        (jail / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
        (jail / "memory.peak").write_text(str(50 * MiB))
        (jail / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n")
        assert (group.cpu_seconds(), group.memory_peak(), group.hit_memory_cap()) == \
            (1.5, 50 * MiB, True)
    assert (group.cpu_seconds(), group.memory_peak(), group.hit_memory_cap()) == \
        (1.5, 50 * MiB, True)  # kept after close
    fs.peak_file = False
    with cgroups.JailGroup.create(cgroups.GroupLimits(64 * MiB, 8)) as group:
        assert group.memory_peak() is None  # a kernel before 5.19


def test_v2_stale_parents_of_gone_processes_are_removed(fake_v2, tmp_path):
    fs = fake_v2
    probe_v2(fs, tmp_path, "/", euid=0)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = fs.make(f"/dicejack-{gone.pid}/jail-3", procs=[555]).parent
    live = fs.make(f"/dicejack-{os.getppid()}/jail-0", procs=[666]).parent
    assert cgroups.remove_stale_groups() == 1
    assert fs.killed == [555] and not stale.exists() and fs.procs(live / "jail-0") == [666]
    # the first create of a process does the same
    stale = fs.make(f"/dicejack-{gone.pid}/jail-4", procs=[556]).parent
    cgroups.JailGroup.create(cgroups.GroupLimits(64 * MiB, 8)).close()
    assert not stale.exists() and fs.killed == [555, 556]
