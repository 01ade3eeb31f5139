"""Copying, extracting and removing folders whose contents are hostile (what a student's build or
program wrote, a student's submitted folder), never following a link and never recursing.

Its one job is that the grader, outside the jail, can copy such a folder (:func:`copy_tree`),
unpack a tar stream of one (:func:`extract_tar`), remove one (:func:`remove_tree`) and measure one
(:func:`tree_usage`) without being turned against itself:

- only directories and regular files are copied or unpacked; a symbolic link, fifo, socket or
  device is skipped (counted), never opened or followed, at any level, so that a link to
  /proc/self/environ or /dev/zero cannot bring the grader's secrets in or fill its disk;
- every step is a system call relative to an open directory (``dir_fd``, ``O_NOFOLLOW``,
  ``O_DIRECTORY``; files opened ``O_NONBLOCK`` and checked by ``fstat`` after opening), so that a
  link or fifo swapped in while the walk runs is never followed and never blocks, and any depth and
  any path length work;
- the walk is an explicit stack holding at most :data:`WINDOW` open directories (deeper ones are
  opened again by name, one ``O_NOFOLLOW`` step at a time, from the nearest one still open), so a
  3,000-deep tree neither overflows Python's stack nor runs out of descriptors;
- what is written is the caller's: files 0o755 when the source had any execute bit, else 0o644,
  directories 0o755, never setuid, setgid or sticky, whatever the umask;
- a copy or unpacking is capped (:class:`TreeCaps`: entries, bytes, depth), checked while it
  runs: a file is never read past the byte cap;
- every failure is a :class:`TreeError` with one human-readable line (it becomes a student's row
  reason), naming the entry by its path inside the tree with control and other unprintable
  characters escaped; a copy or unpacking that fails removes what it had written.

The path handed to these functions is the caller's and is trusted up to its last component (the
parents are resolved as usual); from the last component down nothing is followed.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path

from dicejack.game import DicejackError

__all__ = ["TreeError", "TreeCaps", "TreeStats", "copy_tree", "extract_tar", "remove_tree",
           "tree_usage"]

#: Open directories a walk holds at most (besides its top): deeper ones are reopened by name.
WINDOW = 64
#: Bytes read or written at a time.
_CHUNK = 1 << 20
#: Times a directory being removed is listed again before what appeared in it meanwhile is
#: reported instead (something still writing there).
_PASSES = 4
#: Characters of a name shown in a message at most (the middle is left out).
_SHOWN = 120

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


class TreeError(DicejackError):
    """A folder could not be copied, unpacked or removed; the message is one readable line."""


@dataclass(frozen=True)
class TreeCaps:
    """Caps on a copy or unpacking. files: entries at most (every name counts: files, folders,
    and what is skipped); bytes: file content written at most; depth: folders nested inside the
    top one at most (a folder directly in the top is at depth 1)."""

    files: int = 20_000
    bytes: int = 256 << 20
    depth: int = 64

    def __post_init__(self) -> None:
        for name in ("files", "bytes", "depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TreeError(f"cap {name} must be a whole number >= 1, got {value!r}")


@dataclass(frozen=True)
class TreeStats:
    """What a copy or unpacking wrote: regular files, folders (below the top one), bytes of file
    content, and entries skipped (links, fifos, sockets, devices)."""

    files: int = 0
    dirs: int = 0
    bytes: int = 0
    skipped: int = 0


# --- messages -------------------------------------------------------------------------------

def _escape(text: str) -> list[str]:
    """`text` one printable piece a character: backslash doubled, an undecodable byte (a
    surrogate escape) as \\xNN, any other unprintable character as repr() shows it."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])
    return out


def _show(name: str | os.PathLike[str]) -> str:
    """A name from the tree (or a path) made printable and short for a message."""
    pieces = _escape(os.fspath(name))
    if sum(map(len, pieces)) <= _SHOWN:
        return "".join(pieces)
    head: list[str] = []
    tail: list[str] = []
    size = 0
    while size + len(pieces[len(head)]) <= _SHOWN // 2:
        size += len(pieces[len(head)])
        head.append(pieces[len(head)])
    while size + len(pieces[-1 - len(tail)]) <= _SHOWN:
        size += len(pieces[-1 - len(tail)])
        tail.append(pieces[-1 - len(tail)])
    return "".join(head) + "…" + "".join(reversed(tail))


