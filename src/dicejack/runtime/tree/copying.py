"""Copying a hostile folder (:func:`copy_tree`) and unpacking a tar stream of one
(:func:`extract_tar`), within caps, plain files and folders only (the rules:
:mod:`dicejack.runtime.tree`); what a failed one wrote is removed."""

from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

from dicejack.runtime.tree.removal import remove_tree
from dicejack.runtime.tree.walk import (
    CHUNK,
    DIR_FLAGS,
    FILE_FLAGS,
    NEW_FLAGS,
    TreeCaps,
    TreeError,
    TreeStats,
    Walk,
    file_mode,
    ident,
    listing,
    new_dir,
    new_top,
    reason,
    rel,
    show,
    too_big,
    too_deep,
    too_many,
    write_all,
)

__all__ = ["copy_tree", "extract_tar", "pour"]


def _cleanup(dest: Path) -> None:
    """Remove what a failed copy or unpacking wrote (quietly: the first error is the news)."""
    try:
        remove_tree(dest)
    except TreeError:
        pass


# --- copy -----------------------------------------------------------------------------------

class _Copy:
    """One copy under way: the caps, the counts, and the source and destination walks."""

    def __init__(self, src: Walk, dest: Walk, caps: TreeCaps, skip_dirs: frozenset[str]):
        self.src, self.dest, self.caps, self.skip_dirs = src, dest, caps, skip_dirs
        self.top = ident(dest.fd())
        self.entries = self.files = self.dirs = self.bytes = self.skipped = 0

    def listing(self, fd: int) -> list[str]:
        """The names in `fd`, counted against the cap on entries."""
        room = self.caps.files - self.entries
        names = listing(fd, room)
        self.entries += len(names)
        if self.entries > self.caps.files:
            raise too_many("the folder", self.caps)
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
            raise TreeError(f"cannot read {rel(parts)}: {reason(e)}") from None
        try:
            st = os.stat(name, dir_fd=sfd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise TreeError(f"cannot read {rel(parts, name)}: {reason(e)}") from None
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
            raise too_deep("the folder tree", self.caps, rel(parts, name))
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=sfd)
        except FileNotFoundError:
            return None
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR):  # swapped for a link or file meanwhile
                self.skipped += 1
                return None
            raise TreeError(f"cannot read {rel(parts, name)}: {reason(e)}") from None
        try:
            if ident(fd) == self.top:  # the copy itself, when dest is inside src
                os.close(fd)
                return None
            self.src.enter(name, fd)
        except OSError as e:
            raise TreeError(f"cannot read {rel(parts, name)}: {reason(e)}") from None
        try:
            names = self.listing(fd)
        except OSError as e:
            raise TreeError(f"cannot read {rel(self.src.names)}: {reason(e)}") from None
        try:
            out, _ = new_dir(self.dest.fd(), name)
            self.dest.enter(name, out)
        except OSError as e:
            raise TreeError(f"cannot write {rel(self.src.names)}: {reason(e)}") from None
        self.dirs += 1
        return names

    def file(self, sfd: int, name: str) -> None:
        where = rel(self.src.names, name)
        try:
            fd = os.open(name, FILE_FLAGS, dir_fd=sfd)
        except FileNotFoundError:
            return
        except PermissionError as e:
            raise TreeError(f"cannot read {where}: {reason(e)}") from None
        except OSError:  # a link (ELOOP), socket (ENXIO)... swapped in meanwhile
            self.skipped += 1
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # a fifo or device swapped in: never read
                self.skipped += 1
                return
            if st.st_size > self.caps.bytes - self.bytes:
                raise too_big("the folder", self.caps, where)
            self.copy_file(fd, name, file_mode(st.st_mode), where)
        finally:
            os.close(fd)
        self.files += 1

    def copy_file(self, fd: int, name: str, mode: int, where: str) -> None:
        try:
            out = os.open(name, NEW_FLAGS | os.O_EXCL, mode, dir_fd=self.dest.fd())
        except OSError as e:
            raise TreeError(f"cannot write {where}: {reason(e)}") from None
        try:
            os.fchmod(out, mode)
            def read(n: int) -> bytes:
                try:
                    return os.read(fd, n)
                except OSError as e:
                    raise TreeError(f"cannot read {where}: {reason(e)}") from None

            self.bytes += pour(read, out, self.caps.bytes - self.bytes,
                               lambda: too_big("the folder", self.caps, where))
        except OSError as e:
            raise TreeError(f"cannot write {where}: {reason(e)}") from None
        finally:
            os.close(out)


