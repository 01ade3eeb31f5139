"""Writing files safely, and the one check of an output path that every command uses.

`write_atomic` and `savez_atomic` write to a temporary file in the target folder, fsync it and
rename it into place, so an existing file is never left half-written. `check_output_file` and
`ensure_output_folder` let a command fail with a one-line FormatError before a long computation,
not after it.

Guarantees of the writers:
  * only a regular file (or a missing name) is ever replaced: a folder, device (/dev/null),
    FIFO or socket is refused with "... is not a regular file", before anything is written;
  * a symlink is written through: its target file is replaced (atomically, in the target's
    folder) and the link itself stays a link (a dangling link creates its target);
  * a write that fails leaves the old file as it was and removes its temporary; a write that
    was killed (SIGKILL, power loss) leaves `.NAME.XXXXXXXX.tmp` beside NAME, and the next write
    of NAME silently removes such temporaries of NAME that have not changed for
    STALE_TEMPORARY_SECONDS (so another process's write in progress is left alone);
  * every failure, including the system's (disk full, no permission), is a one-line
    FormatError.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from dicejack.formats import FormatError

__all__ = [
    "STALE_TEMPORARY_SECONDS",
    "check_output_file",
    "ensure_output_folder",
    "savez_atomic",
    "write_atomic",
]

#: A temporary `.NAME.XXXXXXXX.tmp` unchanged for this long is left over from a killed write.
STALE_TEMPORARY_SECONDS = 60.0

_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def check_output_file(
    path: str | os.PathLike[str], *, option: str | None = None, hint: str | None = None
) -> Path:
    """`path` as a Path, if a file can be written there; FormatError (one line) if not.

    Fails when `path` is a folder (`{option} {path} is a folder`, or `cannot write {path}: it
    is a folder` without an option; `; {hint}` added when given) or when its folder does not
    exist (`cannot write {path}: folder {folder} does not exist`), and when `path` exists but
    is not a regular file (a device such as /dev/null, a FIFO, a socket: `... is not a regular
    file (a FIFO (named pipe)); it is never replaced`). A symlink is judged by its target. The
    path is only stat()ed, never opened.
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # follows a symlink; never opens (a FIFO would block)
    except FileNotFoundError:
        mode = None  # a new file (or a dangling symlink, whose target is created)
    except OSError as exc:
        raise FormatError(f"cannot write {path}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        where = f"{option} {path}" if option else f"cannot write {path}: it"
        raise FormatError(f"{where} is a folder" + (f"; {hint}" if hint else ""))
    if mode is not None and not stat.S_ISREG(mode):
        what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        where = f"{option} {path}" if option else f"cannot write {path}: it"
        raise FormatError(f"{where} is not a regular file ({what}); it is never replaced")
    folder = _target(path).parent  # Path("name").parent is Path(".")
    if not folder.is_dir():
        raise FormatError(f"cannot write {path}: folder {folder} does not exist")
    return path


def _target(path: Path) -> Path:
    """The file a write of `path` replaces: `path`, or the end of its symlink chain."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _temporary_prefix(name: str) -> str:
    """`.NAME.`, the start of the temporaries of NAME (shortened if NAME is very long)."""
    return f".{name if len(name) <= 100 else name[:100]}."


def _remove_stale_temporaries(target: Path) -> None:
    """Remove `.NAME.XXXXXXXX.tmp` beside `target` unchanged for STALE_TEMPORARY_SECONDS."""
    pattern = re.compile(re.escape(_temporary_prefix(target.name)) + r"[a-z0-9_]{8}\.tmp")
    now = time.time()
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        if not pattern.fullmatch(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_TEMPORARY_SECONDS:
                os.unlink(entry.path)
        except OSError:
            pass  # gone already, or not ours to remove


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
    target = _target(path)
    _remove_stale_temporaries(target)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=_temporary_prefix(target.name), suffix=".tmp", dir=target.parent
        )
    except OSError as exc:
        raise FormatError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        # mkstemp creates the file 0600; give it the permissions an ordinary open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        check_output_file(path)  # still not a folder, FIFO, ... (it may have changed meanwhile)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise FormatError(f"cannot write {path}: {exc.strerror or exc}") from None
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
