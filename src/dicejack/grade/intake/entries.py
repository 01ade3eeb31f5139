"""A batch's entries as found, and whose each is: the :class:`Entry` rows and the
:class:`InputLimits` a batch is read within, every entry recorded with where it lies
(:class:`FoundEntries`), and the student each belongs to decided once the whole batch is known
(:meth:`FoundEntries.identify`: LMS names at the LMS's level, Gradescope's metadata, per-student
folders, one spelling per student). Finding the files is :mod:`dicejack.grade.intake.inputs`
(files and folders) and :mod:`dicejack.grade.intake.zip_members` (zip archives)."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from dicejack.formats.escape import safe_text
from dicejack.grade.intake.archives import error_reason
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
    resolve,
)
from dicejack.grade.intake.reading import MAX_SUBMISSION_BYTES, NotRegularFile, read_regular
from dicejack.grade.intake.skip_rules import METADATA_READ, is_zip

__all__ = ["MAX_ARCHIVE_BYTES", "MAX_ARCHIVE_MEMBERS", "MAX_FOLDER_FILES", "MAX_NESTING",
           "InputLimits", "Entry", "EntryKey", "FoundEntries", "display_name", "too_large",
           "resolved_path", "inside_submission", "name_stem", "METADATA_NOT_BESIDE",
           "EARLIER_SITE", "EARLIER_REPORT"]

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


def resolved_path(path: str | bytes | os.PathLike[str]) -> Path | None:
    """`path` made absolute with links followed (it need not exist); None when it cannot be (a
    NUL in it, a link loop): the one way inputs and outputs are compared."""
    try:
        raw = os.fsdecode(path) if isinstance(path, bytes) else path
        return Path(raw).resolve(strict=False)
    except (OSError, ValueError, TypeError, RuntimeError):
        return None


EntryKey = tuple[int, tuple[str, ...]]  # (which path given, the parts inside it)
_Metadata = tuple[int, "str | bytes | None", str]  # (entry index, path or bytes, problem)

#: Why a submission_metadata.yml is not read, when it does not lie beside the submissions.
METADATA_NOT_BESIDE = ("a submission_metadata.yml inside a submission or beside no submission_<id> "
                       "folder, not read (only the export's own names the submitters)")
EARLIER_SITE = "dicejack's own earlier site (--html), not searched"
EARLIER_REPORT = "dicejack's own earlier report (--reports), not a submission"


def inside_submission(parts: Sequence[str]) -> bool:
    """True when a folder or archive above the last of `parts` is named by an LMS (the file
    lies inside one student's submission)."""
    return any(name_matches(p, folder=not is_zip(p)) for p in parts[:-1])


def name_stem(name: str) -> str:
    """`name` without its last extension (a dotfile's name kept whole)."""
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


class FoundEntries:
    """The entries of one batch as they are found, within `limits`, each with where it lies;
    who each belongs to is decided once the whole batch is known (:meth:`identify`)."""

    def __init__(self, limits: InputLimits) -> None:
        self.limits = limits
        self.entries: list[Entry] = []
        self.keys: list[EntryKey | None] = []  # beside each entry: where it lies, for its student
        self.metadata: dict[EntryKey, _Metadata] = {}  # by the folder holding the file
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

    def _top_folder(self, index: int, parts: tuple[str, ...]) -> EntryKey:
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
        key = name_stem(name) if is_zip(name) else name
        return Student(safe_text(unicodedata.normalize("NFC", key))) if key else None

    def _read_metadata(self) -> dict[EntryKey, dict[str, Student]]:
        """The Gradescope metadata files that lie beside a ``submission_<id>`` folder deciding
        some file of the batch, parsed (each at most once); every other one is a row saying
        why it was not read, and so is one that cannot be read."""
        wanted: set[EntryKey] = set()
        for key in self.keys:
            if key is not None:
                i, found = deciding_name(key[1], deepest=self.deepest[key[0]])
                if "gradescope" in found:
                    wanted.add((key[0], key[1][:i]))
        known: dict[EntryKey, dict[str, Student]] = {}
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
        if inside_submission(parts):
            self.add(label, parts, skipped=METADATA_NOT_BESIDE)
            return
        self.metadata[(self.index, parts[:-1])] = (len(self.entries), source, problem)
        self.add(label, parts, skipped=METADATA_READ)


def _members(e: Entry) -> list[str]:
    """The identifiers an entry counts for, as :func:`dicejack.grade.scoring.students.owner_ids`
    will
    read them (a skipped file nobody named counts for no one)."""
    if e.student is not None:
        return e.student.id.split(";") if e.student.lms == "gradescope" else [e.student.id]
    return [] if e.skipped else [file_owner(e.label)]


def _nfc(identifier: str) -> str:
    return unicodedata.normalize("NFC", identifier)


def _one_spelling(entries: list[Entry], keys: Sequence[EntryKey | None]) -> list[Entry]:
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