def _rel(parts: list[str], name: str | None = None) -> str:
    """The path inside the tree of `parts` (and `name` below them), shown."""
    return _show("/".join([*parts, name] if name is not None else parts) or ".")


def _reason(err: OSError) -> str:
    text = err.strerror or str(err)
    return text[:1].lower() + text[1:]


def _size(n: int) -> str:
    return f"{n >> 20:,} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n:,} bytes"


def _too_many(what: str, caps: TreeCaps) -> TreeError:
    return TreeError(f"{what} holds more than {caps.files:,} files and folders")


def _too_big(what: str, caps: TreeCaps, where: str) -> TreeError:
    return TreeError(f"{what} holds more than {_size(caps.bytes)} of files (reached at {where})")


def _too_deep(what: str, caps: TreeCaps, where: str) -> TreeError:
    return TreeError(f"{what} is deeper than {caps.depth} levels (at {where})")


# --- the walk's open directories ------------------------------------------------------------

def _ident(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


class _Path:
    """The directories from a walk's top down to where it is: their names, and open descriptors
    for the top and the deepest :data:`WINDOW` of the others, so that any depth needs a bounded
    number of descriptors. A closed one is opened again when needed: from the one below it as
    "..", else by name one ``O_NOFOLLOW`` step at a time from the nearest one above still open;
    either way it must be the very directory met on the way down (device and inode), else
    OSError ESTALE. So the walk never steps outside the tree, and climbing back up a deep tree
    costs one open a level."""

    def __init__(self, fd: int) -> None:
        self.names: list[str] = []
        self._fds: list[int | None] = [fd]
        self._ids = [_ident(fd)]

    def __len__(self) -> int:
        return len(self.names)

    def enter(self, name: str, fd: int) -> None:
        """Go down into `name`, already opened as `fd` (the walk owns it from now on)."""
        self.names.append(name)
        self._fds.append(fd)
        try:
            self._ids.append(_ident(fd))
        except OSError:
            self.leave()
            raise
        old = len(self._fds) - 1 - WINDOW
        if old >= 1 and self._fds[old] is not None:
            os.close(self._fds[old])  # type: ignore[arg-type]
            self._fds[old] = None

    def leave(self) -> None:
        """Go back up one level, closing the deepest directory (the one above is opened as its
        ".." first if it was closed)."""
        fd = self._fds.pop()
        self.names.pop()
        if len(self._ids) > len(self._fds):
            self._ids.pop()
        if fd is not None:
            if self._fds[-1] is None:
                self._fds[-1] = self._up(fd, len(self._fds) - 1)
            os.close(fd)

    def _up(self, below: int, level: int) -> int | None:
        """Level `level` opened as ".." of `below` (the level under it), or None when that is
        not the directory it was (or cannot be opened)."""
        try:
            fd = os.open("..", _DIR, dir_fd=below)
        except OSError:
            return None
        try:
            if _ident(fd) == self._ids[level]:
                return fd
        except OSError:
            pass
        os.close(fd)
        return None

    def at(self, level: int) -> int:
        """The descriptor of the directory `level` steps below the top (0: the top)."""
        fd = self._fds[level]
        if fd is not None:
            return fd
        below = self._fds[level + 1] if level + 1 < len(self._fds) else None
        if below is not None:
            fd = self._up(below, level)
            if fd is not None:
                self._fds[level] = fd
                return fd
        have = level - 1
        while self._fds[have] is None:
            have -= 1
        for i in range(have + 1, level + 1):
            parent = self._fds[i - 1]
            assert parent is not None
            fd = os.open(self.names[i - 1], _DIR, dir_fd=parent)
            if _ident(fd) != self._ids[i]:
                os.close(fd)
                raise OSError(errno.ESTALE, "it changed while being read")
            self._fds[i] = fd
            if 1 <= i - 1 <= len(self._fds) - 1 - WINDOW:
                os.close(parent)
                self._fds[i - 1] = None
        assert fd is not None
        return fd

    def fd(self) -> int:
        """The descriptor of the directory the walk is in."""
        return self.at(len(self.names))

    def close(self) -> None:
        """Close every descriptor still open, the top's included."""
        for fd in self._fds:
            if fd is not None:
                os.close(fd)
        self._fds = []
        self.names = []
        self._ids = []


def _listing(fd: int, room: int | None = None) -> list[str]:
    """The names in directory `fd`, sorted; with `room`, at most room + 1 of them are read."""
    names: list[str] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            names.append(entry.name)
            if room is not None and len(names) > room:
                break
    names.sort()
    return names


def _new_top(dest: Path) -> int:
    """Make the folder `dest` (which must not exist), mode 0o755, and open it."""
    try:
        os.mkdir(dest, 0o755)
        fd = os.open(dest, _DIR)
    except FileExistsError:
        raise TreeError(f"cannot create {_show(dest)}: it already exists") from None
    except OSError as e:
        raise TreeError(f"cannot create {_show(dest)}: {_reason(e)}") from None
    try:
        os.fchmod(fd, 0o755)
    except OSError as e:
        os.close(fd)
        raise TreeError(f"cannot create {_show(dest)}: {_reason(e)}") from None
    return fd


def _new_dir(parent: int, name: str) -> tuple[int, bool]:
    """Open the folder `name` in `parent`, making it (mode 0o755) when missing; and whether it
    was made. OSError when `name` is something else (ENOTDIR, ELOOP)."""
    made = True
    try:
        os.mkdir(name, 0o755, dir_fd=parent)
    except FileExistsError:
        made = False
    fd = os.open(name, _DIR, dir_fd=parent)
    if made:
        try:
            os.fchmod(fd, 0o755)
        except OSError:
            os.close(fd)
            raise
    return fd, made


def _file_mode(mode: int) -> int:
    return 0o755 if mode & 0o111 else 0o644


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _cleanup(dest: Path) -> None:
    """Remove what a failed copy or unpacking wrote (quietly: the first error is the news)."""
    try:
        remove_tree(dest)
    except TreeError:
        pass


# --- copy -----------------------------------------------------------------------------------

class _Copy:
    """One copy under way: the caps, the counts, and the source and destination walks."""

    def __init__(self, src: _Path, dest: _Path, caps: TreeCaps, skip_dirs: frozenset[str]):
        self.src, self.dest, self.caps, self.skip_dirs = src, dest, caps, skip_dirs
        self.top = _ident(dest.fd())
        self.entries = self.files = self.dirs = self.bytes = self.skipped = 0

    def listing(self, fd: int) -> list[str]:
        """The names in `fd`, counted against the cap on entries."""
        room = self.caps.files - self.entries
        names = _listing(fd, room)
        self.entries += len(names)
        if self.entries > self.caps.files:
            raise _too_many("the folder", self.caps)
        return names

    def run(self) -> TreeStats:
        pending = [list(reversed(self.listing(self.src.fd())))]
        while pending:
            if not pending[-1]:
                pending.pop()
                if pending:
                    self.src.leave()
                    self.dest.leave()
                continue
            names = self.one(pending[-1].pop())
            if names is not None:
                pending.append(list(reversed(names)))
        return TreeStats(self.files, self.dirs, self.bytes, self.skipped)

    def one(self, name: str) -> list[str] | None:
        """Copy the entry `name` of the current folder; a folder's names when it was entered."""
        parts = self.src.names
        try:
            sfd = self.src.fd()
        except OSError as e:
            raise TreeError(f"cannot read {_rel(parts)}: {_reason(e)}") from None
        try:
            st = os.stat(name, dir_fd=sfd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise TreeError(f"cannot read {_rel(parts, name)}: {_reason(e)}") from None
        if stat.S_ISDIR(st.st_mode):
            return self.folder(sfd, name)
        if stat.S_ISREG(st.st_mode):
            self.file(sfd, name)
        else:
            self.skipped += 1
        return None

    def folder(self, sfd: int, name: str) -> list[str] | None:
        parts = self.src.names
        if name in self.skip_dirs:
            return None
        if len(parts) + 1 > self.caps.depth:
            raise _too_deep("the folder tree", self.caps, _rel(parts, name))
        try:
            fd = os.open(name, _DIR, dir_fd=sfd)
        except FileNotFoundError:
            return None
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR):  # swapped for a link or file meanwhile
                self.skipped += 1
                return None
            raise TreeError(f"cannot read {_rel(parts, name)}: {_reason(e)}") from None
        try:
            if _ident(fd) == self.top:  # the copy itself, when dest is inside src
                os.close(fd)
                return None
            self.src.enter(name, fd)
        except OSError as e:
            raise TreeError(f"cannot read {_rel(parts, name)}: {_reason(e)}") from None
        try:
            names = self.listing(fd)
        except OSError as e:
            raise TreeError(f"cannot read {_rel(self.src.names)}: {_reason(e)}") from None
        try:
            out, _ = _new_dir(self.dest.fd(), name)
            self.dest.enter(name, out)
        except OSError as e:
            raise TreeError(f"cannot write {_rel(self.src.names)}: {_reason(e)}") from None
        self.dirs += 1
        return names

    def file(self, sfd: int, name: str) -> None:
        where = _rel(self.src.names, name)
        try:
            fd = os.open(name, _FILE, dir_fd=sfd)
        except FileNotFoundError:
            return
        except PermissionError as e:
            raise TreeError(f"cannot read {where}: {_reason(e)}") from None
        except OSError:  # a link (ELOOP), socket (ENXIO)... swapped in meanwhile
            self.skipped += 1
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # a fifo or device swapped in: never read
                self.skipped += 1
                return
            if st.st_size > self.caps.bytes - self.bytes:
                raise _too_big("the folder", self.caps, where)
            self.copy_file(fd, name, _file_mode(st.st_mode), where)
        finally:
            os.close(fd)
        self.files += 1

    def copy_file(self, fd: int, name: str, mode: int, where: str) -> None:
        try:
            out = os.open(name, _NEW | os.O_EXCL, mode, dir_fd=self.dest.fd())
        except OSError as e:
            raise TreeError(f"cannot write {where}: {_reason(e)}") from None
        try:
            os.fchmod(out, mode)
            while True:
                room = self.caps.bytes - self.bytes
                try:
                    chunk = os.read(fd, min(_CHUNK, room + 1))
                except OSError as e:
                    raise TreeError(f"cannot read {where}: {_reason(e)}") from None
                if not chunk:
                    break
                if len(chunk) > room:
                    raise _too_big("the folder", self.caps, where)
                _write_all(out, chunk)
                self.bytes += len(chunk)
        except OSError as e:
            raise TreeError(f"cannot write {where}: {_reason(e)}") from None
        finally:
            os.close(out)


def copy_tree(src: Path, dest: Path, caps: TreeCaps = TreeCaps(), *,
              skip_dirs: frozenset[str] = frozenset()) -> TreeStats:
    """Copy the folder `src` to `dest`, which must not exist (it is made, mode 0o755; an
    existing one, even empty, is refused, so that a failure can remove all of `dest`).

    Only folders and regular files are copied; links, fifos, sockets and devices are skipped
    (``skipped``) and never opened or followed, at any level; `src` itself must be a folder, not
    a link to one. Folders named in `skip_dirs` (``__pycache__``, ``.git``) are left out with
    what they hold. Files are written 0o755 when the source had an execute bit, else 0o644;
    folders 0o755. More entries, bytes or depth than `caps` allow, an entry that cannot be read
    or written: TreeError, and `dest` is removed."""
    src, dest = Path(src), Path(dest)
    try:
        st = os.stat(src, follow_symlinks=False)
    except OSError as e:
        raise TreeError(f"cannot copy {_show(src)}: {_reason(e)}") from None
    if stat.S_ISLNK(st.st_mode):
        raise TreeError(f"cannot copy {_show(src)}: it is a link, not a folder")
    if not stat.S_ISDIR(st.st_mode):
        raise TreeError(f"cannot copy {_show(src)}: it is not a folder")
    try:
        sfd = os.open(src, _DIR)
    except OSError as e:
        raise TreeError(f"cannot copy {_show(src)}: {_reason(e)}") from None
    try:
        src_walk = _Path(sfd)
    except OSError as e:
        os.close(sfd)
        raise TreeError(f"cannot copy {_show(src)}: {_reason(e)}") from None
    try:
        dest_walk = _Path(_new_top(dest))
    except BaseException:
        src_walk.close()
        raise
    try:
        return _Copy(src_walk, dest_walk, caps, frozenset(skip_dirs)).run()
    except BaseException as e:
        src_walk.close()
        dest_walk.close()
        _cleanup(dest)
        if isinstance(e, OSError):
            raise TreeError(f"cannot copy {_show(src)}: {_reason(e)}") from None
        raise
    finally:
        src_walk.close()
        dest_walk.close()


# --- tar ------------------------------------------------------------------------------------

class _Corrupt(Exception):
    """tarfile failed on the stream."""


def _member_parts(name: str) -> list[str]:
    """A member's name as safe parts below the top ([] for the top itself, "./"); TreeError for
    an absolute name, "..", "." or an empty part."""
    rest = name
    while rest.startswith("./"):
        rest = rest[2:]
    if rest in ("", "."):
        return []
    parts = rest.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise TreeError(f"the tar holds an unsafe name: {_show(name)}")
    return parts


class _Unpack:
    """One unpacking under way: the caps, the counts, and the open folders of the last member."""

    def __init__(self, top: int, caps: TreeCaps) -> None:
        self.path = _Path(top)
        self.caps = caps
        self.files = self.dirs = self.bytes = self.skipped = 0

    @property
    def entries(self) -> int:
        return self.files + self.dirs + self.skipped

    def count(self) -> None:
        if self.entries > self.caps.files:
            raise _too_many("the tar", self.caps)

    def folder(self, parts: list[str], member: list[str]) -> int:
        """Open the folder `parts` below the top, making what is missing on the way; TreeError
        when the way passes through something else (`member`: the name unpacked, for it)."""
        names = self.path.names
        common = 0
        while common < min(len(names), len(parts)) and names[common] == parts[common]:
            common += 1
        while len(self.path) > common:
            self.path.leave()
        for i in range(common, len(parts)):
            try:
                fd, made = _new_dir(self.path.fd(), parts[i])
            except OSError as e:
                if e.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise TreeError(f"cannot write {_rel(parts[:i + 1])}: {_reason(e)}") from None
                if member == parts[:i + 1]:
                    raise TreeError(f"the tar holds {_rel(member)} as a file and as a folder"
                                    ) from None
                raise TreeError(f"the tar's {_rel(member)} passes through "
                                f"{_rel(parts[:i + 1])}, which is not a folder") from None
            self.path.enter(parts[i], fd)
            if made:
                self.dirs += 1
                self.count()
        return self.path.fd()

    def member(self, tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
        parts = _member_parts(member.name)
        if not parts:
            return
        levels = len(parts) if member.isdir() else len(parts) - 1
        if levels > self.caps.depth:
            raise _too_deep("the tar's folder tree", self.caps, _rel(parts))
        if member.isdir():
            self.folder(parts, parts)
        elif member.isreg():
            self.files += 1
            self.count()
            self.file(tar, member, parts)
        else:
            self.skipped += 1
            self.count()

    def file(self, tar: tarfile.TarFile, member: tarfile.TarInfo, parts: list[str]) -> None:
        where = _rel(parts)
        if member.size > self.caps.bytes - self.bytes:
            raise _too_big("the tar", self.caps, where)
        parent = self.folder(parts[:-1], parts)
        mode = _file_mode(member.mode)
        try:
            out = os.open(parts[-1], _NEW | os.O_TRUNC, mode, dir_fd=parent)
        except OSError as e:
            if e.errno == errno.EISDIR:
                raise TreeError(f"the tar holds {where} as a folder and as a file") from None
            raise TreeError(f"cannot write {where}: {_reason(e)}") from None
        try:
            os.fchmod(out, mode)
            try:
                data = tar.extractfile(member)
            except Exception as e:  # the parser on hostile input: any failure is corruption
                raise _Corrupt(e) from None
            assert data is not None  # a regular member
            while True:
                room = self.caps.bytes - self.bytes
                try:
                    chunk = data.read(min(_CHUNK, room + 1))
                except Exception as e:
                    raise _Corrupt(e) from None
                if not chunk:
                    break
                if len(chunk) > room:
                    raise _too_big("the tar", self.caps, where)
                _write_all(out, chunk)
                self.bytes += len(chunk)
        except OSError as e:
            raise TreeError(f"cannot write {where}: {_reason(e)}") from None
        finally:
            os.close(out)


def extract_tar(data: bytes, dest: Path, caps: TreeCaps = TreeCaps()) -> TreeStats:
    """Unpack the tar stream `data` (as ``tar -cf - .`` writes it) into `dest`, which must not
    exist (it is made, mode 0o755), by :func:`copy_tree`'s rules: only regular files and folders
    (links, hard links, devices and fifos skipped and counted), modes 0o755 or 0o644 and 0o755,
    caps checked while unpacking. Members come in any order (missing folders are made); a later
    member of the same name replaces a file. A name that is absolute, holds ``..``, ``.`` or an
    empty part, or passes through a file, and a corrupt stream (one that does not end with an
    end-of-archive block included): TreeError, and `dest` is removed."""
    dest = Path(dest)
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    except Exception as e:  # the parser on hostile input: any failure is corruption
        raise TreeError(f"the tar stream is corrupt: {_show(str(e) or type(e).__name__)}") from None
    top = _new_top(dest)
    try:
        unpack = _Unpack(top, caps)
    except OSError as e:
        os.close(top)
        _cleanup(dest)
        raise TreeError(f"cannot write {_show(dest)}: {_reason(e)}") from None
    try:
        with tar:
            while True:
                try:
                    member = tar.next()
                except Exception as e:
                    raise _Corrupt(e) from None
                if member is None:
                    break
                unpack.member(tar, member)
            end = data[tar.offset:tar.offset + tarfile.BLOCKSIZE]
            if len(end) < tarfile.BLOCKSIZE or any(end):
                raise _Corrupt("it does not end with an end-of-archive block")
        return TreeStats(unpack.files, unpack.dirs, unpack.bytes, unpack.skipped)
    except BaseException as e:
        unpack.path.close()
        _cleanup(dest)
        if isinstance(e, _Corrupt):
            why = str(e.args[0]) if e.args else ""
            raise TreeError(f"the tar stream is corrupt: {_show(why or type(e.args[0]).__name__)}"
                            ) from None
        if isinstance(e, OSError):
            raise TreeError(f"cannot write {_show(dest)}: {_reason(e)}") from None
        raise
    finally:
        unpack.path.close()


# --- remove ---------------------------------------------------------------------------------

@dataclass
class _Level:
    """A folder being removed: its subfolders still to do, how often it was listed, whether
    something under it could not be removed."""

    pending: list[str]
    passes: int = 0
    failed: bool = False


class _Problems:
    """What could not be removed, said at the end as one TreeError."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.first = ""
        self.count = 0

    def add(self, parts: list[str], err: OSError) -> None:
        if not self.first:
            where = _rel(parts[1:]) if len(parts) > 1 else _show(self.top)
            self.first = f"cannot remove {where}: {_reason(err)}"
        self.count += 1

    def raise_any(self) -> None:
        if self.count:
            more = f" (and {self.count - 1} more)" if self.count > 1 else ""
            raise TreeError(self.first + more)


def _open_to_remove(parent: int, name: str) -> int:
    """Open the folder `name` in `parent` for removing what it holds: made readable, writable
    and searchable by its owner (0o700) first if it was not (through a descriptor, never a
    name that could be a link). OSError as os.open's."""
    try:
        fd = os.open(name, _DIR, dir_fd=parent)
    except PermissionError as denied:  # mode 000, say: chmod the folder itself, never a link
        try:
            path_fd = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                              dir_fd=parent)
            try:
                os.chmod(f"/proc/self/fd/{path_fd}", 0o700)
            finally:
                os.close(path_fd)
        except OSError:
            raise denied from None
        fd = os.open(name, _DIR, dir_fd=parent)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o700 != 0o700:
            os.fchmod(fd, 0o700)
    except OSError:
        pass  # not the owner: removing what is inside may still work, else it is reported
    return fd


def _clear(fd: int, parts: list[str], level: _Level, problems: _Problems) -> None:
    """Unlink everything in folder `fd` that is not a folder; list its folders in level."""
    level.passes += 1
    with os.scandir(fd) as entries:
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                level.pending.append(entry.name)
                continue
            try:
                os.unlink(entry.name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except IsADirectoryError:
                level.pending.append(entry.name)
            except OSError as e:
                problems.add([*parts, entry.name], e)
                level.failed = True


def _remove_folder(walk: _Path, problems: _Problems) -> None:
    """Remove the folder the walk has just entered (one below its top) with all it holds."""
    levels = [_Level([])]
    while levels:
        level = levels[-1]
        parts = walk.names
        try:
            fd = walk.fd()
        except OSError as e:  # moved or swapped meanwhile: the folder above lists itself again
            if len(levels) == 1:
                problems.add(list(parts), e)
            walk.leave()
            levels.pop()
            continue
        if not level.pending and level.passes == 0:
            try:
                _clear(fd, parts, level, problems)
            except OSError as e:
                problems.add(list(parts), e)
                level.failed = True
                level.passes = _PASSES
            continue
        if level.pending:
            name = level.pending.pop()
            try:
                child = _open_to_remove(fd, name)
            except FileNotFoundError:
                continue
            except OSError as e:
                if e.errno in (errno.ENOTDIR, errno.ELOOP):  # a link or file swapped in
                    try:
                        os.unlink(name, dir_fd=fd)
                        continue
                    except FileNotFoundError:
                        continue
                    except OSError as again:
                        e = again
                problems.add([*parts, name], e)
                level.failed = True
                continue
            try:
                walk.enter(name, child)
            except OSError as e:
                problems.add([*parts, name], e)
                level.failed = True
                continue
            levels.append(_Level([]))
            continue
        # nothing left to enter: remove the folder itself, listing it again if it is not empty
        try:
            os.rmdir(parts[-1], dir_fd=walk.at(len(parts) - 1))
        except FileNotFoundError:
            pass
        except OSError as e:
            if e.errno == errno.ENOTEMPTY and not level.failed and level.passes < _PASSES:
                try:
                    _clear(fd, parts, level, problems)
                    continue
                except OSError as listing:
                    e = listing
            if not (e.errno == errno.ENOTEMPTY and level.failed):
                problems.add(list(parts), e)
            level.failed = True
        walk.leave()
        levels.pop()
        if level.failed and levels:
            levels[-1].failed = True


def remove_tree(path: Path) -> None:
    """Remove `path` and everything in it, whatever it holds: any depth or path length, folders
    of mode 000 or 0o500 (made 0o700 on the way), fifos, sockets, devices, and links (the link
    is removed, never followed). `path` may itself be a file or a link (it is unlinked); a
    missing `path` is no error. Nothing the tree holds makes it stop: what really cannot be
    removed (a mount point, a file of another user's folder) is said at the end as one
    TreeError, after everything else was removed."""
    path = Path(path)
    name = path.name
    if name in ("", ".", ".."):
        raise TreeError(f"will not remove {_show(path)}: name the folder by its own name")
    try:
        parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as e:
        raise TreeError(f"cannot remove {_show(path)}: {_reason(e)}") from None
    problems = _Problems(path)
    try:
        walk = _Path(parent)
    except OSError as e:
        os.close(parent)
        raise TreeError(f"cannot remove {_show(path)}: {_reason(e)}") from None
    try:
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(st.st_mode):
            try:
                os.unlink(name, dir_fd=parent)
            except FileNotFoundError:
                pass
            return
        try:
            fd = _open_to_remove(parent, name)
        except FileNotFoundError:
            return
        walk.enter(name, fd)
        _remove_folder(walk, problems)
    except OSError as e:
        problems.add([name], e)
    finally:
        walk.close()
    problems.raise_any()


# --- usage ----------------------------------------------------------------------------------

def tree_usage(path: Path) -> tuple[int, int]:
    """(files, bytes) under `path`: every entry that is not a folder counts as a file (links,
    fifos... included), bytes are the regular files' sizes (as ``ls -l`` shows them; a sparse
    file counts whole). Links are not followed; folders that cannot be read count as empty; a
    missing `path` is (0, 0), a file (1, its size)."""
    path = Path(path)
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return 0, 0
    except OSError as e:
        raise TreeError(f"cannot measure {_show(path)}: {_reason(e)}") from None
    if not stat.S_ISDIR(st.st_mode):
        return 1, st.st_size if stat.S_ISREG(st.st_mode) else 0
    try:
        top = os.open(path, _DIR)
    except OSError as e:
        raise TreeError(f"cannot measure {_show(path)}: {_reason(e)}") from None
    files = size = 0
    walk = _Path(top)
    try:
        pending = [[]]
        dirs = pending[0]
        with os.scandir(top) as entries:
            for entry in entries:
                files, size = _count(entry, dirs, files, size)
        while pending:
            if not pending[-1]:
                pending.pop()
                if pending:
                    walk.leave()
                continue
            name = pending[-1].pop()
            try:
                child = os.open(name, _DIR, dir_fd=walk.fd())
                walk.enter(name, child)
            except OSError:
                continue
            dirs = []
            pending.append(dirs)
            try:
                with os.scandir(child) as entries:
                    for entry in entries:
                        files, size = _count(entry, dirs, files, size)
            except OSError:
                pass
    finally:
        walk.close()
    return files, size


def _count(entry: os.DirEntry[str], dirs: list[str], files: int, size: int) -> tuple[int, int]:
    try:
        if entry.is_dir(follow_symlinks=False):
            dirs.append(entry.name)
            return files, size
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return files + 1, size
    return files + 1, size + (st.st_size if stat.S_ISREG(st.st_mode) else 0)
