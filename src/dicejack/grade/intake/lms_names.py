"""Who a submission file belongs to, from the names a learning-management system gives files and
folders in its bulk download (Canvas, Moodle, Gradescope, Blackboard): the :class:`Student`, the
name patterns, the Gradescope export's metadata and the Blackboard receipt rule (docs/grading.md,
"Student identifiers from LMS file names"). Names only: nothing here reads a file; collecting
them is :mod:`dicejack.grade.intake.inputs`, grades back to an LMS
:mod:`dicejack.grade.outputs.lms`."""

from __future__ import annotations

import datetime as dt
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dicejack.formats.escape import safe_text

__all__ = ["Student", "LMS_NAMES", "MAX_METADATA_BYTES", "MAX_ID_CHARS", "MAX_SUBMITTERS",
           "MetadataError", "canvas_student", "moodle_student", "blackboard_match",
           "name_matches", "LMS_LEVEL", "one_folder", "deciding_name", "batch_lms", "resolve",
           "lms_student", "gradescope_students", "receipt_reason", "GRADESCOPE_METADATA",
           "GRADESCOPE_EXPORT", "file_owner"]


@dataclass(frozen=True)
class Student:
    """Who a file belongs to, as its LMS named it: `id` is the LMS's own identifier (Canvas user
    id or ``anon_...``, Moodle participant number, Gradescope SID or e-mail, Blackboard user
    name; group members `;`-separated), `lms` one of canvas, moodle, gradescope, blackboard."""

    id: str
    name: str = ""
    lms: str = ""
    late: bool = False  # the LMS marked the file late (Canvas `_LATE`)
    order: str = ""  # sorts a student's files by submission (Canvas attachment id, Blackboard
    # attempt time): the larger, the later; "" when the name does not tell


# ------------------------------------------------------------------ the LMS patterns
# Every pattern reads only the part of a name the LMS wrote, anchored where the LMS put it, with
# ASCII digits only (a fullwidth or Arabic-Indic digit is never an id) and capped lengths: the
# rest of the name (the student's own file name) can never move the match.

#: Canvas (lib/content_zipper.rb): `<name>[_LATE]_<user id>_<attachment id>_<file name>`, a text
#: entry or URL `<name>[_LATE]_<user id>_text.html` / `_link.html`; anonymous grading
#: `[LATE_]anon_<id>_...`. `<name>` is the sortable name lower-cased with only word characters
#: kept, and Canvas removes every `_<digits>_` from it: so the name ends at the first
#: `_<ASCII digits>` or `_LATE_`, read from the left (:func:`canvas_student`).
CANVAS_ANON_ID = re.compile(r"[A-Za-z0-9]{1,40}", re.ASCII)
CANVAS_TEXT_ENTRIES = ("text.html", "link.html")
_NAME_TOKEN = re.compile(r"[^\W_]*")  # Unicode word characters, no underscore
#: Moodle (mod/assign, download_submissions): the prefix `<full name>_<participant number>_`
#: with every `_` of the full name (and team name) made a space, then `assignsubmission_
#: <plugin>_`: a folder named exactly so ("download submissions in folders", the default) or a
#: file name starting so. A file's prefix is read from the left (its name holds no `_`); a
#: folder's whole name is Moodle's, read to its end (the last `_<n>_assignsubmission_..._`).
MOODLE_FILE = re.compile(r"(?P<name>[^_]*)_(?P<id>[0-9]{1,20})_assignsubmission_"
                         r"(?P<plugin>[a-z]{1,40})_(?P<file>.*)", re.ASCII | re.DOTALL)
MOODLE_FOLDER = re.compile(r"(?P<name>.*)_(?P<id>[0-9]{1,20})_assignsubmission_"
                           r"(?P<plugin>[a-z]{1,40})_", re.ASCII | re.DOTALL)
#: Blackboard Learn ("Assignment File Download"): `<assignment>_<user name>_attempt_<yyyy-mm-dd-
#: hh-mm-ss>_<file name>`, and `..._attempt_<date>.txt`, the receipt of the attempt. The first
#: `_<user>_attempt_<date>` from the left is Blackboard's, and only with a real date.
BLACKBOARD = re.compile(r"(?P<assignment>.*?)_(?P<id>[^_;/\\]{1,100})_attempt_"
                        r"(?P<when>[0-9]{4}(?:-[0-9]{2}){5})(?:_(?P<file>.+)|(?P<receipt>\.txt))",
                        re.ASCII | re.DOTALL)
#: Gradescope ("Export Submissions"): one folder `submission_<id>` per submission, and
#: `submission_metadata.yml` naming its submitters beside them.
GRADESCOPE = re.compile(r"submission_(?P<id>[0-9]{1,20})", re.ASCII)
GRADESCOPE_METADATA = "submission_metadata.yml"
#: The one folder a Gradescope export zip holds, the submissions and the metadata inside it.
GRADESCOPE_EXPORT = re.compile(r"assignment_[0-9]{1,20}_export", re.ASCII)

