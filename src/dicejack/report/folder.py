"""The report folder: writing it as a whole, and running a study into it.

Owns the report on disk: :func:`write_report` draws the figures (``figures/*.png``, by
:mod:`dicejack.figures`) and writes the files whose text :mod:`dicejack.report.contents` builds
(``report.md`` and its twin ``report.html``, ``metrics.csv``, ``metrics.json``,
``timing.json``) and the marker file that makes the folder replaceable; :func:`make_report`
runs a study and writes its folder (default :func:`default_out`: one folder per kind of study;
a report of the other kind is never replaced).

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicejack import figures, formats
from dicejack.compare import METRIC_NAMES
from dicejack.formats.folders import new_folder_beside, os_reason, swap_folder
from dicejack.formats.json_output import json_text
from dicejack.games.handout_rules import Game
from dicejack.report.config import LEARNED_FIGURES_LIMIT, Parameter, ReportConfig, ReportError
from dicejack.report.contents import (
    TIMING_FILE,
    metrics_csv,
    metrics_json,
    report_html,
    report_markdown,
    timing_json,
)
from dicejack.report.game_contents import GAME_REPORT_KIND
from dicejack.report.study import Study, check_own_learners, run_study

__all__ = [
    "curve_series",
    "learned_figures",
    "KINDS",
    "default_out",
    "existing_kind",
    "MARKER",
    "write_report",
    "Report",
    "make_report",
]


# ------------------------------------------------------------------------------ the folder
#: The two kinds of report, as their default folders and messages name them.
KINDS = {False: "convergence report", True: "learner comparison"}


def default_out(config: ReportConfig | Game) -> Path:
    """Default report folder, one per kind of study so that neither replaces the other:
    reports/<game label> for a classic M report (e.g. reports/s6-l15-h17-d2),
    reports/learners-<game label> for a comparison of learners. A bare Game: its M report's."""
    if isinstance(config, Game):
        return Path("reports") / config.label()
    prefix = "learners-" if config.comparison else ""
    return Path("reports") / f"{prefix}{config.game.label()}"


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
        return "game report"
    return KINDS["series" in data] if isinstance(data, dict) else None


#: The file that marks a folder as a dicejack report: only such a folder (or an empty one) is ever
#: replaced by a new report.
MARKER = ".dicejack-report"


def _temp_folder(out: Path, config: ReportConfig | None = None) -> Path:
    """A fresh temporary folder next to `out` (checks up front that `out` can be written:
    :func:`dicejack.formats.folders.new_folder_beside`, and, given the study's `config`, that `out`
    does not hold a report of the other kind)."""
    if config is not None:
        old, new = existing_kind(out), KINDS[config.comparison]
        if old is not None and old != new:
            raise ReportError(f"{out} holds a {old}; this {new} would replace it: give another ",
                              Parameter("out"), f" (the default is {default_out(config)}) or "
                              f"remove {out} first")
    try:
        return new_folder_beside(out, marker=MARKER, what="report")
    except formats.FormatError as exc:
        raise ReportError(str(exc)) from None


def curve_series(study: Study) -> list[figures.Series]:
    """One curve per series of the study, for every panel of the curves figures."""
    cfg = study.config
    return [figures.Series(cfg.legend(s), {name: study.metric(s, name) for name in METRIC_NAMES})
            for s in cfg.series]


def learned_figures(study: Study) -> list[figures.LearnedFigure]:
    """The learned tables drawn: each series' first seed at the last checkpoint, for the first
    :data:`~dicejack.report.config.LEARNED_FIGURES_LIMIT` series."""
    cfg = study.config
    out = []
    for s in cfg.series[:LEARNED_FIGURES_LIMIT]:
        first = study.runs_for(s)[0]
        if cfg.comparison:
            name, what = f"learned_{s.slug}.png", s.label
        else:
            name, what = f"learned_m{s.m:g}.png", f"M = {s.m:g}"
        out.append(figures.LearnedFigure(
            name=name,
            title=f"Learned policy, {what}, seed {first.seed}, {cfg.games[-1]:,} games",
            caption=f"Learned tables at the last checkpoint ({what}, first seed)",
            tables=study.last_tables(first),
            runs=tuple(study.last_tables(r) for r in study.runs_for(s)),
            seeds_caption=f"The same over all {cfg.seeds} seeds ({what}): where the learned J "
                          "is optimal, and the mean estimate",
        ))
    return out


def _plot(study: Study, folder: Path) -> list[tuple[str, str]]:
    """The report's figures: one curve per series, and each series' first seed drawn as its
    learned tables."""
    return figures.plot_figures(folder, study.truth, study.config.games, curve_series(study),
                                learned_figures(study), study.config.figure_formats)


def fill_report_folder(tmp: Path, out: Path, timing: dict[str, float], *,
                       plot: Callable[[Path], list[tuple[str, str]]],
                       markdown: Callable[[list[tuple[str, str]]], str],
                       metrics_csv: Callable[[], str], metrics_json: Callable[[], Any],
                       timing_json: Callable[[], Any],
                       before: Callable[[], None] | None = None) -> Path:
    """Write a report's files into `tmp` and swap it into `out` (the one layout of every report
    folder: the marker, figures/, metrics.csv, report.md, report.html with the figures inline,
    metrics.json, timing.json); `timing` gets each step's seconds. `before` runs first (e.g. the
    statistics over seeds). `tmp` is removed when anything fails; returns `out`."""
    done = False
    try:
        if before is not None:
            before()
        t0 = time.perf_counter()
        figs = plot(tmp / "figures")
        timing["plot"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        formats.write_atomic(
            tmp / MARKER,
            "This folder is a dicejack report; `dicejack report --out` replaces it as a whole.\n",
        )
        formats.write_atomic(tmp / "metrics.csv", metrics_csv())
        text = markdown(figs)
        formats.write_atomic(tmp / "report.md", text)
        pictures = {f"figures/{p.name}": p.read_bytes()
                    for p in sorted((tmp / "figures").glob("*.png"))}
        formats.write_atomic(tmp / "report.html", report_html(text, pictures))
        formats.write_atomic(tmp / "metrics.json", json_text(metrics_json(), indent=1))
        timing["write"] = time.perf_counter() - t0
        if "start" in timing:
            timing["total"] = time.perf_counter() - timing["start"]
        formats.write_atomic(tmp / TIMING_FILE, json_text(timing_json(), indent=1))
        swap_folder(tmp, out)
        done = True
    except OSError as exc:
        raise ReportError(f"cannot write the report folder {out}: {os_reason(exc)}"
                          ) from None
    finally:
        if not done:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def write_report(study: Study, out: str | os.PathLike[str], *, tmp: Path | None = None) -> Path:
    """Write the report folder for `study` to `out`, atomically as a whole; returns `out`."""
    out = Path(out)
    tmp = tmp if tmp is not None else _temp_folder(out, study.config)

    def statistics() -> None:  # statistics over seeds, once, for every file
        t0 = time.perf_counter()
        study.summary(study.config.series[0])
        study.timing["statistics"] = time.perf_counter() - t0

    return fill_report_folder(
        tmp, out, study.timing, before=statistics, plot=lambda folder: _plot(study, folder),
        markdown=lambda figs: report_markdown(study, figs),
        metrics_csv=lambda: metrics_csv(study), metrics_json=lambda: metrics_json(study),
        timing_json=lambda: timing_json(study))


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
    """Run the study of `config` and write its report folder (default reports/<game label>)."""
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
