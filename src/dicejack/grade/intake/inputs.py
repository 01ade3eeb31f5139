"""Collecting submissions as they arrive: the paths given walked into entries, files as given
and folders searched through every subfolder (walked without recursion), the zip archives found
read by :mod:`dicejack.grade.intake.zip_members` (the bulk downloads of Canvas, Moodle,
Gradescope and Blackboard), each entry then given the student identifier its LMS put in the name
(:meth:`dicejack.grade.intake.entries.FoundEntries.identify`, reading
:mod:`dicejack.grade.intake.lms_names`; docs/grading.md, "Submissions as they arrive").

Everything found becomes an :class:`~dicejack.grade.intake.entries.Entry`; what cannot be read,
or is not a program's output, is an Entry that says why (a gradebook row), never an exception.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from dicejack.grade.intake.entries import (
    EARLIER_REPORT,
    EARLIER_SITE,
    MAX_ARCHIVE_BYTES,
    MAX_ARCHIVE_MEMBERS,
    MAX_FOLDER_FILES,
    MAX_NESTING,
    Entry,
    FoundEntries,
    InputLimits,
    display_name,
    name_stem,
    resolved_path,
    too_large,
)
from dicejack.grade.intake.lms_names import (
    GRADESCOPE_METADATA,
    deciding_name,
    one_folder,
    receipt_reason,
)
from dicejack.grade.intake.reading import (
    MAX_SUBMISSION_BYTES,
    NotRegularFile,
    html_text,
    read_regular,
)
from dicejack.grade.intake.skip_rules import (
    METADATA_READ,
    REPORT_FIRST_BYTES,
    SITE_MARKER,
    SKIPPED_EXTENSIONS,
    SKIPPED_FILES,
    SKIPPED_FOLDERS,
    is_html,
    is_zip,
    skip_reason,
)
from dicejack.grade.intake.zip_members import archive_file

__all__ = ["MAX_SUBMISSION_BYTES", "MAX_ARCHIVE_BYTES", "MAX_ARCHIVE_MEMBERS", "MAX_FOLDER_FILES",
           "MAX_NESTING", "SKIPPED_EXTENSIONS", "SKIPPED_FOLDERS", "SKIPPED_FILES",
           "InputLimits", "Entry", "NotRegularFile", "collect", "skip_reason", "read_regular",
           "html_text", "display_name", "is_one_file", "too_large", "resolved_path"]


# --------------------------------------------------------------------- collecting
def is_one_file(paths: Sequence[str | bytes | os.PathLike[str]]) -> bool:
    """True when `paths` is one path that is not a folder nor a .zip archive: a student checking
    their own output (the command line then prints a report instead of writing a gradebook)."""
    if len(paths) != 1:
        return False
    raw = paths[0]
    name = os.fsdecode(raw) if isinstance(raw, bytes) else os.fspath(raw)
    try:
        folder = os.path.isdir(raw)
    except (OSError, ValueError, TypeError):
        folder = False
    return not folder and not is_zip(name)


LINK_OUT = "a symbolic link leading outside the folder given, not followed"
LINK_ACROSS = "not followed: a symbolic link leading outside the student's own folder"


def _owner_part(parts: tuple[str, ...], top: int, deepest: int) -> int:
    """The index of the part of `parts` that decides whose the file is: the outermost LMS name
    no deeper than `deepest`, else the part just below the path given (`top` parts), a
    per-student folder or archive, else the file itself."""
    i, _ = deciding_name(parts, deepest=deepest)
    return i if i >= 0 else min(top, len(parts) - 1)


class _Collector(FoundEntries):
    """Walks one batch of inputs into entries, within `limits`, this run's own outputs
    skipped."""

    def __init__(self, limits: InputLimits, outputs: Iterable[Path], output_folders: Iterable[Path]
                 ) -> None:
        super().__init__(limits)
        self.outputs = {p for p in (resolved_path(o) for o in outputs) if p is not None}
        self.output_folders = [p for p in (resolved_path(o) for o in output_folders)
                               if p is not None]

    # ---- one path given
    def given(self, raw: str | bytes | os.PathLike[str]) -> None:
        self.index += 1
        name = os.fsdecode(raw) if isinstance(raw, bytes) else os.fspath(raw)
        label = display_name(raw)
        base = _base_name(name)
        self.tops.append(len(base))
        self.deepest.append(len(base))
        try:
            st = os.stat(raw)
        except (OSError, ValueError, TypeError):
            st = None  # grading the file says why it cannot be read
        if st is not None and stat.S_ISDIR(st.st_mode):
            self.folder(name, label, base)
        elif st is not None and stat.S_ISREG(st.st_mode) and is_zip(name):
            start = len(self.keys)
            archive_file(self, raw, label, base)
            self._unwrap(start, base)
        else:
            self.add(label, base, path=raw, html=is_html(name))

    def _unwrap(self, start: int, base: tuple[str, ...]) -> None:
        """A zip given that holds only Gradescope's export folder or a folder of its own name
        (the files a search skips aside): the LMS names are the ones inside it
        (:func:`~dicejack.grade.intake.lms_names.one_folder`); of its own name
        (``subs.zip!subs/...``, a folder compressed): so are the per-student folders."""
        if not base:
            return
        top = len(base)
        found = [(e, k[1]) for e, k in zip(self.entries[start:], self.keys[start:], strict=True)
                 if k is not None]
        kept = [p for e, p in found if not e.skipped]
        if kept and all(len(p) > top for p in kept) and one_folder(
                ((p[top], len(p) > top + 1) for p in kept), base[-1]):
            self.deepest[self.index] = top + 1
        if found and all(len(p) > top + 1 and p[top] == name_stem(base[-1]) for _, p in found):
            self.tops[self.index] = top + 1

    # ---- folders
    def folder(self, root: str, label: str, base: tuple[str, ...]) -> None:
        """Search `root` in name order, each folder's files before its subfolders, without
        recursion (a folder nested thousands deep is walked like any other)."""
        start = len(self.entries)
        seen = 0
        problems: list[str] = []
        inside = resolved_path(root)
        if _holds_site(root):
            self.note(label + "/", skipped=EARLIER_SITE)
            return
        stack: list[tuple[str, tuple[str, ...]]] = [(root, base)]
        at_top = True
        while stack:
            dirpath, dirparts = stack.pop()
            try:
                with os.scandir(dirpath) as it:
                    listing = sorted(((e.name, _is_dir(e)) for e in it), key=lambda t: t[0])
            except OSError as exc:
                where = display_name(exc.filename) if exc.filename else label
                problems.append(f"cannot read folder {where}: {exc.strerror or exc}")
                continue
            filenames = [n for n, d in listing if not d]
            subfolders = []
            for d in (n for n, is_dir in listing if is_dir):
                full = os.path.join(dirpath, d)
                reason = skip_reason(d, folder=True)
                if not reason and os.path.islink(full):
                    reason = "a symbolic link to a folder, not followed"
                if not reason and self.output_folders and self._output_folder(full):
                    reason = "dicejack's own reports folder (--reports), not searched"
                if not reason and _holds_site(full):
                    reason = EARLIER_SITE
                if reason:
                    self.note(display_name(full) + "/", skipped=reason)
                else:
                    subfolders.append((full, (*dirparts, d)))
            if at_top:  # only the folder a download is packed in: its entries are the LMS's
                at_top = False
                top = [*((f, False) for f in filenames if not skip_reason(f)),
                       *((parts[-1], True) for _, parts in subfolders)]
                if base and one_folder(top, base[-1]):
                    self.deepest[self.index] = len(base) + 1
            for f in filenames:
                seen += 1
                if seen > self.limits.folder_files:
                    del self.entries[start:]
                    del self.keys[start:]
                    self.metadata = {k: v for k, v in self.metadata.items() if v[0] < start}
                    self.note(label, error=(
                        f"folder {label} holds more than {self.limits.folder_files:,} files; "
                        "give its subfolders one by one"))
                    return
                self.found_file(os.path.join(dirpath, f), (*dirparts, f), filenames, inside)
            stack.extend(reversed(subfolders))
        for problem in problems:
            self.note(label, error=problem)
        if len(self.entries) == start:
            self.note(label, error=f"folder {label} holds no files to grade")

    def _output_folder(self, path: str) -> bool:
        resolved = resolved_path(path)
        return resolved is not None and resolved in self.output_folders

    def _link_reason(self, path: str, parts: tuple[str, ...], inside: Path | None) -> str:
        """Why a symbolic link to a file is not followed: it leads outside the folder given, or
        outside the folder (or file) that decides whose it is; "" when it stays inside."""
        target = resolved_path(path)
        if inside is None or target is None or (target != inside
                                                and inside not in target.parents):
            return LINK_OUT
        top = self.tops[self.index]
        base = parts[:top]
        target_parts = (*base, *target.relative_to(inside).parts)
        deepest = self.deepest[self.index]
        mine = _owner_part(parts, top, deepest)
        theirs = _owner_part(target_parts, top, deepest)
        if mine == len(parts) - 1 or parts[:mine + 1] != target_parts[:theirs + 1]:
            return LINK_ACROSS
        return ""

    def found_file(self, path: str, parts: tuple[str, ...], siblings: Sequence[str],
                   inside: Path | None) -> None:
        name = os.path.basename(path)
        label = display_name(path)
        reason = skip_reason(name) or receipt_reason(name, siblings)
        if not reason and os.path.islink(path):
            reason = self._link_reason(path, parts, inside)
        if not reason and (self.outputs or self.output_folders):
            resolved = resolved_path(path)
            if resolved is not None and (resolved in self.outputs or any(
                    folder in resolved.parents for folder in self.output_folders)):
                reason = "dicejack's own output of this run, not a submission"
        if not reason and name.lower().endswith(".md") and _earlier_report(path):
            reason = EARLIER_REPORT
        if name == GRADESCOPE_METADATA and reason == METADATA_READ:
            self.found_metadata(parts, label, path)
            return
        if reason:
            self.add(label, parts, skipped=reason)
            return
        if is_zip(name):
            try:
                st = os.stat(path)
            except OSError:
                st = None
            if st is not None and stat.S_ISREG(st.st_mode):
                archive_file(self, path, label, parts)
                return
        self.add(label, parts, path=path, html=is_html(name))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A folder (or a link to one: said and not followed), as os.walk lists them."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _holds_site(folder: str) -> bool:
    """True when `folder` is a site dicejack wrote (--html), by the marker file it holds."""
    try:
        return os.path.isfile(os.path.join(folder, SITE_MARKER))
    except (OSError, ValueError):
        return False


def _earlier_report(path: str) -> bool:
    """True when the .md file at `path` is a report dicejack wrote (--reports), by its first
    bytes."""
    try:
        return read_regular(path, len(REPORT_FIRST_BYTES) - 1) == REPORT_FIRST_BYTES
    except (OSError, NotRegularFile, ValueError):
        return False


def _base_name(path: str) -> tuple[str, ...]:
    """The name of a path given, as the first part of everything found in it (the folders above
    it are the instructor's, never a student's name)."""
    try:
        name = os.path.basename(os.path.normpath(os.path.abspath(path)))
    except (ValueError, TypeError):
        name = os.path.basename(path)
    return (name,) if name else ()


def collect(
    paths: Sequence[str | bytes | os.PathLike[str]],
    *,
    limits: InputLimits | None = None,
    outputs: Iterable[str | os.PathLike[str]] = (),
    output_folders: Iterable[str | os.PathLike[str]] = (),
) -> list[Entry]:
    """Every submission file in `paths`, in order: a file as given (always graded, whatever its
    name), a folder searched through every subfolder (sorted; hidden and system folders and
    files, documents, images and source code, dicejack's earlier sites and reports skipped with
    the reason; symbolic links to folders, and to files outside the student's own folder, not
    followed), a
    .zip archive read in memory (nested archives too, MAX_NESTING deep), within `limits`.

    `outputs` / `output_folders`: this run's own output files and reports folder: found while
    searching, they are skipped (never graded, never counted as submissions). A folder that
    yields nothing, an unreadable or absurd archive, each bad member: an Entry with `error`.
    Never raises for a bad input."""
    collector = _Collector(limits or InputLimits(), [Path(o) for o in outputs],
                           [Path(o) for o in output_folders])
    for raw in paths:
        collector.given(raw)
    return collector.identify()
