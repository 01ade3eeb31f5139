"""Output folders written as a whole: built in a temporary folder beside their destination and
renamed into place only once complete, so a failed or interrupted run never leaves half of one,
and an old one is replaced only as a whole. A folder is replaced only when it is empty or holds
the marker file its writer leaves (the report's, the grading site's): never a folder the user
made."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from dicejack.formats import FormatError

__all__ = ["new_folder_beside", "swap_folder", "os_reason"]


def os_reason(exc: OSError) -> str:
    """strerror and the path it concerns, e.g. 'Not a directory: /tmp/file'."""
    reason = exc.strerror or str(exc)
    return f"{reason}: {exc.filename}" if exc.filename else reason


def new_folder_beside(out: Path, *, marker: str, what: str = "report", option: str = "--out",
                      example: str = "reports/mine") -> Path:
    """A fresh temporary folder next to `out`, after checking that `out` may be replaced: it is
    missing, empty, or holds `marker`; not a file, not the current folder or one above it.
    FormatError (one line) otherwise."""
    if out.exists() and not out.is_dir():
        raise FormatError(f"cannot write the {what} to {out}: it exists and is not a folder")
    here = Path.cwd().resolve()
    target = out.resolve()
    if target == here or target in here.parents:
        raise FormatError(
            f"{option} {out} is the current folder{' or above it' if target != here else ''}; "
            f"name a folder for the {what}, e.g. {option} {example}"
        )
    if out.is_dir() and not (out / marker).exists():
        try:
            empty = next(out.iterdir(), None) is None
        except OSError as exc:
            raise FormatError(f"cannot write the {what} folder {out}: {os_reason(exc)}") from None
        if not empty:
            raise FormatError(
                f"{option} {out} is a folder dicejack did not write (no {marker} in it); it would "
                "be replaced as a whole, so name a new or empty folder"
            )
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise FormatError(f"cannot write the {what} folder {out}: {os_reason(exc)}") from None


def swap_folder(tmp: Path, out: Path) -> None:
    """Rename the finished `tmp` to `out`, replacing an old `out` only as a whole (it is moved
    aside first, and put back if the rename fails)."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
        os.rmdir(old)
        os.rename(out, old)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp made it private
    try:
        os.rename(tmp, out)
    except OSError:
        if old is not None:
            os.rename(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