def pour(read: Callable[[int], bytes], out: int, room: int,
         too_much: Callable[[], TreeError]) -> int:
    """Write into `out` what `read(n)` gives (at most n bytes a call) until it gives nothing;
    never more than `room` bytes, nor a read past them (one byte more shows there is more:
    too_much() is raised). Returns the bytes written."""
    written = 0
    while True:
        chunk = read(min(CHUNK, room - written + 1))
        if not chunk:
            return written
        if len(chunk) > room - written:
            raise too_much()
        write_all(out, chunk)
        written += len(chunk)


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
        raise TreeError(f"cannot copy {show(src)}: {reason(e)}") from None
    if stat.S_ISLNK(st.st_mode):
        raise TreeError(f"cannot copy {show(src)}: it is a link, not a folder")
    if not stat.S_ISDIR(st.st_mode):
        raise TreeError(f"cannot copy {show(src)}: it is not a folder")
    try:
        sfd = os.open(src, DIR_FLAGS)
    except OSError as e:
        raise TreeError(f"cannot copy {show(src)}: {reason(e)}") from None
    try:
        src_walk = Walk(sfd)
    except OSError as e:
        os.close(sfd)
        raise TreeError(f"cannot copy {show(src)}: {reason(e)}") from None
    try:
        dest_walk = Walk(new_top(dest))
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
            raise TreeError(f"cannot copy {show(src)}: {reason(e)}") from None
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
        raise TreeError(f"the tar holds an unsafe name: {show(name)}")
    return parts


class _Unpack:
    """One unpacking under way: the caps, the counts, and the open folders of the last member."""

    def __init__(self, top: int, caps: TreeCaps) -> None:
        self.path = Walk(top)
        self.caps = caps
        self.files = self.dirs = self.bytes = self.skipped = 0

    @property
    def entries(self) -> int:
        return self.files + self.dirs + self.skipped

    def count(self) -> None:
        if self.entries > self.caps.files:
            raise too_many("the tar", self.caps)

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
                fd, made = new_dir(self.path.fd(), parts[i])
            except OSError as e:
                if e.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise TreeError(f"cannot write {rel(parts[:i + 1])}: {reason(e)}") from None
                if member == parts[:i + 1]:
                    raise TreeError(f"the tar holds {rel(member)} as a file and as a folder"
                                    ) from None
                raise TreeError(f"the tar's {rel(member)} passes through "
                                f"{rel(parts[:i + 1])}, which is not a folder") from None
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
            raise too_deep("the tar's folder tree", self.caps, rel(parts))
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
        where = rel(parts)
        if member.size > self.caps.bytes - self.bytes:
            raise too_big("the tar", self.caps, where)
        parent = self.folder(parts[:-1], parts)
        mode = file_mode(member.mode)
        try:
            out = os.open(parts[-1], NEW_FLAGS | os.O_TRUNC, mode, dir_fd=parent)
        except OSError as e:
            if e.errno == errno.EISDIR:
                raise TreeError(f"the tar holds {where} as a folder and as a file") from None
            raise TreeError(f"cannot write {where}: {reason(e)}") from None
        try:
            os.fchmod(out, mode)
            try:
                data = tar.extractfile(member)
            except Exception as e:  # the parser on hostile input: any failure is corruption
                raise _Corrupt(e) from None
            assert data is not None  # a regular member
            def read(n: int) -> bytes:
                try:
                    return data.read(n)
                except Exception as e:  # the parser on hostile input: any failure is corruption
                    raise _Corrupt(e) from None

            self.bytes += pour(read, out, self.caps.bytes - self.bytes,
                               lambda: too_big("the tar", self.caps, where))
        except OSError as e:
            raise TreeError(f"cannot write {where}: {reason(e)}") from None
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
        raise TreeError(f"the tar stream is corrupt: {show(str(e) or type(e).__name__)}") from None
    top = new_top(dest)
    try:
        unpack = _Unpack(top, caps)
    except OSError as e:
        os.close(top)
        _cleanup(dest)
        raise TreeError(f"cannot write {show(dest)}: {reason(e)}") from None
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
            raise TreeError(f"the tar stream is corrupt: {show(why or type(e.args[0]).__name__)}"
                            ) from None
        if isinstance(e, OSError):
            raise TreeError(f"cannot write {show(dest)}: {reason(e)}") from None
        raise
    finally:
        unpack.path.close()
