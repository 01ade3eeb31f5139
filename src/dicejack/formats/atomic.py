"""Writing files safely, and the one check of an output path that every command uses.

`write_atomic` and `savez_atomic` write to a temporary file in the target folder, fsync it and
rename it into place, so an existing file is never left half-written. `check_output_file` and
`ensure_output_folder` let a command fail with a one-line FormatError before a long computation,
not after it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from dicejack.formats import FormatError

__all__ = ["check_output_file", "ensure_output_folder", "savez_atomic", "write_atomic"]


def check_output_file(
    path: str | os.PathLike[str], *, option: str | None = None, hint: str | None = None
) -> Path:
    """`path` as a Path, if a file can be written there; FormatError (one line) if not.

    Fails when `path` is a folder (`{option} {path} is a folder`, or `cannot write {path}: it
    is a folder` without an option; `; {hint}` added when given) or when its folder does not
    exist (`cannot write {path}: folder {folder} does not exist`).
    """
    path = Path(path)
    if path.is_dir():
        where = f"{option} {path}" if option else f"cannot write {path}: it"
        raise FormatError(f"{where} is a folder" + (f"; {hint}" if hint else ""))
    folder = path.parent  # Path("name").parent is Path(".")
    if not folder.is_dir():
        raise FormatError(f"cannot write {path}: folder {folder} does not exist")
    return path


def ensure_output_folder(
    path: str | os.PathLike[str], *, option: str | None = None, what: str = "folder"
) -> Path:
    """`path` as a Path, created (with its parents) if missing; FormatError (one line) if not.

    Fails when `path` exists and is not a folder (`{option} {path} exists and is not a folder`,
    or `cannot create the {what} {path}: it exists and is not a folder` without an option) or
    cannot be created (`cannot create the {what} {path}: {reason}`).
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        where = f"{option} {path}" if option else f"cannot create the {what} {path}: it"
        raise FormatError(f"{where} exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FormatError(f"cannot create the {what} {path}: {exc.strerror or exc}") from None
    return path


def _replace_atomically(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Call write(binary file) on a temporary file beside `path`, then rename it into place."""
    check_output_file(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates the file 0600; give it the permissions an ordinary open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write `data` to `path` via a temporary file in the same folder and a rename."""
    payload = data.encode() if isinstance(data, str) else data
    _replace_atomically(Path(path), lambda fh: fh.write(payload))


def savez_atomic(
    path: str | os.PathLike[str], *, compressed: bool = True, **arrays: Any
) -> None:
    """np.savez(_compressed) to `path`, atomically (the exact name is kept, no '.npz' added).

    Streams to the temporary file, so a large table is never held twice in memory.
    """
    import numpy as np

    save = np.savez_compressed if compressed else np.savez
    _replace_atomically(Path(path), lambda fh: save(fh, **arrays))
