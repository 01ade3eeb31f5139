"""Zip archives as a batch reads them: opened with one-line reasons, members' names split at
``/`` only and checked (empty, absolute, climbing out with ``..``, a second of one name), and the
member count an archive declares, read from its end record before anything else. Names only:
what the members hold is read by :mod:`dicejack.grade.intake.zip_members`."""

from __future__ import annotations

import os
import re
import struct
import zipfile
from collections.abc import Sequence
from typing import BinaryIO

__all__ = ["path_parts", "error_reason", "open_zip", "named_members", "member_parts",
           "declared_members"]


def path_parts(path: str, separators: str = "/") -> tuple[str, ...]:
    """The names of `path` split at `separators` only: a zip member's names at ``/`` (the zip
    format's one separator); ``\\`` is part of a name (a POSIX file name may hold it)."""
    pattern = "[" + re.escape(separators) + "]+"
    return tuple(p for p in re.split(pattern, path) if p not in ("", "."))


def error_reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] if text else type(exc).__name__


def open_zip(fh: BinaryIO, label: str) -> tuple[zipfile.ZipFile | None, str]:
    """The archive opened, or None and the one-line reason it cannot be read."""
    try:
        return zipfile.ZipFile(fh), ""
    except UnicodeDecodeError:
        return None, (f"cannot read {label}: a member's name is marked UTF-8 but is not "
                      "(no member of it is read)")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
            NotImplementedError, struct.error) as exc:
        return None, f"cannot read {label}: not a readable zip archive ({error_reason(exc)})"


def named_members(infos: Sequence[zipfile.ZipInfo]
                   ) -> tuple[list[tuple[zipfile.ZipInfo, tuple[str, ...], str]],
                              dict[tuple[str, ...], list[str]]]:
    """Each member's name parts and the problem with its name ("" when none; a second member
    of one name is one), and the file names in each folder (the members without a problem)."""
    siblings: dict[tuple[str, ...], list[str]] = {}
    named = []
    seen: set[tuple[str, ...]] = set()
    for info in infos:
        member, problem = member_parts(info.filename)
        if not problem and member in seen:
            problem = "a second member of the same name (the first is graded)"
        seen.add(member)
        named.append((info, member, problem))
        if not problem:
            siblings.setdefault(member[:-1], []).append(member[-1])
    return named, siblings


_DRIVE = re.compile(r"^[A-Za-z]:")


def member_parts(name: str) -> tuple[tuple[str, ...], str]:
    """An archive member's path parts and what is wrong with its name ("" when nothing):
    an empty name, an absolute path or one that climbs out with ".." is its own error row."""
    if not name.strip("/\\"):
        return ("(unnamed)",), "a member with an empty name"
    if name[:1] in ("/", "\\") or _DRIVE.match(name):
        return path_parts(_DRIVE.sub("", name)) or ("(unnamed)",), "a member with an absolute path"
    parts = path_parts(name)
    if ".." in parts:
        return parts, "a member whose path climbs out with '..'"
    if name.rsplit("/", 1)[-1] == ".":  # `folder/.`: no name of its own
        return (*parts, "(unnamed)"), "a member with an empty name"
    return parts or ("(unnamed)",), ""


_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"


def declared_members(fh: BinaryIO) -> int | None:
    """The member count an archive's end record declares (ZIP64 included), read from its last
    64 KiB before anything else; None when it cannot be found (zipfile then says why)."""
    try:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        start = max(0, size - (2**16 + 22 + 20))
        fh.seek(start)
        tail = fh.read()
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) < at + 22:
            return None
        count = struct.unpack("<H", tail[at + 10:at + 12])[0]
        loc = at - 20
        if count == 0xFFFF and loc >= 0 and tail[loc:loc + 4] == _EOCD64_LOCATOR:
            offset = struct.unpack("<Q", tail[loc + 8:loc + 16])[0]
            if 0 <= offset <= size - 56:
                fh.seek(offset)
                record = fh.read(56)
                if record[:4] == _EOCD64:
                    count = struct.unpack("<Q", record[32:40])[0]
        return int(count)
    except (OSError, ValueError, struct.error):
        return None
    finally:
        try:
            fh.seek(0)
        except (OSError, ValueError):
            pass
