"""runtime.tree against hostile folders and tar streams: links never followed (a link to
/proc/self/environ or to a planted secret brings nothing in), fifos never opened, setuid bits
dropped, caps enforced before the bytes are read, any depth removed, mode-000 folders removed,
and a failure leaving nothing half-written. Races are staged by making the listing lie (os.stat
reporting a fifo or link as a regular file), so that only the checks made after opening stand.
Tests that need an ordinary user run as ``nobody`` in a forked child when the suite runs as root
(root passes every permission check), else in-process."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import stat
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dicejack.runtime.tree import (
    WINDOW,
    TreeCaps,
    TreeError,
    TreeStats,
    copy_tree,
    extract_tar,
    remove_tree,
    tree_usage,
)

ROOT = os.geteuid() == 0
NOBODY = 65534
SECRET = b"planted-secret-7f3a9c"


# --- helpers --------------------------------------------------------------------------------

@pytest.fixture
def place() -> Iterator[Path]:
    """A scratch folder, on /dev/shm when it is there (removing a folder from a disk can cost a
    millisecond, and the deep trees here have thousands), reachable by ``nobody``."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="dicejack-tree-", dir=base))
    folder.chmod(0o755)
    yield folder
    remove_tree(folder)
    assert not os.path.lexists(folder)


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Turn a walk blocked on a fifo into a failure instead of a hung suite."""
    def alarm(signum, frame):
        raise TimeoutError("blocked: something opened a fifo")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(5)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def as_user(home: Path, work: Callable[[], object]) -> str:
    """Run `work` as an ordinary user: "ok", "TreeError: message" or "other: repr". As root,
    in a forked child that became ``nobody`` (and `home` is given to it); else in-process."""
    def outcome() -> str:
        try:
            work()
        except TreeError as e:
            return f"TreeError: {e}"
        except BaseException as e:  # reported to the parent
            return f"other: {e!r}"
        return "ok"

    if not ROOT:
        return outcome()
    os.chown(home, NOBODY, NOBODY)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.write(write, outcome().encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    os.waitpid(pid, 0)
    return said


def chain(top: Path, depth: int, name: str = "d", leaf: bytes | None = b"bottom") -> None:
    """Make `depth` folders `name` nested in `top` (by descriptors: the path may be longer than
    the system allows a path to be), with a file `leaf` at the bottom."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        if leaf is not None:
            out = os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(out, leaf)
            os.close(out)
    finally:
        os.close(fd)


def everything(folder: Path) -> bytes:
    """Every name and every file's bytes under `folder` (links not followed)."""
    out = []
    for parent, dirs, files in os.walk(folder):
        out += [n.encode("utf-8", "surrogateescape") for n in dirs + files]
        for name in files:
            path = os.path.join(parent, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                out.append(Path(path).read_bytes())
    return b"\0".join(out)


def listing(folder: Path) -> dict[str, tuple[str, int]]:
    """Relative path -> (kind, permission bits) of everything under `folder`."""
    found = {}
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(parent, name)
            st = os.lstat(path)
            kind = ("dir" if stat.S_ISDIR(st.st_mode) else "file" if stat.S_ISREG(st.st_mode)
                    else "other")
            found[os.path.relpath(path, folder)] = (kind, stat.S_IMODE(st.st_mode))
    return found


def make_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))


