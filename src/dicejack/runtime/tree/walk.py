"""The ground the tree operations share (:mod:`dicejack.runtime.tree`): the error and the caps,
messages naming an entry by its path inside the tree (escaped, shortened), and the walk's open
directories (:class:`Walk`: any depth on a bounded number of descriptors, never leaving the
tree), with the few system-call steps (open or make a folder, write a file) every operation
takes relative to an open directory."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from dicejack.runtime.messages import DicejackError

__all__ = ["WINDOW", "CHUNK", "DIR_FLAGS", "FILE_FLAGS", "NEW_FLAGS", "TreeError", "TreeCaps",
           "TreeStats", "show", "rel", "reason", "size_text", "too_many", "too_big", "too_deep",
           "ident", "Walk", "listing", "new_top", "new_dir", "file_mode", "write_all"]

#: Open directories a walk holds at most (besides its top): deeper ones are reopened by name.
WINDOW = 64
#: Bytes read or written at a time.
CHUNK = 1 << 20
#: Characters of a name shown in a message at most (the middle is left out).
_SHOWN = 120

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


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


def show(name: str | os.PathLike[str]) -> str:
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


def rel(parts: list[str], name: str | None = None) -> str:
    """The path inside the tree of `parts` (and `name` below them), shown."""
    return show("/".join([*parts, name] if name is not None else parts) or ".")


def reason(err: OSError) -> str:
    text = err.strerror or str(err)
    return text[:1].lower() + text[1:]


def size_text(n: int) -> str:
    return f"{n >> 20:,} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n:,} bytes"


def too_many(what: str, caps: TreeCaps) -> TreeError:
    return TreeError(f"{what} holds more than {caps.files:,} files and folders")


def too_big(what: str, caps: TreeCaps, where: str) -> TreeError:
    return TreeError(f"{what} holds more than {size_text(caps.bytes)} of files "
                     f"(reached at {where})")


def too_deep(what: str, caps: TreeCaps, where: str) -> TreeError:
    return TreeError(f"{what} is deeper than {caps.depth} levels (at {where})")


# --- the walk's open directories ------------------------------------------------------------

def ident(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


class Walk:
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
        self._ids = [ident(fd)]

    def __len__(self) -> int:
        return len(self.names)

    def enter(self, name: str, fd: int) -> None:
        """Go down into `name`, already opened as `fd` (the walk owns it from now on)."""
        self.names.append(name)
        self._fds.append(fd)
        try:
            self._ids.append(ident(fd))
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
            fd = os.open("..", DIR_FLAGS, dir_fd=below)
        except OSError:
            return None
        try:
            if ident(fd) == self._ids[level]:
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
            fd = os.open(self.names[i - 1], DIR_FLAGS, dir_fd=parent)
            if ident(fd) != self._ids[i]:
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


def listing(fd: int, room: int | None = None) -> list[str]:
    """The names in directory `fd`, sorted; with `room`, at most room + 1 of them are read."""
    names: list[str] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            names.append(entry.name)
            if room is not None and len(names) > room:
                break
    names.sort()
    return names


def new_top(dest: Path) -> int:
    """Make the folder `dest` (which must not exist), mode 0o755, and open it."""
    try:
        os.mkdir(dest, 0o755)
        fd = os.open(dest, DIR_FLAGS)
    except FileExistsError:
        raise TreeError(f"cannot create {show(dest)}: it already exists") from None
    except OSError as e:
        raise TreeError(f"cannot create {show(dest)}: {reason(e)}") from None
    try:
        os.fchmod(fd, 0o755)
    except OSError as e:
        os.close(fd)
        raise TreeError(f"cannot create {show(dest)}: {reason(e)}") from None
    return fd


def new_dir(parent: int, name: str) -> tuple[int, bool]:
    """Open the folder `name` in `parent`, making it (mode 0o755) when missing; and whether it
    was made. OSError when `name` is something else (ENOTDIR, ELOOP)."""
    made = True
    try:
        os.mkdir(name, 0o755, dir_fd=parent)
    except FileExistsError:
        made = False
    fd = os.open(name, DIR_FLAGS, dir_fd=parent)
    if made:
        try:
            os.fchmod(fd, 0o755)
        except OSError:
            os.close(fd)
            raise
    return fd, made


def file_mode(mode: int) -> int:
    return 0o755 if mode & 0o111 else 0o644


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