#: The LMSs whose names are read, in the order a tie between them is reported.
LMS_NAMES = ("canvas", "moodle", "gradescope", "blackboard")
#: Larger Gradescope metadata files are not parsed: a 1,000-student export is about 0.5 MiB, and
#: PyYAML takes about 1.6 s per MiB of crafted aliases (19 s for 12 MiB), so 4 MiB (8,000
#: students) bounds what one file can cost.
MAX_METADATA_BYTES = 4 * 2**20
#: Longest identifier or name kept from a name or the metadata (an e-mail address is at most
#: 254 characters); a longer one names no one.
MAX_ID_CHARS = 254
#: Most submitters of one Gradescope submission (a group); more names no one.
MAX_SUBMITTERS = 100


def _nfc(text: str) -> str:
    """`text` in Unicode NFC: a name typed on macOS (NFD) and elsewhere (NFC) is one name."""
    return unicodedata.normalize("NFC", text)


def _student(id_: str, name: str, lms: str, late: bool = False, order: str = "") -> Student:
    return Student(safe_text(_nfc(id_)), safe_text(_nfc(name)), lms, late, order)


def _ascii_digits(token: str) -> bool:
    return token.isascii() and token.isdigit()


def _number(token: str) -> bool:
    """An LMS number: ASCII digits, at most 20 of them."""
    return _ascii_digits(token) and len(token) <= 20


def _name_token(token: str) -> bool:
    """A piece of a Canvas name between underscores: lower-case word characters, never only
    ASCII digits (Canvas removes `_<digits>_` from names)."""
    return (_NAME_TOKEN.fullmatch(token) is not None and token == token.lower()
            and not (token and _ascii_digits(token)))


def canvas_student(part: str) -> Student | None:
    """The student of one Canvas file name, read from the left: the name up to the first
    `_LATE_` or `_<digits>`, then the user id, then the attachment id and the student's own
    file name, or the text entry's `text.html` / `link.html`; None when it is not one."""
    tokens = part.split("_")
    late = tokens[0] == "LATE" and len(tokens) > 1 and tokens[1] == "anon"
    at = 1 if late else 0
    if tokens[at] == "anon" and len(tokens) >= at + 4:
        anon, attachment, rest = tokens[at + 1], tokens[at + 2], tokens[at + 3:]
        if CANVAS_ANON_ID.fullmatch(anon) and _number(attachment) and "_".join(rest):
            return _student(f"anon_{anon}", "", "canvas", late, attachment.zfill(20))
    if not tokens[0] or not _name_token(tokens[0]):
        return None
    k = 1
    while k < len(tokens) and tokens[k] != "LATE" and not _ascii_digits(tokens[k]):
        if not _name_token(tokens[k]):
            return None
        k += 1
    name, late = "_".join(tokens[:k]), k < len(tokens) and tokens[k] == "LATE"
    k += late
    if k >= len(tokens) or not _number(tokens[k]):
        return None
    user, rest = tokens[k], tokens[k + 1:]
    if len(rest) == 1 and rest[0] in CANVAS_TEXT_ENTRIES:
        return _student(user, name, "canvas", late)
    if len(rest) >= 2 and _number(rest[0]) and "_".join(rest[1:]):
        return _student(user, name, "canvas", late, rest[0].zfill(20))
    return None


def moodle_student(part: str, *, folder: bool) -> Student | None:
    """The student of one Moodle name: a folder named exactly `<name>_<n>_assignsubmission_
    <plugin>_`, or a file name starting so (its full name holds no `_`)."""
    m = (MOODLE_FOLDER if folder else MOODLE_FILE).fullmatch(part)
    if m is None:
        return None
    name = m["name"].strip()  # "Participant" under blind marking: no name
    return _student(m["id"], "" if name == "Participant" else name, "moodle")


