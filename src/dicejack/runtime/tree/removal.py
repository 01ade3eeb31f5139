"""Removing a hostile folder of any depth (:func:`remove_tree`: permissions restored through
``O_PATH``, no recursion, every error collected) and measuring one (:func:`tree_usage`), never
following a link."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from dicejack.runtime.tree.walk import (
    DIR_FLAGS,
    TreeError,
    Walk,
    reason,
    rel,
    show,
)

__all__ = ["remove_tree", "tree_usage"]

#: Times a directory being removed is listed again before what appeared in it meanwhile is
#: reported instead (something still writing there).
_PASSES = 4


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
            where = rel(parts[1:]) if len(parts) > 1 else show(self.top)
            self.first = f"cannot remove {where}: {reason(err)}"
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
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
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
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
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


def _remove_folder(walk: Walk, problems: _Problems) -> None:
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
                except OSError as again:
                    e = again
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
        raise TreeError(f"will not remove {show(path)}: name the folder by its own name")
    try:
        parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as e:
        raise TreeError(f"cannot remove {show(path)}: {reason(e)}") from None
    problems = _Problems(path)
    try:
        walk = Walk(parent)
    except OSError as e:
        os.close(parent)
        raise TreeError(f"cannot remove {show(path)}: {reason(e)}") from None
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
        raise TreeError(f"cannot measure {show(path)}: {reason(e)}") from None
    if not stat.S_ISDIR(st.st_mode):
        return 1, st.st_size if stat.S_ISREG(st.st_mode) else 0
    try:
        top = os.open(path, DIR_FLAGS)
    except OSError as e:
        raise TreeError(f"cannot measure {show(path)}: {reason(e)}") from None
    files = size = 0
    walk = Walk(top)
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
                child = os.open(name, DIR_FLAGS, dir_fd=walk.fd())
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