def make_device(path: Path) -> bool:
    """A character device like /dev/zero at `path`, when this user may make one."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except OSError:
        return False
    return True


@pytest.fixture
def hostile(place: Path) -> Path:
    """A student's folder holding links to the grader's secrets (its environment, a file, a
    folder), to /dev/zero, relative and dangling links, a fifo and a socket, beside real
    files."""
    outside = place / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    src = place / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "Main.java").write_text("class Main {}\n")
    (src / "pkg" / "util.py").write_bytes(b"x = 1\n")
    for at in (src, src / "pkg"):
        os.symlink("/proc/self/environ", at / "environ")
        os.symlink(outside / "secret.txt", at / "secret")
        os.symlink(outside, at / "secrets")
        os.symlink("/dev/zero", at / "zero")
        os.symlink("../../outside/secret.txt" if at != src else "../outside/secret.txt",
                   at / "relative")
        os.symlink("/nowhere/at/all", at / "dangling")
    os.mkfifo(src / "pipe")
    make_socket(src / "sock")
    return src


# --- TreeCaps -------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "9"])
def test_caps_are_whole_numbers_from_one(bad):
    for name in ("files", "bytes", "depth"):
        with pytest.raises(TreeError, match=f"cap {name} must be a whole number >= 1"):
            TreeCaps(**{name: bad})
    assert TreeCaps() == TreeCaps(files=20_000, bytes=256 << 20, depth=64)


# --- copy_tree ------------------------------------------------------------------------------

def test_copy_keeps_folders_files_and_bytes(place):
    src = place / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "empty").mkdir()
    (src / "a" / "b" / "data.bin").write_bytes(bytes(range(256)) * 5000)
    (src / "a" / "note.txt").write_text("hello\n")
    (src / "zero-length").write_bytes(b"")
    stats = copy_tree(src, place / "dest")
    assert stats == TreeStats(files=3, dirs=3, bytes=256 * 5000 + 6, skipped=0)
    assert listing(place / "dest") == listing(src) | {
        "a": ("dir", 0o755), "a/b": ("dir", 0o755), "empty": ("dir", 0o755)}
    for rel in ("a/b/data.bin", "a/note.txt", "zero-length"):
        assert (place / "dest" / rel).read_bytes() == (src / rel).read_bytes()
    assert (place / "dest").stat().st_mode & 0o7777 == 0o755


def test_copy_drops_setuid_setgid_sticky_whatever_the_umask(place):
    src = place / "src"
    (src / "d").mkdir(parents=True)
    modes = {"suid": 0o4755, "sgid": 0o2711, "both": 0o6644, "private": 0o600, "open": 0o777,
             "x-other": 0o601} | ({"none": 0o000} if ROOT else {})  # root reads a 000 file
    for name, mode in modes.items():
        (src / name).write_bytes(name.encode())
        os.chmod(src / name, mode)
    os.chmod(src / "d", 0o3777)
    old = os.umask(0o077)
    try:
        copy_tree(src, place / "dest")
    finally:
        os.umask(old)
    got = listing(place / "dest")
    assert got == {"suid": ("file", 0o755), "sgid": ("file", 0o755), "both": ("file", 0o644),
                   "private": ("file", 0o644), "open": ("file", 0o755),
                   "x-other": ("file", 0o755), "d": ("dir", 0o755)} | (
                       {"none": ("file", 0o644)} if ROOT else {})
    assert all(os.lstat(place / "dest" / n).st_uid == os.geteuid() for n in got)


def test_links_are_never_followed_and_the_secrets_stay_out(place, hostile, no_hang):
    # the secrets are there to be had through the links, were they followed
    environ = [v for v in (hostile / "environ").read_bytes().split(b"\0") if len(v) >= 6]
    assert (hostile / "secret").read_bytes() == SECRET
    stats = copy_tree(hostile, place / "dest")
    assert stats == TreeStats(files=2, dirs=1, bytes=20, skipped=14)
    assert sorted(listing(place / "dest")) == ["Main.java", "pkg", "pkg/util.py"]
    copied = everything(place / "dest")
    assert SECRET not in copied and not [v for v in environ if v in copied]


def test_a_link_given_as_the_folder_itself_is_refused(place, hostile):
    os.symlink(place / "outside", place / "link")
    with pytest.raises(TreeError, match="link, not a folder"):
        copy_tree(place / "link", place / "dest")
    assert not os.path.lexists(place / "dest")


def test_what_is_not_a_folder_or_a_fresh_destination_is_refused(place, hostile):
    with pytest.raises(TreeError, match="not a folder"):
        copy_tree(hostile / "Main.java", place / "dest")
    with pytest.raises(TreeError, match="not a folder"):
        copy_tree(hostile / "pipe", place / "dest")
    with pytest.raises(TreeError, match="no such file"):
        copy_tree(place / "missing", place / "dest")
    (place / "dest").mkdir()
    (place / "dest" / "keep").write_text("mine")
    with pytest.raises(TreeError, match="already exists"):
        copy_tree(hostile, place / "dest")
    assert (place / "dest" / "keep").read_text() == "mine"  # the caller's, left alone
    assert not os.path.lexists(place / "nowhere")
    with pytest.raises(TreeError, match="no such file"):
        copy_tree(hostile, place / "nowhere" / "dest")


def test_fifos_sockets_and_devices_are_skipped_without_blocking(place, no_hang):
    src = place / "src"
    (src / "sub").mkdir(parents=True)
    os.mkfifo(src / "pipe")
    os.mkfifo(src / "sub" / "pipe")
    make_socket(src / "sock")
    devices = make_device(src / "zero")
    stats = copy_tree(src, place / "dest")
    assert stats == TreeStats(files=0, dirs=1, bytes=0, skipped=3 + devices)
    assert listing(place / "dest") == {"sub": ("dir", 0o755)}


def lie_about(monkeypatch: pytest.MonkeyPatch, names: dict[str, Path]) -> None:
    """Make os.stat, relative to a folder, report each of `names` as what its Path is: the
    listing then sees a regular file or folder where something else stands, as if it had been
    swapped in after the listing (a race)."""
    real = os.stat

    def stat_that_lies(path, *args, **kwargs):
        if kwargs.get("dir_fd") is not None and path in names:
            return real(names[path])
        return real(path, *args, **kwargs)
    monkeypatch.setattr(os, "stat", stat_that_lies)


def test_what_is_swapped_in_after_the_listing_is_never_opened_blocking_or_followed(
        place, hostile, no_hang, monkeypatch):
    regular, folder = hostile / "Main.java", hostile / "pkg"
    lie_about(monkeypatch, {"pipe": regular, "secret": regular, "environ": regular,
                            "zero": regular, "secrets": folder})
    stats = copy_tree(hostile, place / "dest")
    monkeypatch.undo()
    assert stats.skipped == 14 and stats.files == 2
    assert sorted(listing(place / "dest")) == ["Main.java", "pkg", "pkg/util.py"]
    assert SECRET not in everything(place / "dest")


def test_a_file_over_the_byte_cap_is_refused_before_it_is_read(place, monkeypatch):
    src = place / "src"
    src.mkdir()
    (src / "a.txt").write_bytes(b"x" * 100)
    with open(src / "huge", "wb") as f:  # 1 GiB, sparse: nothing on the disk
        f.truncate(1 << 30)
    real_read, read = os.read, []

    def counting_read(fd, n):
        data = real_read(fd, n)
        read.append(len(data))
        return data
    monkeypatch.setattr(os, "read", counting_read)
    with pytest.raises(TreeError, match=r"more than 256 MiB of files \(reached at huge\)"):
        copy_tree(src, place / "dest")
    monkeypatch.undo()
    assert sum(read) <= 256 << 20 and not os.path.lexists(place / "dest")


def test_the_byte_cap_counts_every_file_and_is_met_exactly(place):
    src = place / "src"
    src.mkdir()
    (src / "a").write_bytes(b"1" * 6)
    (src / "b").write_bytes(b"2" * 4)
    assert copy_tree(src, place / "ok", TreeCaps(bytes=10)).bytes == 10
    with pytest.raises(TreeError, match=r"more than 9 bytes of files \(reached at b\)"):
        copy_tree(src, place / "over", TreeCaps(bytes=9))
    assert not os.path.lexists(place / "over")


def test_the_entry_cap_counts_every_name(place, hostile):
    src = place / "many"
    src.mkdir()
    for i in range(5):
        (src / f"f{i}").write_text("")
    assert copy_tree(src, place / "ok", TreeCaps(files=5)).files == 5
    with pytest.raises(TreeError, match="the folder holds more than 4 files and folders"):
        copy_tree(src, place / "over", TreeCaps(files=4))
    with pytest.raises(TreeError, match="more than 15 files and folders"):  # 17 names, 14 links
        copy_tree(hostile, place / "links", TreeCaps(files=15))
    assert not os.path.lexists(place / "over") and not os.path.lexists(place / "links")


def test_depth_is_capped_and_a_deep_tree_within_the_cap_copies(place):
    chain(place / "deep100", 100)
    with pytest.raises(TreeError, match=r"the folder tree is deeper than 64 levels \(at d/d/"):
        copy_tree(place / "deep100", place / "dest")
    assert not os.path.lexists(place / "dest")
    chain(place / "deep50", 50)
    stats = copy_tree(place / "deep50", place / "dest")
    assert stats == TreeStats(files=1, dirs=50, bytes=6, skipped=0)
    assert tree_usage(place / "dest") == (1, 6)
    chain(place / "deep4", 4)
    assert copy_tree(place / "deep4", place / "four", TreeCaps(depth=4)).dirs == 4
    with pytest.raises(TreeError, match=r"deeper than 3 levels \(at d/d/d/d\)"):
        copy_tree(place / "deep4", place / "three", TreeCaps(depth=3))


def test_a_tree_deeper_than_the_open_folders_kept_and_longer_than_a_path_copies(place):
    deep = 3 * WINDOW + 5
    chain(place / "deep", deep, name="n" * 200)  # a path of 600 kB: no path call could reach it
    stats = copy_tree(place / "deep", place / "dest", TreeCaps(depth=deep))
    assert stats == TreeStats(files=1, dirs=deep, bytes=6, skipped=0)
    assert tree_usage(place / "dest") == (1, 6)


def test_skip_dirs_leaves_those_folders_out_at_any_level(place):
    src = place / "src"
    for rel in ("__pycache__", "pkg/__pycache__", "pkg/.git/objects", "keep"):
        (src / rel).mkdir(parents=True)
    (src / "pkg" / "__pycache__" / "m.pyc").write_bytes(b"pyc")
    (src / "pkg" / ".git" / "objects" / "o").write_bytes(b"obj")
    (src / "keep" / ".git").write_text("gitdir: elsewhere")  # a file by that name stays
    stats = copy_tree(src, place / "dest", skip_dirs=frozenset({"__pycache__", ".git"}))
    assert sorted(listing(place / "dest")) == ["keep", "keep/.git", "pkg"]
    assert stats == TreeStats(files=1, dirs=2, bytes=17, skipped=0)


def test_a_destination_inside_the_source_is_not_copied_into_itself(place):
    src = place / "src"
    (src / "a").mkdir(parents=True)
    (src / "a" / "f").write_text("f")
    stats = copy_tree(src, src / "copy")
    assert sorted(listing(src / "copy")) == ["a", "a/f"] and stats.files == 1


def test_names_in_messages_are_printable_and_short(place):
    src = place / "src"
    src.mkdir()
    evil = "evil\n\x1b[31mred\u202etxt.exe"
    (src / evil).write_bytes(b"12345")
    with pytest.raises(TreeError) as caught:
        copy_tree(src, place / "a", TreeCaps(bytes=4))
    message = str(caught.value)
    assert message.isprintable() and "evil\\n\\x1b[31mred\\u202etxt.exe" in message
    os.unlink(src / evil)
    raw = os.fsdecode(b"bad\xff\\name")
    (src / raw).write_bytes(b"12345")
    with pytest.raises(TreeError, match=r"reached at bad\\xff\\\\name\)"):
        copy_tree(src, place / "b", TreeCaps(bytes=4))
    chain(place / "long", 60, name="x" * 100)
    with pytest.raises(TreeError) as caught:
        copy_tree(place / "long", place / "c", TreeCaps(depth=59))
    message = str(caught.value)
    assert len(message) < 220 and "…" in message and message.endswith("xxx)")


def test_an_unreadable_file_or_folder_is_named(place):
    home = place / "home"
    home.mkdir()

    def copy_with(locked: str) -> None:
        src = home / f"src-{locked}"
        (src / "sub" / "locked").mkdir(parents=True)
        (src / "sub" / "secret.txt").write_text("mine")
        (src / "sub" / "ok.txt").write_text("fine")
        os.chmod(src / "sub" / locked, 0o000)
        try:
            copy_tree(src, home / f"dest-{locked}")
        finally:
            assert not os.path.lexists(home / f"dest-{locked}")

    assert as_user(home, lambda: copy_with("secret.txt")) == (
        "TreeError: cannot read sub/secret.txt: permission denied")
    assert as_user(home, lambda: copy_with("locked")) == (
        "TreeError: cannot read sub/locked: permission denied")


# --- remove_tree ----------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [1500, 3000])
def test_remove_a_tree_of_any_depth_and_path_length(place, depth):
    chain(place / "deep", depth, name="d" * 3)  # paths of 6 to 12 kB, past PATH_MAX
    remove_tree(place / "deep")
    assert not os.path.lexists(place / "deep")


def test_remove_what_a_program_can_leave(place, no_hang):
    outside = place / "outside"
    outside.mkdir()
    (outside / "precious").write_bytes(SECRET)
    top = place / "top"
    for rel in ("a/b/c", "wide", "locked/inner", "readonly", "nox"):
        (top / rel).mkdir(parents=True)
    for i in range(500):
        (top / "wide" / f"f{i}").write_text("")
    (top / "locked" / "inner" / "f").write_text("x")
    (top / "readonly" / "f").write_text("x")
    (top / "nox" / "f").write_text("x")
    for at in (top, top / "a" / "b" / "c"):
        os.mkfifo(at / "pipe")
        os.symlink(outside, at / "to-outside")
        os.symlink(outside / "precious", at / "to-precious")
        os.symlink("/dev/zero", at / "zero")
        os.symlink("dangling", at / "dangling")
    make_socket(top / "sock")
    make_device(top / "device")
    os.chmod(top / "locked" / "inner", 0o000)
    os.chmod(top / "locked", 0o000)
    os.chmod(top / "readonly", 0o500)
    os.chmod(top / "nox", 0o600)
    remove_tree(top)
    assert not os.path.lexists(top)
    assert (outside / "precious").read_bytes() == SECRET and os.listdir(outside) == ["precious"]


def test_remove_a_link_a_file_a_fifo_or_nothing(place, no_hang):
    outside = place / "outside"
    outside.mkdir()
    (outside / "precious").write_bytes(SECRET)
    os.symlink(outside, place / "link")
    remove_tree(place / "link")
    assert not os.path.lexists(place / "link") and (outside / "precious").exists()
    (place / "file").write_text("x")
    os.mkfifo(place / "pipe")
    for name in ("file", "pipe", "missing", "missing/below"):
        remove_tree(place / name)
        assert not os.path.lexists(place / name)
    with pytest.raises(TreeError, match="name the folder by its own name"):
        remove_tree(place / "outside" / "..")
    assert (outside / "precious").exists()


def test_remove_mode_000_folders_as_an_ordinary_user(place):
    home = place / "home"
    home.mkdir()

    def make_and_remove() -> None:
        top = home / "top"
        chain(top, 80)  # deeper than the open folders kept: some are reopened on the way up
        for rel in ("a/b", "c"):
            (top / rel).mkdir(parents=True)
            (top / rel / "f").write_text("x")
        os.chmod(top / "a" / "b", 0o000)
        os.chmod(top / "a", 0o000)
        os.chmod(top / "c", 0o500)
        fd = os.open(top, os.O_RDONLY)
        for _ in range(79):  # lock the bottom of the chain from inside
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = below
        os.chmod("d", 0o000, dir_fd=fd)
        os.fchmod(fd, 0o500)
        os.close(fd)
        os.chmod(top, 0o000)
        remove_tree(top)
        assert not os.path.lexists(top)

    assert as_user(home, make_and_remove) == "ok"


@pytest.mark.skipif(not ROOT, reason="needs a folder of another user: run the suite as root")
def test_what_cannot_be_removed_is_said_once_at_the_end(place):
    home = place / "home"
    top = home / "top"
    (top / "theirs").mkdir(parents=True)
    (top / "theirs" / "x").write_text("root's")
    (top / "theirs" / "y").write_text("root's")
    for rel in ("a", "z"):
        (top / rel).mkdir()
        (top / rel / "f").write_text("x")
    os.chown(top, NOBODY, NOBODY)
    for rel in ("a", "a/f", "z", "z/f"):
        os.chown(top / rel, NOBODY, NOBODY)
    said = as_user(home, lambda: remove_tree(top))
    assert said in {f"TreeError: cannot remove theirs/{n}: permission denied (and 1 more)"
                    for n in "xy"}
    assert sorted(os.listdir(top)) == ["theirs"]
    assert sorted(os.listdir(top / "theirs")) == ["x", "y"]


# --- tree_usage -----------------------------------------------------------------------------

def test_usage_counts_entries_and_regular_bytes_without_following(place, hostile):
    with open(place / "outside" / "big", "wb") as f:
        f.truncate(1 << 30)
    os.symlink(place / "outside" / "big", hostile / "big")
    # 2 regular files (20 bytes), 13 links, a fifo and a socket; the folder pkg is not a file
    assert tree_usage(hostile) == (17, 20)
    assert tree_usage(place / "outside") == (2, len(SECRET) + (1 << 30))
    assert tree_usage(hostile / "Main.java") == (1, 14)
    assert tree_usage(hostile / "big") == (1, 0)
    assert tree_usage(place / "missing") == (0, 0)
    chain(place / "deep", 3000)
    assert tree_usage(place / "deep") == (1, 6)


# --- extract_tar ----------------------------------------------------------------------------

def member(name: str, data: bytes = b"", mode: int = 0o644, kind: bytes = tarfile.REGTYPE,
           link: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    if kind in (tarfile.CHRTYPE, tarfile.BLKTYPE):
        info.devmajor, info.devminor = 1, 5
    return info, data


def folder(name: str, mode: int = 0o755) -> tuple[tarfile.TarInfo, bytes]:
    return member(name, mode=mode, kind=tarfile.DIRTYPE)


def tar_of(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buf.getvalue()


@pytest.mark.skipif(shutil.which("tar") is None, reason="no tar command")
def test_a_stream_from_tar_unpacks_as_the_folder_was(place):
    src = place / "src"
    (src / "pkg" / "deep" / "er").mkdir(parents=True)
    (src / "empty").mkdir()
    (src / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(src / "run.sh", 0o4755)
    (src / "pkg" / "deep" / "er" / "data").write_bytes(os.urandom(70_000))
    (src / "pkg" / "a b\tc").write_text("odd name")
    (src / "pkg" / ("long" * 50)).write_text("a GNU long name")
    data = subprocess.run(["tar", "-cf", "-", "."], cwd=src, check=True,
                          capture_output=True).stdout
    stats = extract_tar(data, place / "dest")
    assert stats == TreeStats(files=4, dirs=4, bytes=70_000 + 10 + 8 + 15, skipped=0)
    assert listing(place / "dest") == listing(src) | {"run.sh": ("file", 0o755)}
    for rel in ("run.sh", "pkg/deep/er/data", "pkg/a b\tc", "pkg/" + "long" * 50):
        assert (place / "dest" / rel).read_bytes() == (src / rel).read_bytes()


@pytest.mark.skipif(shutil.which("tar") is None, reason="no tar command")
def test_a_sparse_tar_bomb_is_refused_before_it_is_written(place):
    src = place / "src"
    src.mkdir()
    with open(src / "bomb", "wb") as f:
        f.truncate(1 << 30)
    data = subprocess.run(["tar", "-S", "-cf", "-", "."], cwd=src, check=True,
                          capture_output=True).stdout
    assert len(data) < 64 << 10  # a few kB that unpack to 1 GiB
    with pytest.raises(TreeError, match=r"more than 256 MiB of files \(reached at bomb\)"):
        extract_tar(data, place / "dest")
    assert not os.path.lexists(place / "dest")


def test_tar_links_devices_and_fifos_are_skipped(place):
    data = tar_of(member("real", b"data"),
                  member("sym", kind=tarfile.SYMTYPE, link="/proc/self/environ"),
                  member("hard", kind=tarfile.LNKTYPE, link="real"),
                  member("hard-out", kind=tarfile.LNKTYPE, link="/etc/passwd"),
                  member("chr", kind=tarfile.CHRTYPE), member("blk", kind=tarfile.BLKTYPE),
                  member("fifo", kind=tarfile.FIFOTYPE))
    assert extract_tar(data, place / "dest") == TreeStats(files=1, dirs=0, bytes=4, skipped=6)
    assert listing(place / "dest") == {"real": ("file", 0o644)}


@pytest.mark.parametrize("name", ["../x", "/etc/x", "a/../../x", "a/../b", "a//b", "a/./b",
                                  "../../../../../../tmp/x", "a/"])
def test_unsafe_member_names_are_refused(place, name):
    data = tar_of(member("first", b"1"), member(name, b"escape"))
    (place / "in").mkdir()
    with pytest.raises(TreeError, match="the tar holds an unsafe name"):
        extract_tar(data, place / "in" / "dest")
    assert os.listdir(place / "in") == [] and not os.path.lexists(place / "x")


def test_unsafe_names_are_shown_printable(place):
    with pytest.raises(TreeError) as caught:
        extract_tar(tar_of(member("../\x1b]0;pwned\x07")), place / "dest")
    assert str(caught.value) == "the tar holds an unsafe name: ../\\x1b]0;pwned\\x07"


def test_tar_modes_are_masked(place):
    data = tar_of(member("suid", b"s", 0o4755), member("sgid", b"g", 0o2600),
                  member("open", b"o", 0o777), folder("d", 0o3777), member("d/f", b"f", 0o000))
    extract_tar(data, place / "dest")
    assert listing(place / "dest") == {"suid": ("file", 0o755), "sgid": ("file", 0o644),
                                       "open": ("file", 0o755), "d": ("dir", 0o755),
                                       "d/f": ("file", 0o644)}


def test_a_file_under_a_symlinked_folder_lands_inside(place):
    outside = place / "outside"
    outside.mkdir()
    data = tar_of(member("d", kind=tarfile.SYMTYPE, link=str(outside)),
                  member("d/x", b"planted"), member("up", kind=tarfile.SYMTYPE, link=".."),
                  member("up/y", b"planted"))
    assert extract_tar(data, place / "dest").skipped == 2
    assert os.listdir(outside) == [] and sorted(os.listdir(place)) == ["dest", "outside"]
    assert listing(place / "dest") == {"d": ("dir", 0o755), "d/x": ("file", 0o644),
                                       "up": ("dir", 0o755), "up/y": ("file", 0o644)}


def test_a_member_passing_through_a_file_is_refused(place):
    with pytest.raises(TreeError, match="the tar's a/b passes through a, which is not a folder"):
        extract_tar(tar_of(member("a", b"1"), member("a/b", b"2")), place / "one")
    with pytest.raises(TreeError, match="the tar holds a as a file and as a folder"):
        extract_tar(tar_of(member("a", b"1"), folder("a")), place / "two")
    with pytest.raises(TreeError, match="the tar holds a as a folder and as a file"):
        extract_tar(tar_of(folder("a"), member("a", b"1")), place / "three")
    assert sorted(os.listdir(place)) == []


def test_members_in_any_order_and_a_later_one_wins(place):
    data = tar_of(member("p/q/f", b"first", 0o700), folder("p/q"), folder("p"),
                  member("./p/q/f", b"second"), folder("./"))
    stats = extract_tar(data, place / "dest")
    assert (place / "dest" / "p" / "q" / "f").read_bytes() == b"second"
    assert listing(place / "dest") == {"p": ("dir", 0o755), "p/q": ("dir", 0o755),
                                       "p/q/f": ("file", 0o644)}
    assert stats == TreeStats(files=2, dirs=2, bytes=11, skipped=0)


def test_a_corrupt_stream_is_refused(place):
    good = tar_of(member("a", b"x" * 1000), member("b", b"y" * 10))
    bad_sum = bytearray(good)
    bad_sum[1536 + 148] ^= 0x1F  # the second header's checksum
    for i, data in enumerate([b"", b"not a tar at all" * 64, good[:1100], good[:1536],
                              good[:2048 + 512], bytes(bad_sum)]):
        with pytest.raises(TreeError, match="the tar stream is corrupt"):
            extract_tar(data, place / f"dest{i}")
        assert not os.path.lexists(place / f"dest{i}")
    assert extract_tar(good, place / "dest").files == 2


def test_tar_caps_are_enforced(place):
    five = tar_of(*(member(f"f{i}") for i in range(5)))
    assert extract_tar(five, place / "ok", TreeCaps(files=5)).files == 5
    with pytest.raises(TreeError, match="the tar holds more than 4 files and folders"):
        extract_tar(five, place / "many", TreeCaps(files=4))
    with pytest.raises(TreeError, match="more than 3 files and folders"):  # folders made count
        extract_tar(tar_of(member("a/b/c/f")), place / "folders", TreeCaps(files=3))
    with pytest.raises(TreeError, match=r"more than 10 bytes of files \(reached at b\)"):
        extract_tar(tar_of(member("a", b"123456"), member("b", b"12345")), place / "big",
                    TreeCaps(bytes=10))
    huge, _ = member("huge")
    huge.size = 1 << 40  # a header claiming a terabyte, with no data behind it
    with pytest.raises(TreeError, match="more than 256 MiB of files"):
        extract_tar(huge.tobuf(tarfile.GNU_FORMAT) + bytes(1024), place / "huge")
    deep = tar_of(folder("a/b/c/d"), member("a/b/c/d/f", b"f"))
    assert extract_tar(deep, place / "four", TreeCaps(depth=4)).files == 1
    with pytest.raises(TreeError, match=r"the tar's folder tree is deeper than 3 levels "
                                        r"\(at a/b/c/d\)"):
        extract_tar(deep, place / "three", TreeCaps(depth=3))
    assert sorted(os.listdir(place)) == ["four", "ok"]


def test_extract_refuses_an_existing_destination(place):
    (place / "dest").mkdir()
    with pytest.raises(TreeError, match="already exists"):
        extract_tar(tar_of(member("a")), place / "dest")
    assert os.listdir(place / "dest") == []


def test_pour_writes_up_to_its_room_and_never_reads_past_it(tmp_path):
    from dicejack.runtime.tree.copying import pour

    class Source:
        def __init__(self, data: bytes) -> None:
            self.data, self.asked = data, 0

        def read(self, n: int) -> bytes:
            self.asked += n
            chunk, self.data = self.data[:n], self.data[n:]
            return chunk

    def fill(data: bytes, room: int) -> tuple[int, bytes, Source]:
        src = Source(data)
        fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            written = pour(src.read, fd, room, lambda: TreeError("too much"))
        finally:
            os.close(fd)
        return written, (tmp_path / "out").read_bytes(), src

    assert fill(b"x" * 10, 10)[:2] == (10, b"x" * 10)  # exactly the room: whole
    assert fill(b"", 10)[:2] == (0, b"")
    with pytest.raises(TreeError, match="too much"):
        fill(b"x" * 11, 10)  # one byte over: refused
    src = Source(b"x" * 10_000)
    fd = os.open(tmp_path / "big", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with pytest.raises(TreeError):
            pour(src.read, fd, 10, lambda: TreeError("too much"))
    finally:
        os.close(fd)
    assert src.asked == 11  # never asked for more than the room and one byte
