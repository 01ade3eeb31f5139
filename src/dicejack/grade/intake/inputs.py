"""Collecting submissions as they arrive: files, folders (every subfolder, walked without
recursion) and zip archives (the bulk
downloads of Canvas, Moodle, Gradescope and Blackboard), each file with the student identifier
its LMS put in the name (read by :mod:`dicejack.grade.intake.lms_names`; docs/grading.md,
"Submissions
as they arrive").

Archives are read in memory, never extracted, within limits: MAX_SUBMISSION_BYTES per member (as
for files), InputLimits.archive_bytes unpacked in all and InputLimits.archive_members members per
archive, checked on the declared sizes and again on the bytes actually read (headers can lie).
Everything found becomes an :class:`Entry`; what cannot be read, or is not a program's output,
is an Entry that says why (a gradebook row), never an exception.
"""

from __future__ import annotations

import io
import os
import stat
import struct
import unicodedata
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from dicejack.formats.escape import safe_text
from dicejack.grade.intake.archives import (
    declared_members,
    error_reason,
    named_members,
    open_zip,
)
from dicejack.grade.intake.lms_names import (
    GRADESCOPE_METADATA,
    MAX_METADATA_BYTES,
    MetadataError,
    Student,
    batch_lms,
    deciding_name,
    file_owner,
    gradescope_students,
    name_matches,
    one_folder,
    receipt_reason,
    resolve,
)
from dicejack.grade.intake.reading import (
    MAX_SUBMISSION_BYTES,
    NotRegularFile,
    html_text,
    open_regular,
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

__all__ = ["MAX_SUBMISSION_BYTES", "MAX_ARCHIVE_BYTES", "MAX_ARCHIVE_MEMBERS", "MAX_FOLDER_FILES",
           "MAX_NESTING", "SKIPPED_EXTENSIONS", "SKIPPED_FOLDERS", "SKIPPED_FILES",
           "InputLimits", "Entry", "NotRegularFile", "collect", "skip_reason", "read_regular",
           "html_text", "display_name", "is_one_file", "too_large", "resolved_path"]

#: Most bytes read from one archive given (its nested archives included).
MAX_ARCHIVE_BYTES = 256 * 2**20
#: Most members one archive may hold (a Canvas download of 300 students holds about 1,000).
MAX_ARCHIVE_MEMBERS = 20_000
#: Most files looked at in one folder given (hidden folders are not searched).
MAX_FOLDER_FILES = 100_000
#: Archives inside archives are opened this deep (a student's zip in a Canvas download: 2).
MAX_NESTING = 2


@dataclass(frozen=True)
class InputLimits:
    """What one batch may unpack; the defaults are the module constants."""

    archive_bytes: int = MAX_ARCHIVE_BYTES
    archive_members: int = MAX_ARCHIVE_MEMBERS
    folder_files: int = MAX_FOLDER_FILES
    nesting: int = MAX_NESTING


@dataclass(frozen=True, eq=False)
class Entry:
    """One file found: read later from `path`, or already read (`data`, an archive member).
    `skipped` / `error` say why it is not graded; `html` marks a web page (an LMS text entry)
    whose text is graded."""

    label: str
    path: str | bytes | os.PathLike[str] | None = None
    data: bytes | None = field(default=None, repr=False)
    student: Student | None = None
    skipped: str = ""
    error: str = ""
    html: bool = False
    flags: tuple[str, ...] = ()  # identity-ambiguous: two LMSs name it and the batch cannot say


# --------------------------------------------------------------------------- names
def _only_escapes(text: str) -> bool:
    """True when every surrogate in `text` is a surrogateescape'd byte (U+DC80..U+DCFF)."""
    return all(0xDC80 <= ord(c) <= 0xDCFF for c in text if 0xD800 <= ord(c) <= 0xDFFF)


def display_name(path: str | os.PathLike[str] | bytes) -> str:
    """`path` as one printable line of valid UTF-8: undecodable bytes and lone surrogates as
    backslash escapes, control and bidirectional-override characters (newlines, NUL, ESC,
    U+202E) as ``\\xNN`` / ``\\uNNNN`` (:func:`dicejack.formats.escape.safe_text`); other
    text (CJK...) kept."""
    raw = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    text = raw.encode("utf-8", "surrogateescape" if _only_escapes(raw) else "backslashreplace")
    return safe_text(text.decode("utf-8", "backslashreplace"))


def too_large(label: str, size: int, declared: bool = False) -> str:
    """The one message for a file over MAX_SUBMISSION_BYTES."""
    how = " (declared)" if declared else ""
    return (f"refused {label}: {size / 2**20:.1f} MiB{how}, over the "
            f"{MAX_SUBMISSION_BYTES // 2**20} MiB limit")


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


_Key = tuple[int, tuple[str, ...]]  # (which path given, the parts inside it)
_Metadata = tuple[int, "str | bytes | None", str]  # (entry index, path or bytes, problem)

#: Why a submission_metadata.yml is not read, when it does not lie beside the submissions.
METADATA_NOT_BESIDE = ("a submission_metadata.yml inside a submission or beside no submission_<id> "
                       "folder, not read (only the export's own names the submitters)")
EARLIER_SITE = "dicejack's own earlier site (--html), not searched"
EARLIER_REPORT = "dicejack's own earlier report (--reports), not a submission"
LINK_OUT = "a symbolic link leading outside the folder given, not followed"
LINK_ACROSS = "not followed: a symbolic link leading outside the student's own folder"


def _inside_submission(parts: Sequence[str]) -> bool:
    """True when a folder or archive above the last of `parts` is named by an LMS (the file
    lies inside one student's submission)."""
    return any(name_matches(p, folder=not is_zip(p)) for p in parts[:-1])


def _owner_part(parts: tuple[str, ...], top: int, deepest: int) -> int:
    """The index of the part of `parts` that decides whose the file is: the outermost LMS name
    no deeper than `deepest`, else the part just below the path given (`top` parts), a
    per-student folder or archive, else the file itself."""
    i, _ = deciding_name(parts, deepest=deepest)
    return i if i >= 0 else min(top, len(parts) - 1)


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


def _skipped_folder(member: tuple[str, ...], sites: set[tuple[str, ...]]
                    ) -> tuple[int, str] | None:
    """The first folder of `member` that is skipped (its index and reason): a folder skipped
    by name, else one holding an earlier dicejack site; None when no folder is skipped."""
    where = next(((k, r) for k in range(len(member) - 1)
                  if (r := skip_reason(member[k], folder=True))), None)
    if where is None and sites:
        where = next(((k - 1, EARLIER_SITE) for k in range(len(member))
                      if member[:k] in sites), None)
    return where


class _Collector:
    """Walks one batch of inputs into entries, within `limits`; who each belongs to is decided
    once the whole batch is known (:meth:`identify`)."""

    def __init__(self, limits: InputLimits, outputs: Iterable[Path], output_folders: Iterable[Path]
                 ) -> None:
        self.limits = limits
        self.outputs = {p for p in (resolved_path(o) for o in outputs) if p is not None}
        self.output_folders = [p for p in (resolved_path(o) for o in output_folders)
                               if p is not None]
        self.entries: list[Entry] = []
        self.keys: list[_Key | None] = []  # beside each entry: where it lies, for its student
        self.metadata: dict[_Key, _Metadata] = {}  # by the folder holding the file
        self.index = -1  # of the path given being walked
        self.tops: list[int] = []  # per path given: how many parts name it (a per-student
        # folder or archive is the part below them)
        self.deepest: list[int] = []  # per path given: the deepest part an LMS name decides
        # from (the top of the download: deciding_name)

    def add(self, label: str, parts: Sequence[str], **kw: object) -> None:
        self.entries.append(Entry(label=label, **kw))  # type: ignore[arg-type]
        self.keys.append((self.index, tuple(parts)))

    def note(self, label: str, **kw: object) -> None:
        """An entry that belongs to no one (a folder not searched, a folder's own problem)."""
        self.entries.append(Entry(label=label, **kw))  # type: ignore[arg-type]
        self.keys.append(None)

    # ---- who each entry belongs to
    def identify(self) -> list[Entry]:
        """The entries with their students: each decided by the outermost LMS name above it at
        the level an LMS writes names, the top of the path given (or of the one folder a
        download is packed in, when that is all it holds): a name deeper, inside a student's
        folder or archive or a folder no LMS named, never decides
        (:func:`~dicejack.grade.intake.lms_names.deciding_name`), names two LMSs match by the LMS of
        the batch (:func:`~dicejack.grade.intake.lms_names.batch_lms`), else flagged
        ``identity-ambiguous`` with no student; a file no LMS name decides, inside a folder or
        archive just below a path given, belongs to that folder (its name, the archive's without
        .zip), unless the folder is an LMS download (an LMS name in it decides). Identifiers that
        differ only in case or Unicode form are one student (:func:`_one_spelling`)."""
        gradescope = self._read_metadata()
        decisions: list[dict[str, Student] | None] = []
        for key in self.keys:
            if key is None:
                decisions.append(None)
                continue
            index, parts = key
            deepest = self.deepest[index]
            i, found = deciding_name(parts, deepest=deepest)
            if "gradescope" in found:
                found = deciding_name(parts, gradescope.get((index, parts[:i]), {}),
                                      deepest=deepest)[1]
            decisions.append(found)
        lms = batch_lms(d for d in decisions if d)
        downloads = {self._top_folder(*k) for k, d in zip(self.keys, decisions, strict=True)
                     if d and k}
        out = []
        for entry, key, found in zip(self.entries, self.keys, decisions, strict=True):
            if found:
                student, ambiguous = resolve(found, lms)
                flags = ("identity-ambiguous",) if ambiguous else ()
                out.append(replace(entry, student=student, flags=flags))
            elif key is not None and self._top_folder(*key) not in downloads and (
                    key[1][-1:] != (GRADESCOPE_METADATA,)):
                out.append(replace(entry, student=self._folder_student(*key)))
            else:
                out.append(entry)
        return _one_spelling(out, self.keys)

    def _top_folder(self, index: int, parts: tuple[str, ...]) -> _Key:
        """The folder or archive just below the path given that holds a file (the file itself
        at the top): one in which an LMS name decides is a download, never a student's
        folder."""
        return (index, parts[:self.tops[index] + 1])

    def _folder_student(self, index: int, parts: tuple[str, ...]) -> Student | None:
        """The folder (or archive) just below the path given that holds a file no LMS named:
        that student's; None for a file at the top (its own name identifies it)."""
        top = self.tops[index]
        if len(parts) <= top + 1:
            return None
        name = parts[top]
        key = _stem(name) if is_zip(name) else name
        return Student(safe_text(unicodedata.normalize("NFC", key))) if key else None

    def _read_metadata(self) -> dict[_Key, dict[str, Student]]:
        """The Gradescope metadata files that lie beside a ``submission_<id>`` folder deciding
        some file of the batch, parsed (each at most once); every other one is a row saying
        why it was not read, and so is one that cannot be read."""
        wanted: set[_Key] = set()
        for key in self.keys:
            if key is not None:
                i, found = deciding_name(key[1], deepest=self.deepest[key[0]])
                if "gradescope" in found:
                    wanted.add((key[0], key[1][:i]))
        known: dict[_Key, dict[str, Student]] = {}
        for where, (at, source, problem) in self.metadata.items():
            if where not in wanted:
                reason = METADATA_NOT_BESIDE
            else:
                if not problem and isinstance(source, str):
                    try:
                        source = read_regular(source, MAX_METADATA_BYTES)
                    except (OSError, NotRegularFile, ValueError) as exc:
                        problem = error_reason(exc)
                problems: list[str] = []
                if not problem and isinstance(source, bytes):
                    try:
                        known[where] = gradescope_students(source, problems)
                    except MetadataError as exc:
                        problem = str(exc)
                if problem:
                    reason = (f"the Gradescope export's metadata, not read: {problem}; its "
                              "submissions keep their submission_<id> names")
                elif problems:
                    more = f" and {len(problems) - 3:,} more" if len(problems) > 3 else ""
                    reason = (f"{METADATA_READ}; not named by it (they keep their "
                              f"submission_<id> names): {'; '.join(problems[:3])}{more}")
                else:
                    reason = METADATA_READ
            self.entries[at] = replace(self.entries[at], skipped=reason)
        return known

    def found_metadata(self, parts: tuple[str, ...], label: str, source: str | bytes | None,
                       problem: str = "") -> None:
        """A submission_metadata.yml at `parts` (its path, its bytes, or why they could not be
        read): a skipped row, read later only when it lies beside the submissions."""
        if _inside_submission(parts):
            self.add(label, parts, skipped=METADATA_NOT_BESIDE)
            return
        self.metadata[(self.index, parts[:-1])] = (len(self.entries), source, problem)
        self.add(label, parts, skipped=METADATA_READ)

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
            self.archive_file(raw, label, base)
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
        if found and all(len(p) > top + 1 and p[top] == _stem(base[-1]) for _, p in found):
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
                self.archive_file(path, label, parts)
                return
        self.add(label, parts, path=path, html=is_html(name))

    # ---- archives
    def archive_file(self, raw: str | bytes | os.PathLike[str], label: str,
                     parts: Sequence[str]) -> None:
        try:
            fd = open_regular(raw)
        except NotRegularFile:
            self.add(label, parts, error=f"cannot read {label}: not a regular file")
            return
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.add(label, parts, error=f"cannot read {label}: {reason}")
            return
        with os.fdopen(fd, "rb") as fh:
            self.archive(fh, label, parts, depth=1, budget=[self.limits.archive_bytes])

    def archive(self, fh: BinaryIO, label: str, parts: Sequence[str], depth: int,
                budget: list[int]) -> bool:
        """Add the entries of one archive; False when the unpacked budget of the archive given
        is spent (nothing more of it is read)."""
        def fail(message: str) -> bool:
            self.add(label, parts, error=message)
            return True

        declared = declared_members(fh)
        if declared is not None and declared > self.limits.archive_members:
            return fail(f"refused {label}: {declared:,} members, over the "
                        f"{self.limits.archive_members:,} limit")
        zf, problem = open_zip(fh, label)
        if zf is None:
            return fail(problem)
        with zf:
            infos = [i for i in zf.infolist() if not i.filename.endswith(("/", "\\"))
                     or not i.filename.strip("/\\")]
            if len(infos) > self.limits.archive_members:
                return fail(f"refused {label}: {len(infos):,} members, over the "
                            f"{self.limits.archive_members:,} limit")
            if not infos:
                return fail(f"{label} is an empty archive: no file to grade")
            plan = self._archive_plan(infos, label)
            candidates = [i for i, _, r, bad in plan if not bad and r in ("", METADATA_READ)
                          and i.file_size <= MAX_SUBMISSION_BYTES]
            total = sum(i.file_size for i in candidates)
            if total > budget[0]:
                return fail(f"refused {label}: would unpack to {total / 2**20:,.1f} MiB, "
                            f"over the {self.limits.archive_bytes / 2**20:,.1f} MiB limit "
                            "(a zip bomb?)")
            return self._unpack(zf, plan, label, parts, depth, budget)

    def _archive_plan(self, infos: Sequence[zipfile.ZipInfo], label: str
                      ) -> list[tuple[zipfile.ZipInfo, tuple[str, ...], str, bool]]:
        """What to do with each member, in name order: (info, parts, reason, refused); members
        of skipped folders (and of an earlier site) left out, each folder noted once."""
        named, siblings = named_members(infos)
        sites = {m[:-1] for _, m, problem in named if not problem and m[-1] == SITE_MARKER}
        plan: list[tuple[zipfile.ZipInfo, tuple[str, ...], str, bool]] = []
        folders_skipped: dict[str, str] = {}
        for info, member, problem in sorted(named, key=lambda t: t[1]):
            if problem:
                plan.append((info, member, problem, True))
                continue
            where = _skipped_folder(member, sites)
            if where is not None:
                key = "/".join(member[:where[0] + 1]) + "/"
                folders_skipped.setdefault(key, where[1])
                continue
            reason = skip_reason(member[-1]) or receipt_reason(
                member[-1], siblings[member[:-1]])
            plan.append((info, member, reason, False))
        for key, reason in folders_skipped.items():
            self.note(f"{label}!{display_name(key)}", skipped=reason)
        return plan

    def _unpack(self, zf: zipfile.ZipFile,
                plan: Sequence[tuple[zipfile.ZipInfo, tuple[str, ...], str, bool]], label: str,
                parts: Sequence[str], depth: int, budget: list[int]) -> bool:
        """Add every planned member's entry (a refused one as an error); False when the
        archive's unpacked budget is spent."""
        for info, member, reason, refused in plan:
            if refused:
                label_m = f"{label}!{display_name(info.filename or '(unnamed)')}"
                self.add(label_m, (*parts, *member), error=f"refused {label_m}: {reason}")
                continue
            if not self.member(zf, info, member, reason, label, parts, depth, budget):
                return False
        return True

    def _read_member(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo, label: str
                     ) -> tuple[bytes | None, str]:
        try:
            with zf.open(info) as fh:
                return fh.read(MAX_SUBMISSION_BYTES + 1), ""
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, ValueError,
                NotImplementedError, zlib.error, struct.error) as exc:
            return None, f"cannot read {label}: damaged ({error_reason(exc)})"

    def member(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo, member: tuple[str, ...],
               reason: str, archive: str, archive_parts: Sequence[str], depth: int,
               budget: list[int]) -> bool:
        """Add one member's entry (or its nested archive's); False when the archive's unpacked
        budget is spent (the rest of it is not read)."""
        label = f"{archive}!{display_name('/'.join(member))}"
        parts = (*archive_parts, *member)
        if reason == METADATA_READ:
            data, problem = None, ""
            if info.flag_bits & 0x1:
                problem = "encrypted (password)"
            elif info.file_size > MAX_SUBMISSION_BYTES:
                problem = too_large(label, info.file_size, declared=True)
            elif not _inside_submission(parts):
                data, problem = self._read_member(zf, info, label)
                budget[0] -= len(data) if data is not None else 0
            self.found_metadata(parts, label, data, problem)
            return budget[0] >= 0
        if reason:
            self.add(label, parts, skipped=reason)
            return budget[0] >= 0
        if info.flag_bits & 0x1:
            self.add(label, parts, error=f"cannot read {label}: encrypted (password)")
            return True
        if info.file_size > MAX_SUBMISSION_BYTES:
            self.add(label, parts, error=too_large(label, info.file_size, declared=True))
            return True
        nested = is_zip(member[-1])
        if nested and depth >= self.limits.nesting:
            self.add(label, parts, error=(
                f"refused {label}: an archive nested more than {self.limits.nesting} deep"))
            return True
        data, problem = self._read_member(zf, info, label)
        if data is None:
            self.add(label, parts, error=problem)
            return True
        budget[0] -= len(data)
        if budget[0] < 0:
            self.add(archive, archive_parts, error=(
                f"refused the rest of {archive}: it unpacks to more than "
                f"{self.limits.archive_bytes / 2**20:,.1f} MiB (a zip bomb?)"))
            return False
        if len(data) > MAX_SUBMISSION_BYTES:
            self.add(label, parts, error=too_large(label, len(data)) + (
                f" (the archive declared {info.file_size:,} bytes)"))
            return True
        if nested:
            return self.archive(io.BytesIO(data), label, parts, depth + 1, budget)
        if member[-1].lower().endswith(".md") and data.startswith(REPORT_FIRST_BYTES):
            self.add(label, parts, skipped=EARLIER_REPORT)
            return True
        self.add(label, parts, data=data, html=is_html(member[-1]))
        return True


