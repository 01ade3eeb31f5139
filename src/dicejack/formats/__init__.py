"""File layouts: the only package that knows how tables, runs and submissions look on disk.

Modules, each owning one thing:
  json_output.py JSON text as every command and file writes it (json_text, json_safe: null for
                 NaN and infinities)
  escape.py      untrusted text (names) shown as characters, never interpreted: terminal,
                 spreadsheet cells, Markdown, HTML (safe_text, spreadsheet_cell, markdown_code...)
  atomic.py      writing files safely (temporary file in the target folder, fsync, rename:
                 write_atomic, savez_atomic) and the one output-path check every command uses
                 (check_output_file, ensure_output_folder)
  folders.py     output folders written as a whole (new_folder_beside, swap_folder): a temporary
                 folder renamed into place, replacing only a folder of its own
  html.py        self-contained HTML pages (html_page, html_table, markdown_html, Markup): every
                 text escaped, no request to anything, for the grading site and report.html
  sizes.py       how many bytes `solve` and `learn` will write, estimated before the work
                 (solution_bytes, run_bytes, learner_run_bytes)
  npz.py         reading .npz archives safely (open_npz, NpzMembers): member headers checked
                 against declared shapes and sizes before any data is read
  tables.py      what `solve` and `learn` write: the handout's text tables (format_table) and
                 params header; solutions as text, JSON, CSV and .npz; any learner's run as
                 text, JSON and CSV (the handout's learner in its own layout)
  submission/    reading what a student program printed (read_submission, read_submission_text,
                 Submission, SUBMISSION_*), for `dicejack grade` and `dicejack compare`
  learner_runs.py  the run file of any bundled learner of any game (dicejack.learners) as
                 .npz: save_learner_run, load_learner_run (the one writer and reader: the
                 handout's game's layout, other protocol games' layout with their game spec,
                 and the old handout layout, converted), save_run_npz / load_run_npz (the same,
                 old names)
  replay.py      replay files, games whose dice a student gives (read_replay, parse_replay),
                 for `dicejack learn --replay`

Every error is a FormatError (defined here) with a one-line message. The package's face (a few
names a user calls: reading a submission, saving and loading a run, writing a file atomically) is
re-exported here from one table (_PUBLIC), a module loaded when one of its names is first used
(writing a file does not compile the submission reader's patterns); every other name is imported
from its module (``from dicejack.formats.tables import solution_text``).
"""

from __future__ import annotations

import importlib
import typing

import dicejack

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it), by module:
#: each loaded with its module, on first use. Every other name is imported from its module
#: (``from dicejack.formats.tables import solution_text``, ``from dicejack.formats.escape import
#: safe_text``).
_PUBLIC: dict[str, tuple[str, ...]] = {
    "submission": ("read_submission", "Submission"),
    "learner_runs": ("save_learner_run", "load_learner_run"),
    "atomic": ("write_atomic",),
}
#: Public name -> its module (the table above, turned around).
_MODULE_OF = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = ["FormatError", *_MODULE_OF]


class FormatError(dicejack.DicejackError):
    """A file could not be read or written in the expected layout.

    The message is made printable: characters of undecodable file names (surrogates) are
    shown as their bytes' replacement characters, so printing the error never fails.
    """

    def __init__(self, message: object = "", *args: object) -> None:
        if isinstance(message, str):
            message = _printable(message)
        super().__init__(message, *args)


def _printable(text: str) -> str:
    """`text` encodable as UTF-8: os.fsdecode's surrogate escapes become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")  # the file name's own bytes
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")  # lone surrogates of another origin
    return raw.decode("utf-8", "replace")


def __getattr__(name: str) -> typing.Any:
    """A re-exported name, from its module in :data:`_PUBLIC` (imported now, once)."""
    module_name = _MODULE_OF.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
