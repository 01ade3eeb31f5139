"""Who a submission file belongs to, from the names a learning-management system gives files and
folders in its bulk download (Canvas, Moodle, Gradescope, Blackboard): the :class:`Student`, the
name patterns, the Gradescope export's metadata and the Blackboard receipt rule (docs/grading.md,
"Student identifiers from LMS file names"). Names only: nothing here reads a file; collecting
them is :mod:`dicejack.grade.inputs`, grades back to an LMS :mod:`dicejack.grade.lms`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dicejack.formats.escape import safe_text

__all__ = ["Student", "LMS_NAMES", "MAX_METADATA_BYTES", "MetadataError",
           "name_matches", "deciding_name", "batch_lms", "resolve", "lms_student",
           "gradescope_students", "receipt_reason", "GRADESCOPE_METADATA"]


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
#: Canvas (lib/content_zipper.rb): `<sortable name, lower case, only word characters>[_LATE]_
#: <user id>_<attachment id>_<file name>`; anonymous grading `[LATE_]anon_<id>_<attachment>_...`;
#: a text entry or URL `<name>[_LATE]_<user id>_text.html` / `_link.html`.
CANVAS_FILE = re.compile(
    r"^(?P<name>.+?)(?P<late>_LATE)?_(?P<id>\d+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_ANON = re.compile(
    r"^(?P<late>LATE_)?(?P<id>anon_[A-Za-z0-9]+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_TEXT = re.compile(r"^(?P<name>.+?)(?P<late>_LATE)?_(?P<id>\d+)_(?:text|link)\.html?$")
#: Moodle (mod/assign): `<full name or "Participant">_<participant number>_assignsubmission_
#: <plugin>_` as a folder ("download submissions in folders", the default) or as the start of a
#: file name; team assignments put `<group>-` in front of the name.
MOODLE = re.compile(r"^(?P<name>.*?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)$")
#: Blackboard Learn ("Assignment File Download"): `<assignment>_<user name>_attempt_<yyyy-mm-dd-
#: hh-mm-ss>_<file name>`, and `..._attempt_<date>.txt`, the receipt of the attempt.
BLACKBOARD = re.compile(r"^(?P<assignment>.*)_(?P<id>[^_]+)_attempt_"
                        r"(?P<when>\d{4}(?:-\d{2}){5})(?:_(?P<file>.+)|(?P<receipt>\.txt))$")
#: Gradescope ("Export Submissions"): one folder `submission_<id>` per submission, and
#: `submission_metadata.yml` naming its submitters beside them.
GRADESCOPE = re.compile(r"^submission_(?P<id>\d+)$")
GRADESCOPE_METADATA = "submission_metadata.yml"


#: The LMSs whose names are read, in the order a tie between them is reported.
LMS_NAMES = ("canvas", "moodle", "gradescope", "blackboard")
#: Larger Gradescope metadata files are not parsed (a 1,000-student export is about 0.5 MiB).
MAX_METADATA_BYTES = 16 * 2**20


def _student(id_: str, name: str, lms: str, late: bool = False, order: str = "") -> Student:
    return Student(safe_text(id_), safe_text(name), lms, late, order)


def _canvas(m: re.Match[str], name: str) -> Student:
    """A Canvas name's student: late when marked so; ordered by the attachment id, which Canvas
    numbers in upload order (a text entry has none)."""
    attachment = m.groupdict().get("attachment") or ""
    return _student(m["id"], name, "canvas", bool(m["late"]),
                    attachment.zfill(20) if attachment else "")


def name_matches(part: str, *, folder: bool, gradescope: Mapping[str, Student] | None = None
                 ) -> dict[str, Student]:
    """Every LMS whose pattern the one name `part` matches, with the student it names.

    Moodle names files and folders; Canvas and Blackboard name files (a student's .zip
    included), never folders; Gradescope names folders (``submission_<id>``), resolved through
    `gradescope` (the export's metadata, :func:`gradescope_students`) when given."""
    found: dict[str, Student] = {}
    m = MOODLE.match(part)
    if m:
        name = m["name"].strip()  # "Participant" under blind marking: no name
        found["moodle"] = _student(m["id"], "" if name == "Participant" else name, "moodle")
    if folder:
        m = GRADESCOPE.match(part)
        if m:
            known = (gradescope or {}).get(part)
            found["gradescope"] = known if known is not None else _student(part, "", "gradescope")
        return found
    m = BLACKBOARD.match(part)
    if m:
        found["blackboard"] = _student(m["id"], "", "blackboard", order=m["when"])
    m = CANVAS_ANON.match(part)
    if m:
        found["canvas"] = _canvas(m, "")
    else:
        m = CANVAS_TEXT.match(part) or CANVAS_FILE.match(part)
        if m:
            found["canvas"] = _canvas(m, m["name"])
    return found


def deciding_name(parts: Sequence[str], gradescope: Mapping[str, Student] | None = None
                  ) -> tuple[int, dict[str, Student]]:
    """The outermost of `parts` (the path inside the download, the name given first, the file
    name last) that an LMS pattern matches, and its matches; ``(-1, {})`` when none does.

    Outermost first: the LMS named the top of each student's submission; whatever lies inside
    it (a student's own folders, archives and files) belongs to that student, whatever it is
    called. A part is a folder unless it is the last or a .zip archive."""
    last = len(parts) - 1
    for i, part in enumerate(parts):
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


def lms_student(parts: Sequence[str], gradescope: Mapping[str, Student] | None = None
                ) -> Student | None:
    """The student one file belongs to, from its path inside the download `parts` (the name
    given first, the file name last): :func:`deciding_name` alone, as a batch of one file;
    None when no LMS pattern matches or two LMSs match the deciding name."""
    return resolve(deciding_name(parts, gradescope)[1], "")[0]


class MetadataError(ValueError):
    """A Gradescope metadata file that is not read (too large, not YAML, PyYAML missing)."""


def _yaml_value(value: object) -> str:
    if not isinstance(value, str):
        return ""
    value = value.strip()
    return "" if value in ("~", "null", "Null", "NULL") else value


def _field(entry: Mapping[object, object], key: str) -> object:
    """`entry`'s value of a Ruby symbol key (``:sid:`` in the file is the key ``:sid``)."""
    return entry.get(f":{key}", entry.get(key))


def gradescope_students(text: str | bytes) -> dict[str, Student]:
    """``{"submission_<id>": Student}`` from a Gradescope export's submission_metadata.yml:
    each submitter's SID, else e-mail, else name (group members `;`-separated).

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
    students = {}
    for key, entry in data.items():
        if not (isinstance(key, str) and GRADESCOPE.match(key) and isinstance(entry, dict)):
            continue
        people = _field(entry, "submitters")
        if not isinstance(people, list):
            continue
        people = [p for p in people if isinstance(p, dict)]
        fields = [{k: _yaml_value(_field(p, k)) for k in ("sid", "email", "name")}
                  for p in people]
        ids = [f["sid"] or f["email"] or f["name"] for f in fields]
        if any(ids):
            students[key] = _student(";".join(i or key for i in ids),
                                     "; ".join(f["name"] for f in fields), "gradescope")
    return students


def receipt_reason(name: str, siblings: Sequence[str]) -> str:
    """A Blackboard attempt receipt (``..._attempt_<date>.txt``) is skipped when the attempt's
    own files lie beside it; alone, it may hold the submission text and is graded."""
    m = BLACKBOARD.match(name)
    if m is None or not m["receipt"]:
        return ""
    prefix = name[: -len(".txt")] + "_"
    if any(s.startswith(prefix) for s in siblings):
        return "the Blackboard receipt of an attempt whose files are graded"
    return ""
