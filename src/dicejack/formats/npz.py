"""Reading .npz archives safely: member headers checked against declared shapes and sizes before
any data is read.

A hostile .npz can declare a 3 GiB array in a few kilobytes, hold pickled objects, or be a FIFO
that blocks whoever opens it. The run reader (learner_runs.load_learner_run, both layouts)
therefore open a file only when it is a regular file (`open_npz`), and read a member only after
its .npy header passed `NpzMembers.header` (plain numbers or text, and exactly as many bytes in
the zip file as the header declares) and they found its shape right for the game.
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dicejack.formats import FormatError
from dicejack.runtime.messages import one_line

if TYPE_CHECKING:  # pragma: no cover
    import zipfile

__all__ = ["SMALL_MEMBER_BYTES", "NpzMembers", "open_npz"]

#: Largest text or scalar member (params, game, rng_state, kind, ...) a reader accepts, in bytes.
SMALL_MEMBER_BYTES = 4096
#: Largest number a member may hold, in bytes (int64, float64).
_NUMBER_BYTES = 8


def open_npz(path: str | os.PathLike[str], what: str = "run") -> zipfile.ZipFile:
    """`path` opened as a zip file; FormatError 'cannot read WHAT PATH: ...' if it is missing,
    a folder, not a regular file (a FIFO or device is never opened) or not a zip file."""
    import zipfile  # here, not at the top: writing files need not load it

    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FormatError(f"cannot read {what} {path}: no such file") from None
    except OSError as exc:
        raise FormatError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise FormatError(f"cannot read {what} {path}: it is a folder, not a regular file")
    if not stat.S_ISREG(mode):
        raise FormatError(f"cannot read {what} {path}: not a regular file")
    try:
        return zipfile.ZipFile(path)
    except Exception as exc:  # zip, header and I/O errors all mean "not a .npz file"
        raise FormatError(
            f"cannot read {what} {path}: not a valid .npz file ({one_line(exc)})"
        ) from None


class NpzMembers:
    """The members of an open .npz archive by key (the member's name without '.npy'), each read
    only after its header was checked."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.infos = {
            (i.filename[:-4] if i.filename.endswith(".npy") else i.filename): i
            for i in archive.infolist()
        }

    def header(self, key: str, kinds: str | None = None) -> tuple[tuple[int, ...], np.dtype]:
        """(shape, dtype) declared by member `key`'s .npy header, checked against the member's
        size in the zip file; with `kinds`, the dtype kind must be one of them, numbers of at
        most 8 bytes and text of at most SMALL_MEMBER_BYTES. ValueError naming the member if
        not; KeyError if there is no such member."""
        from numpy.lib import format as npy

        info = self.infos[key]
        try:
            with self.archive.open(info) as fh:
                version = npy.read_magic(fh)
                if version == (1, 0):
                    shape, _, dtype = npy.read_array_header_1_0(fh)
                elif version in ((2, 0), (3, 0)):
                    shape, _, dtype = npy.read_array_header_2_0(fh)
                else:
                    raise ValueError(f".npy version {version}")
                offset = fh.tell()
        except ValueError as exc:
            raise ValueError(f"{key}: {one_line(exc)}") from None
        if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
            raise ValueError(f"{key} has dtype {dtype}, not plain numbers or text")
        if info.file_size != offset + math.prod(int(n) for n in shape) * dtype.itemsize:
            raise ValueError(f"{key}: its header and its size in the zip file disagree")
        if kinds is not None and (
            dtype.kind not in kinds
            or dtype.itemsize > (_NUMBER_BYTES if dtype.kind != "U" else SMALL_MEMBER_BYTES)
        ):
            raise ValueError(f"{key} has dtype {dtype}")
        return tuple(int(n) for n in shape), dtype

    def read(self, key: str) -> np.ndarray:
        """Member `key`'s data (never pickles); call only once its `header` passed the checks."""
        from numpy.lib import format as npy

        with self.archive.open(self.infos[key]) as fh:
            return npy.read_array(fh, allow_pickle=False)