def _members(e: Entry) -> list[str]:
    """The identifiers an entry counts for, as :func:`dicejack.grade.scoring.students.owner_ids`
    will
    read them (a skipped file nobody named counts for no one)."""
    if e.student is not None:
        return e.student.id.split(";") if e.student.lms == "gradescope" else [e.student.id]
    return [] if e.skipped else [file_owner(e.label)]


def _nfc(identifier: str) -> str:
    return unicodedata.normalize("NFC", identifier)


def _one_spelling(entries: list[Entry], keys: Sequence[_Key | None]) -> list[Entry]:
    """Identifiers that differ only in Unicode form (an accented name typed in NFC and in NFD)
    are one student, spelled in NFC; identifiers that differ in case (``Alice`` and
    ``alice``) are one student, spelled as first found, each of their files flagged
    ``identity-ambiguous`` (a person should check): the gradebook and the LMS grades never
    hold two rows one import would take for the same student."""
    spellings: dict[str, list[str]] = {}
    for e, key in zip(entries, keys, strict=True):
        if key is not None:
            for m in _members(e):
                seen = spellings.setdefault(_nfc(m).casefold(), [])
                if _nfc(m) not in seen:
                    seen.append(_nfc(m))
    out = []
    for e, key in zip(entries, keys, strict=True):
        members = _members(e) if key is not None else []
        canonical = [spellings[_nfc(m).casefold()] for m in members]
        clash = any(len(c) > 1 for c in canonical)
        if members == [c[0] for c in canonical] and not clash:
            out.append(e)
            continue
        ident = ";".join(c[0] for c in canonical)
        student = replace(e.student, id=ident) if e.student is not None else Student(ident)
        flags = e.flags
        if clash and "identity-ambiguous" not in flags:
            flags = (*flags, "identity-ambiguous")
        out.append(replace(e, student=student, flags=flags))
    return out


def resolved_path(path: str | bytes | os.PathLike[str]) -> Path | None:
    """`path` made absolute with links followed (it need not exist); None when it cannot be (a
    NUL in it, a link loop): the one way inputs and outputs are compared."""
    try:
        raw = os.fsdecode(path) if isinstance(path, bytes) else path
        return Path(raw).resolve(strict=False)
    except (OSError, ValueError, TypeError, RuntimeError):
        return None


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