def blackboard_match(part: str) -> re.Match[str] | None:
    """The first `_<user>_attempt_<date>` of a Blackboard name, from the left, when its date is
    a real one (``9999-99-99-99-99-99`` is not); None otherwise."""
    m = BLACKBOARD.fullmatch(part)
    if m is None:
        return None
    try:
        dt.datetime.strptime(m["when"], "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        return None
    return m


def name_matches(part: str, *, folder: bool, gradescope: Mapping[str, Student] | None = None
                 ) -> dict[str, Student]:
    """Every LMS whose pattern the one name `part` matches, with the student it names.

    Moodle names files and folders; Canvas and Blackboard name files (a student's .zip
    included), never folders; Gradescope names folders (``submission_<id>``), resolved through
    `gradescope` (the export's metadata, :func:`gradescope_students`) when given. The name is
    read in NFC (one spelling of every accented letter)."""
    part = _nfc(part)
    found: dict[str, Student] = {}
    moodle = moodle_student(part, folder=folder)
    if moodle is not None:
        found["moodle"] = moodle
    if folder:
        if GRADESCOPE.fullmatch(part):
            known = (gradescope or {}).get(part)
            found["gradescope"] = known if known is not None else _student(part, "", "gradescope")
        return found
    m = blackboard_match(part)
    if m is not None:
        found["blackboard"] = _student(m["id"], "", "blackboard", order=m["when"])
    canvas = canvas_student(part)
    if canvas is not None:
        found["canvas"] = canvas
    return found


#: The deepest of a path's parts an LMS name may decide from, when the parts start with the name
#: of the path given (index 0: the path given itself; 1: an entry of the folder given, a member
#: at the root of the zip given, where an LMS writes its names).
LMS_LEVEL = 1


def one_folder(top: Iterable[tuple[str, bool]], given: str) -> bool:
    """True when what the path given named `given` holds at its top (each entry's name and
    whether it is a folder; entries a search skips left out) is one folder the LMS or the
    instructor's tools wrote, whose entries are then the LMS's too (one level deeper): Gradescope's
    ``assignment_<id>_export/``, or a folder named as the path given (``hw1.zip!hw1/``, a folder
    compressed; ``hw1/hw1/``, a zip unpacked into a folder of its name). Never a folder of any
    other name (a lone student's folder in a class folder) nor an archive."""
    entries = set(top)
    if len(entries) != 1:
        return False
    ((name, folder),) = entries
    stem = given[:-len(".zip")] if given.lower().endswith(".zip") else given
    return folder and not name.lower().endswith(".zip") and (
        name == stem or GRADESCOPE_EXPORT.fullmatch(name) is not None)


def deciding_name(parts: Sequence[str], gradescope: Mapping[str, Student] | None = None, *,
                  deepest: int = LMS_LEVEL) -> tuple[int, dict[str, Student]]:
    """The outermost of `parts` no deeper than `deepest` that an LMS pattern matches, and its
    matches; ``(-1, {})`` when none does.

    `parts` is a file's path from the path given: its name first, the file name last. An LMS
    writes its names only at the top of its download: the path given itself (index 0), the
    entries of the folder given or the members at the root of the zip given (index 1,
    :data:`LMS_LEVEL`), and, when that is all it holds, those of the one folder a download is
    packed in (:func:`one_folder`: `deepest` 2). A name deeper than `deepest` never
    decides, whatever it looks like: it lies inside a student's own folder or archive, or
    inside a folder no LMS named (a student's folder in a class folder), and students choose
    those names. Outermost first: whatever lies inside the deciding name belongs to that
    student. A part is a folder unless it is the last or a .zip archive."""
    last = len(parts) - 1
    for i, part in enumerate(parts[:deepest + 1]):
        folder = i < last and not part.lower().endswith(".zip")
        found = name_matches(part, folder=folder, gradescope=gradescope)
        if found:
            return i, found
    return -1, {}


def batch_lms(decisions: Iterable[Mapping[str, Student]]) -> str:
    """The LMS of a batch: the one whose names alone decide the most files (names two LMSs both
    match are not counted); "" when no name decides or two LMSs tie."""
    counts = Counter(next(iter(d)) for d in decisions if len(d) == 1)
    if not counts:
        return ""
    ranked = counts.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return ""
    return ranked[0][0]


def resolve(matches: Mapping[str, Student], lms: str) -> tuple[Student | None, bool]:
    """The student of a deciding name's `matches` in a batch of `lms`, and whether the name is
    ambiguous (two LMSs match and the batch does not say which: no student, a flagged row)."""
    if len(matches) == 1:
        return next(iter(matches.values())), False
    if lms in matches:
        return matches[lms], False
    return None, bool(matches)


def lms_student(parts: Sequence[str], gradescope: Mapping[str, Student] | None = None, *,
                deepest: int = LMS_LEVEL) -> Student | None:
    """The student one file belongs to, from its path from the path given, `parts` (the name
    of the path given first, the file name last; `deepest` 2 when the path given holds only
    the folder a download is packed in, :func:`one_folder`): :func:`deciding_name` alone,
    as a batch of one file; None when no LMS pattern matches at the LMS's level or two LMSs
    match the deciding name."""
    return resolve(deciding_name(parts, gradescope, deepest=deepest)[1], "")[0]


class MetadataError(ValueError):
    """A Gradescope metadata file that is not read (too large, not YAML, PyYAML missing)."""


def _yaml_value(value: object) -> str:
    """A scalar of the metadata as text ("" for anything else); one far over MAX_ID_CHARS is
    returned whole unstripped (refused by its length, never copied)."""
    if not isinstance(value, str):
        return ""
    if len(value) > 2 * MAX_ID_CHARS:
        return value
    value = value.strip()
    return "" if value in ("~", "null", "Null", "NULL") else value


def _field(entry: Mapping[object, object], key: str) -> object:
    """`entry`'s value of a Ruby symbol key (``:sid:`` in the file is the key ``:sid``)."""
    return entry.get(f":{key}", entry.get(key))


def gradescope_students(text: str | bytes, problems: list[str] | None = None
                        ) -> dict[str, Student]:
    """``{"submission_<id>": Student}`` from a Gradescope export's submission_metadata.yml:
    each submitter's SID, else e-mail, else name, else the submission's own name (group
    members `;`-separated). A submission whose submitters cannot be read (:func:`_submitters`)
    is left out (its folder keeps its
    ``submission_<id>`` name) and why is appended to `problems`.

    Parsed by PyYAML's base loader (every scalar a string, no tag run, anchors and aliases
    shared, never copied), within MAX_METADATA_BYTES; MetadataError (one line) when the file is
    too large, is not YAML, or PyYAML is not installed."""
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > MAX_METADATA_BYTES:
        raise MetadataError(f"{size / 2**20:,.1f} MiB, over the "
                            f"{MAX_METADATA_BYTES // 2**20} MiB limit")
    try:
        import yaml
    except ImportError:
        raise MetadataError("PyYAML is not installed (pip install 'dicejack[gradescope]')"
                            ) from None
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    try:
        data = yaml.load(text, Loader=loader)  # noqa: S506 - the base loader runs no tag
    except (yaml.YAMLError, RecursionError, ValueError, UnicodeError) as exc:
        reason = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise MetadataError(f"not readable YAML ({reason})") from None
    if data is None or data == "":
        return {}
    if not isinstance(data, dict):
        raise MetadataError("not a mapping of submission_<id> to their submitters")
    students: dict[str, Student] = {}
    seen: dict[int, tuple[list[str], list[str], str]] = {}  # a list aliased often: read once
    for key, entry in data.items():
        if not (isinstance(key, str) and GRADESCOPE.fullmatch(key) and isinstance(entry, dict)):
            continue
        people = _field(entry, "submitters")
        if not isinstance(people, list):
            continue
        if id(people) not in seen:
            seen[id(people)] = _submitters(people)
        ids, names, problem = seen[id(people)]
        if problem and problems is not None:
            problems.append(f"{key}: {problem}")
        if not problem and any(ids):
            students[key] = _student(";".join(i or key for i in ids), "; ".join(names),
                                     "gradescope")
    return students


def _submitters(people: list[object]) -> tuple[list[str], list[str], str]:
    """One submission's `:submitters:` list as each member's identifier (SID, else e-mail, else
    name; "" when none) and name, or why it names no one: more than MAX_SUBMITTERS members, an
    identifier or name longer than MAX_ID_CHARS, an identifier holding `;` (it separates group
    members). Every length is checked before any join, so aliases repeating one long value
    cost nothing."""
    if len(people) > MAX_SUBMITTERS:
        return [], [], f"{len(people):,} submitters, over the {MAX_SUBMITTERS} limit"
    ids, names = [], []
    for person in people:
        if not isinstance(person, dict):
            continue
        fields = {k: _yaml_value(_field(person, k)) for k in ("sid", "email", "name")}
        if any(len(v) > MAX_ID_CHARS for v in fields.values()):
            return [], [], f"an identifier or name over {MAX_ID_CHARS} characters"
        ident = _nfc(fields["sid"] or fields["email"] or fields["name"])
        if ";" in ident:
            return [], [], "an identifier holding ';' (it separates group members)"
        ids.append(ident)
        names.append(fields["name"])
    return ids, names, ""


def receipt_reason(name: str, siblings: Sequence[str]) -> str:
    """A Blackboard attempt receipt (``..._attempt_<date>.txt``) is skipped when the attempt's
    own files lie beside it; alone, it may hold the submission text and is graded."""
    m = blackboard_match(name)
    if m is None or not m["receipt"]:
        return ""
    prefix = name[: -len(".txt")] + "_"
    if any(s.startswith(prefix) for s in siblings):
        return "the Blackboard receipt of an attempt whose files are graded"
    return ""


def file_owner(label: str) -> str:
    """A file's own name without folder, archive and extension: whom a file no LMS or folder
    named counts for. ``!`` separates archive members, ``/`` (and the system's separators)
    folders; a ``\\`` is part of a name on POSIX."""
    name = label.rsplit("!", 1)[-1]
    for sep in {"/", os.sep, os.altsep or "/"}:
        name = name.rsplit(sep, 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return stem or name or label
