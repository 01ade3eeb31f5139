"""The one check of an output path, made before any work: never a submission (by any spelling
or link), never a file this tool did not write; and the reports folder made or refused."""
from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from dicejack import formats
from dicejack.formats.atomic import check_output_file, ensure_output_folder
from dicejack.grade.intake.inputs import resolved_path
from dicejack.grade.settings import GradeError, Parameter

__all__ = ["KnownInputs", "same_as_any", "starts_with", "check_output_path",
           "prepare_reports_folder"]


class KnownInputs:
    """The submissions, by resolved path and by (device, inode), to recognise any spelling or
    link of one of them."""

    def __init__(self, inputs: Iterable[str | os.PathLike[str] | bytes]) -> None:
        self.by_path: dict[Path, str] = {}
        self.by_inode: dict[tuple[int, int], str] = {}
        for item in inputs:
            resolved = resolved_path(item)
            if resolved is None:
                continue
            self.by_path.setdefault(resolved, str(item))
            try:
                st = os.stat(resolved)
            except (OSError, ValueError):
                continue
            self.by_inode.setdefault((st.st_dev, st.st_ino), str(item))

    def match(self, path: Path) -> str | None:
        resolved = resolved_path(path)
        if resolved is not None and resolved in self.by_path:
            return self.by_path[resolved]
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        return self.by_inode.get((st.st_dev, st.st_ino))


def same_as_any(path: Path, inputs: Iterable[str | os.PathLike[str] | bytes]) -> str | None:
    """The first of `inputs` that is `path` under another spelling or link (equal resolved
    paths, or the same file: os.path.samefile), else None."""
    return KnownInputs(inputs).match(path)


def _head(path: Path, size: int) -> bytes | None:
    """The first `size` bytes of `path` when it is a regular file (read without blocking;
    nothing else is read), else None."""
    try:
        if not path.is_file():
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        try:
            return os.read(fd, size)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None


def starts_with(path: Path, prefix: bytes) -> bool:
    """True when `path` is a regular file whose content starts with `prefix`."""
    head = _head(path, len(prefix))
    return head is not None and head == prefix


def check_output_path(
    out: Path | None, *, option: str, what: str, ours: Sequence[bytes] = (),
    inputs: Sequence[str | os.PathLike[str] | bytes] = (), hint: str = "",
    recognise: Callable[[bytes], bool] | None = None,
) -> None:
    """Refuse an output path before any work: one that cannot be written (a folder, a missing
    folder: :func:`dicejack.formats.check_output_file`), one that is a submission of `inputs`
    (by any spelling or link), and an existing file that is not empty and does not start with
    one of `ours` (the first bytes this tool writes there) nor is recognised by `recognise`
    (given its first 64 KiB): a run replaces only its own previous output."""
    if out is None:
        return
    try:
        check_output_file(out, option=option, hint=hint or None)
    except formats.FormatError as exc:
        raise _named(option, str(exc)) from None
    clash = same_as_any(out, inputs)
    if clash is not None:
        raise GradeError(Parameter(option), f" {out} is the submission {clash}; grading never "
                         "replaces a submission: give another ", Parameter(option))
    try:
        st = out.stat() if out.exists() or out.is_symlink() else None
    except (OSError, ValueError):
        st = None
    if st is None:
        return
    if not stat.S_ISREG(st.st_mode):
        raise GradeError(Parameter(option), f" {out} exists and is not a regular file; give "
                         "another ", Parameter(option))
    if st.st_size and not any(starts_with(out, first) for first in ours) and not (
            recognise is not None and recognise(_head(out, 2**16) or b"")):
        raise GradeError(Parameter(option), f" {out} exists and is not {what}; move it away or "
                         "give another ", Parameter(option))


def _named(option: str, message: str) -> GradeError:
    """A GradeError of `message` (formats' words for a path given as `option`), the option
    marked as the parameter it is where the message names it first."""
    if message.startswith(option + " "):
        return GradeError(Parameter(option), message[len(option):])
    return GradeError(message)


def prepare_reports_folder(folder: Path | None) -> None:
    """Create the reports folder, or refuse it (:func:`dicejack.formats.ensure_output_folder`)."""
    if folder is not None:
        try:
            ensure_output_folder(folder, option="reports", what="reports folder")
        except formats.FormatError as exc:
            raise _named("reports", str(exc)) from None
