"""Who a submission file belongs to, from the names a learning-management system gives files and
folders in its bulk download (Canvas, Moodle, Gradescope, Blackboard): the :class:`Student`, the
name patterns, the Gradescope export's metadata and the Blackboard receipt rule (docs/grading.md,
"Student identifiers from LMS file names"). Names only: nothing here reads a file; collecting
them is :mod:`dicejack.grade.inputs`, grades back to an LMS :mod:`dicejack.grade.lms`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Student", "lms_student", "gradescope_students", "receipt_reason",
           "GRADESCOPE_METADATA"]


@dataclass(frozen=True)
class Student:
    """Who a file belongs to, as its LMS named it: `id` is the LMS's own identifier (Canvas user
    id or ``anon_...``, Moodle participant number, Gradescope SID or e-mail, Blackboard user
    name; group members `;`-separated), `lms` one of canvas, moodle, gradescope, blackboard."""

    id: str
    name: str = ""
    lms: str = ""


# ------------------------------------------------------------------ the LMS patterns
#: Canvas (lib/content_zipper.rb): `<sortable name, lower case, only word characters>[_LATE]_
#: <user id>_<attachment id>_<file name>`; anonymous grading `[LATE_]anon_<id>_<attachment>_...`;
#: a text entry or URL `<name>[_LATE]_<user id>_text.html` / `_link.html`.
CANVAS_FILE = re.compile(r"^(?P<name>.+?)(?:_LATE)?_(?P<id>\d+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_ANON = re.compile(r"^(?:LATE_)?(?P<id>anon_[A-Za-z0-9]+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_TEXT = re.compile(r"^(?P<name>.+?)(?:_LATE)?_(?P<id>\d+)_(?:text|link)\.html?$")
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


def lms_student(parts: Sequence[str], gradescope: Mapping[str, Student] | None = None
                ) -> Student | None:
    """The student a file belongs to, from its path components `parts` (folders, archives and
    members, the file name last), nearest first; None when no LMS pattern matches.

    Canvas and Blackboard name files (the last part, or an archive inside a download); Moodle
    names files or folders; Gradescope folders, resolved through `gradescope` (the export's
    metadata, :func:`gradescope_students`) when given."""
    last = len(parts) - 1
    for i in range(last, -1, -1):
        part = parts[i]
        m = MOODLE.match(part)
        if m:
            name = m["name"].strip()  # "Participant" under blind marking: no name
            return Student(m["id"], "" if name == "Participant" else name, "moodle")
        if i == last or part.lower().endswith(".zip"):
            m = BLACKBOARD.match(part)
            if m:
                return Student(m["id"], "", "blackboard")
            m = CANVAS_ANON.match(part)
            if m:
                return Student(m["id"], "", "canvas")
            m = CANVAS_TEXT.match(part) or CANVAS_FILE.match(part)
            if m:
                return Student(m["id"], m["name"], "canvas")
        elif GRADESCOPE.match(part):
            known = (gradescope or {}).get(part)
            return known if known is not None else Student(part, "", "gradescope")
    return None


_YAML_ITEM = re.compile(r"^(?P<indent>\s*)(?P<dash>-\s+)?:(?P<key>[a-z_]+):\s*(?P<value>.*)$")


def _yaml_scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return "" if text in ("~", "null") else text


def gradescope_students(text: str) -> dict[str, Student]:
    """``{"submission_<id>": Student}`` from a Gradescope export's submission_metadata.yml:
    each submitter's SID, else e-mail, else name (group members `;`-separated).

    Only the few lines needed are read (top-level ``submission_<id>:`` keys and their
    ``:submitters:`` items' ``:sid:``, ``:email:``, ``:name:``); nothing is evaluated."""
    out: dict[str, list[dict[str, str]]] = {}
    current: str | None = None
    block: int | None = None  # indentation of the :submitters: key, while inside it
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            key = line.rstrip().removesuffix(":")
            current = key if GRADESCOPE.match(key) and line.rstrip().endswith(":") else None
            block = None
            if current is not None:
                out.setdefault(current, [])
            continue
        if current is None:
            continue
        m = _YAML_ITEM.match(line)
        if block is None:
            if m and m["key"] == "submitters" and not m["dash"]:
                block = indent
            continue
        stripped = line.lstrip()
        if indent < block or (indent == block and not stripped.startswith("-")):
            block = None
            if m and m["key"] == "submitters" and not m["dash"]:
                block = indent
            continue
        if m is None:
            continue
        if m["dash"] or not out[current]:
            out[current].append({})
        out[current][-1][m["key"]] = _yaml_scalar(m["value"])
    students = {}
    for key, people in out.items():
        ids = [p.get("sid") or p.get("email") or p.get("name") or "" for p in people]
        if any(ids):
            students[key] = Student(";".join(i or key for i in ids),
                                    "; ".join(p.get("name", "") for p in people), "gradescope")
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
