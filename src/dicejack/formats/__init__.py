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
                 params header; solutions as text, JSON, CSV and .npz; learner runs as .npz
                 (saved and loaded exactly, for resuming) and as text, JSON and CSV; traces
  submission/    reading what a student program printed (read_submission, read_submission_text,
                 Submission, SUBMISSION_*), for `dicejack grade` and `dicejack compare`
  learner_runs.py  runs of any bundled learner (dicejack.learners) as .npz: save_learner_run,
                 load_learner_run (which also reads `learn --out` files as handout runs)
  replay.py      replay files, games whose dice a student gives (read_replay, parse_replay),
                 for `dicejack learn --replay`

Every error is a FormatError (defined here) with a one-line message. The modules' public names
are re-exported here, so callers write `formats.write_atomic`, `formats.read_submission`, ...;
a module is loaded when one of its names is first used (writing a solution does not compile the
submission reader's patterns).
"""

from __future__ import annotations

import importlib
from typing import Any

from dicejack import DicejackError

#: The modules whose `__all__` names are re-exported, in the order they are searched.
_MODULES = ("atomic", "folders", "json_output", "escape", "html", "numbers", "sizes", "npz",
            "tables",
            "submission", "learner_runs", "replay")


class FormatError(DicejackError):
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


def __getattr__(name: str) -> Any:
    """A re-exported name, from the first module of _MODULES whose `__all__` has it; `__all__`
    itself is FormatError and every module's `__all__` (loading the modules)."""
    if name == "__all__":
        names = ["FormatError"]
        for module_name in _MODULES:
            names += importlib.import_module(f"{__name__}.{module_name}").__all__
        globals()["__all__"] = names
        return names
    for module_name in _MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        if name in module.__all__:
            value = getattr(module, name)
            globals()[name] = value  # later lookups do not come here
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})
