"""The report folder of any game: writing it as a whole, and running a study into it.

Owns the report on disk: :func:`write_report` draws the figures (``figures/*.png``:
:mod:`dicejack.report.drawing`) and writes the files whose text :mod:`dicejack.report.contents`
builds (``report.md`` and its twin ``report.html``, ``metrics.csv``, ``metrics.json``,
``timing.json``) and the marker file that makes the folder replaceable; :func:`make_report`
runs a study and writes its folder (default :func:`default_out`: one folder per kind of study;
a report of another kind is never replaced).

Reproducible: every file but ``timing.json`` depends only on the study's settings (the command in
report.md), never on the executor, the worker count, the clock, the machine's paths or locale:
re-running the command rewrites report.md, the metrics and the figures' CSV byte for byte
(numbers at 12 significant digits, :func:`dicejack.formats.numbers.stated`), and the pictures and
report.html byte for byte under the same matplotlib.

The folder is built in a temporary folder next to its destination and renamed into place only
once complete, so a failed or interrupted run never leaves half a report, and an old report is
replaced only as a whole.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from dicejack import formats
from dicejack.formats.folders import new_folder_beside, os_reason, swap_folder
from dicejack.formats.json_output import json_text
from dicejack.games.handout_rules import Game
from dicejack.report.config import ReportConfig
from dicejack.report.contents import (
    GAME_REPORT_KIND,
    metrics_csv,
    metrics_json,
    report_html,
    report_markdown,
    timing_json,
)
from dicejack.report.drawing import plot
from dicejack.report.limits import TIMING_FILE, Parameter, ReportError
from dicejack.report.study import Study, check_own_learners, run_study

__all__ = [
    "KINDS",
    "kind",
    "default_out",
    "existing_kind",
    "MARKER",
    "write_report",
    "Report",
    "make_report",
]


# ------------------------------------------------------------------------------ the folder
#: The kinds of report, as their default folders and messages name them: the handout's game's
#: classic M report and comparison of learners, and a report on another game.
KINDS = {False: "convergence report", True: "learner comparison", "game": "game report"}


def kind(config: ReportConfig) -> str:
    """The kind (a :data:`KINDS` value) of a study of `config`."""
    return KINDS["game" if config.protocol else config.comparison]


def default_out(config: ReportConfig | Game) -> Path:
    """Default report folder, one per kind of study so that none replaces another:
    reports/<game label> for a classic M report (e.g. reports/s6-l15-h17-d2),
    reports/learners-<game label> for a comparison of learners, reports/<game>-learners for
    another game (e.g. reports/pig-goal100-die6-learners). A bare Game: its M report's."""
    if isinstance(config, Game):
        return Path("reports") / config.label()
    if config.protocol:
        return Path("reports") / f"{config.game_slug}-learners"
    prefix = "learners-" if config.comparison else ""
    return Path("reports") / f"{prefix}{config.game_slug}"


def existing_kind(out: Path) -> str | None:
    """The kind (a :data:`KINDS` value) of the dicejack report already in `out`, read from its
    metrics.json (a comparison lists its "series"); None when there is none or it is unreadable."""
    if not (out / MARKER).is_file():
        return None
    try:
        data = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("kind") == GAME_REPORT_KIND:
        return KINDS["game"]
    return KINDS["series" in data] if isinstance(data, dict) else None


#: The file that marks a folder as a dicejack report: only such a folder (or an empty one) is ever
#: replaced by a new report.
MARKER = ".dicejack-report"


def _temp_folder(out: Path, config: ReportConfig | None = None) -> Path:
    """A fresh temporary folder next to `out` (checks up front that `out` can be written:
    :func:`dicejack.formats.folders.new_folder_beside`, and, given the study's `config`, that `out`
    does not hold a report of the other kind)."""
    if config is not None:
        old, new = existing_kind(out), kind(config)
        if old is not None and old != new:
            raise ReportError(f"{out} holds a {old}; this {new} would replace it: give another ",
                              Parameter("out"), f" (the default is {default_out(config)}) or "
                              f"remove {out} first")
    try:
        return new_folder_beside(out, marker=MARKER, what="report")
    except formats.FormatError as exc:
        raise ReportError(str(exc)) from None


def write_report(study: Study, out: str | os.PathLike[str], *, tmp: Path | None = None) -> Path:
    """Write the report folder for `study` to `out`, atomically as a whole (the one layout of
    every report folder: the marker, figures/, metrics.csv, report.md, report.html with the
    figures inline, metrics.json, timing.json; `study.timing` gets each step's seconds);
    returns `out`."""
    out = Path(out)
    tmp = tmp if tmp is not None else _temp_folder(out, study.config)
    timing, done = study.timing, False
    try:
        t0 = time.perf_counter()
        study.summary(study.config.series[0])  # statistics over seeds, once, for every file
        timing["statistics"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        figs = plot(study, tmp / "figures")
        timing["plot"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        formats.write_atomic(
            tmp / MARKER,
            "This folder is a dicejack report; `dicejack report --out` replaces it as a whole.\n",
        )
        formats.write_atomic(tmp / "metrics.csv", metrics_csv(study))
        text = report_markdown(study, figs)
        formats.write_atomic(tmp / "report.md", text)
        pictures = {f"figures/{p.name}": p.read_bytes()
                    for p in sorted((tmp / "figures").glob("*.png"))}
        formats.write_atomic(tmp / "report.html", report_html(text, pictures))
        formats.write_atomic(tmp / "metrics.json", json_text(metrics_json(study), indent=1))
        timing["write"] = time.perf_counter() - t0
        if "start" in timing:
            timing["total"] = time.perf_counter() - timing["start"]
        formats.write_atomic(tmp / TIMING_FILE, json_text(timing_json(study), indent=1))
        swap_folder(tmp, out)
        done = True
    except OSError as exc:
        raise ReportError(f"cannot write the report folder {out}: {os_reason(exc)}"
                          ) from None
    finally:
        if not done:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


@dataclass(frozen=True, eq=False)
class Report:
    """A written report: where it is, and the study behind it."""

    path: Path
    study: Study


def make_report(
    config: ReportConfig | None = None,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> Report:
    """Run the study of `config` and write its report folder (default :func:`default_out`)."""
    config = config if config is not None else ReportConfig()
    start = time.perf_counter()
    out_path = Path(out) if out is not None else default_out(config)
    check_own_learners(config)  # a broken user's learner fails before anything is written
    tmp = _temp_folder(out_path, config)  # fail before the long part if `out` cannot be written
    try:
        study = run_study(config, workers=workers, dask=dask, executor=executor,
                          progress=progress)
        study.timing["start"] = start
        write_report(study, out_path, tmp=tmp)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    study.timing.pop("start", None)
    study.timing["total"] = time.perf_counter() - start
    return Report(out_path, study)
