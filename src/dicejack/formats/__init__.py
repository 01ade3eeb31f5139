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
  learner_runs.py  the run file of any bundled learner (dicejack.learners) as .npz:
                 save_learner_run, load_learner_run (the one reader; it also reads the old
                 handout layout, converted), save_run_npz / load_run_npz (the same, old names)
  replay.py      replay files, games whose dice a student gives (read_replay, parse_replay),
                 for `dicejack learn --replay`

Every error is a FormatError (defined here) with a one-line message. The modules' public names
are re-exported here from one table (_PUBLIC; a test holds it to each module's `__all__`), so
callers write `formats.write_atomic`, `formats.read_submission`, ...; a module is loaded when one
of its names is first used (writing a solution does not compile the submission reader's
patterns).
"""

from __future__ import annotations

import importlib
from typing import Any

from dicejack import DicejackError

#: Each module's public names, re-exported here: loaded with the module, on first use.
_PUBLIC: dict[str, tuple[str, ...]] = {
    "atomic": ("STALE_TEMPORARY_SECONDS", "check_output_file", "ensure_output_folder",
               "savez_atomic", "write_atomic"),
    "folders": ("new_folder_beside", "swap_folder", "os_reason"),
    "json_output": ("json_safe", "json_text", "json_chunks", "write_json"),
    "escape": ("safe_text", "spreadsheet_cell", "markdown_code", "markdown_text",
               "html_text_escape"),
    "html": ("Markup", "HtmlColumn", "html_page", "html_table", "html_text", "html_link",
             "png_data_uri", "markdown_html", "HTML_GENERATOR"),
    "numbers": ("parse_count", "count_text"),
    "sizes": ("learner_run_bytes", "run_bytes", "solution_bytes", "available_memory_bytes",
              "check_output_memory", "output_memory_bytes"),
    "npz": ("SMALL_MEMBER_BYTES", "NpzMembers", "open_npz"),
    "tables": ("SOLUTION_NPZ_VERSION", "format_table",
               "learn_csv", "learn_dict", "learn_json", "learn_text",
               "read_params_header", "run_csv", "run_dict", "run_text",
               "save_solution_npz", "solution_csv", "solution_dict", "solution_json",
               "solution_text"),
    "submission": ("SUBMISSION_FLAGS", "SUBMISSION_LAYOUTS", "SUBMISSION_NO_DATA_WORDS",
                   "SUBMISSION_SIZE_LIMIT", "Submission", "find_table_size", "read_submission",
                   "read_submission_text", "submission_text"),
    "learner_runs": ("LEARNER_RUN_KIND", "LEARNER_RUN_VERSION", "LEGACY_RUN_KIND",
                     "LEGACY_RUN_VERSION", "save_learner_run", "load_learner_run",
                     "save_run_npz", "load_run_npz"),
    "replay": ("REPLAY_BYTES_LIMIT", "REPLAY_GAMES_LIMIT", "parse_replay", "read_replay"),
}
#: Public name -> its module (the table above, turned around).
_MODULE_OF = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = ["FormatError", *_MODULE_OF]


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
    """A re-exported name, from its module in :data:`_PUBLIC` (imported now, once)."""
    module_name = _MODULE_OF.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
