"""A game report's folder (``dicejack report --game``): its figures and files, written as a
whole, and running a study into it.

Owns the folder on disk for protocol games, beside :mod:`dicejack.report.folder` (the
handout's): :func:`write_game_report` draws the figures (``figures/convergence.png``,
curves over checkpoints with 95% bands and their numbers as CSV, by
:func:`dicejack.figures.convergence.plot_curves`; for games with two score axes, Pig and Piglet,
a policy maps of every series, ``figures/policy.png`` with its numbers as ``policy.csv``, by
:mod:`dicejack.figures.game_maps`) and writes the files :mod:`dicejack.report.game_contents` builds,
built in a temporary folder beside the destination and swapped in only when complete (the same
marker as every report: only a dicejack report, or an empty folder, is replaced; a report of
another kind never). :func:`make_game_report` runs a study and writes it (default
``reports/<game>-learners``, e.g. ``reports/pig-goal100-die6-learners``).
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import io
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np

from dicejack import figures, formats
from dicejack.figures.convergence import plot_curves
from dicejack.figures.game_maps import ScoreMap, plot_score_maps
from dicejack.formats.folders import new_folder_beside
from dicejack.report.config import ReportError
from dicejack.report.folder import MARKER, Report, fill_report_folder
from dicejack.report.game_contents import (
    GAME_REPORT_KIND,
    game_metrics_csv,
    game_metrics_json,
    game_report_markdown,
    game_timing_json,
)
from dicejack.report.game_shapes import hold_rows, mean_by_scores, score_axes, stop_totals
from dicejack.report.game_study import GameReportConfig, GameStudy, run_game_study

__all__ = ["GAME_PANELS", "MAP_SERIES_LIMIT", "game_default_out", "write_game_report",
           "make_game_report"]

#: Most series drawn on the score maps (one column each).
MAP_SERIES_LIMIT = 4

#: The curves figures of a game report: file stem, title and panels.
GAME_PANELS = (
    ("convergence", "Learned against exact", (
        figures.Panel("agreement_decisive", "Agreement, decisive states", "share",
                      ylim=(0, 1.02), hline=0.95),
        figures.Panel("weighted_agreement", "Agreement weighted by optimal play's visits",
                      "share", ylim=(0, 1.02)),
        figures.Panel("value_rmse", "Value RMSE (states with data)", "RMSE"),
        figures.Panel("exploitability", "Exploitability (exact)", "payoff", logy=True,
                      zero=True),
    )),
)


def game_default_out(config: GameReportConfig) -> Path:
    """reports/<game>-learners, e.g. reports/pig-goal40-die6-learners."""
    return Path("reports") / f"{config.slug}-learners"


def _temp_folder(out: Path) -> Path:
    """A fresh folder beside `out`, after checking `out` may be replaced by a game report."""
    if (out / MARKER).is_file():
        try:
            kind = json.loads((out / "metrics.json").read_text(encoding="utf-8")).get("kind")
        except (OSError, ValueError, AttributeError):
            kind = None
        if kind != GAME_REPORT_KIND:
            raise ReportError(f"{out} holds a report of the handout's game; a game report would "
                              "replace it: give another --out or remove it first")
    try:
        return new_folder_beside(out, marker=MARKER, what="report")
    except formats.FormatError as exc:
        raise ReportError(str(exc)) from None


def _maps_csv(goal: int, names: list[str], maps: list[np.ndarray]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["i", "j", *names])
    for i in range(goal):
        for j in range(goal):
            w.writerow([i, j, *("" if not np.isfinite(m[i, j]) else f"{float(m[i, j]):.4g}"
                                for m in maps)])
    return buf.getvalue()


def _plot(study: GameStudy, folder: Path) -> list[tuple[str, str]]:
    """Every figure; returns (path in the report, caption) pairs."""
    cfg, sol = study.config, study.solution
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    curves = [figures.Series(s.label, {p.metric: study.metric(s, p.metric)
                                       for _, _, panels in GAME_PANELS for p in panels})
              for s in cfg.series]
    for stem, title, panels in GAME_PANELS:
        plot_curves(folder / f"{stem}.png", cfg.games, curves, panels,
                            suptitle=f"{title}: {cfg.label}", fmts=cfg.figure_formats)
        out.append((f"figures/{stem}.png", f"{title}, mean over {cfg.seeds} seeds with 95% "
                    f"bands (numbers: figures/{stem}.csv)"))
    axes = score_axes(cfg.game, sol.space)
    if axes is None:
        return out
    hold = hold_rows(sol.space)
    has_hold = hold >= 0
    optimal_hold = has_hold & sol.optimal[np.maximum(hold, 0)]
    live = ~sol.space.terminal
    optimal = stop_totals(axes, optimal_hold, live)
    learned_row: list[ScoreMap | None] = [
        ScoreMap("Optimal: turn total at which player 0 stops", optimal, top=axes.goal)]
    share_row: list[ScoreMap | None] = [None]
    names, columns = ["optimal_stop"], [optimal]
    shown = cfg.series[:MAP_SERIES_LIMIT]
    for s in shown:
        first = study.runs_for(s)[0]
        known = live & (first.best >= 0)
        learned = stop_totals(axes, has_hold & (first.best == hold), known)
        share = mean_by_scores(axes, study.optimal_share(s))
        learned_row.append(ScoreMap(f"{s.label}, seed {first.seed}: the same", learned,
                                    top=axes.goal))
        share_row.append(ScoreMap(f"{s.label}: optimal action, share of {cfg.seeds} seeds",
                                  share, kind="share"))
        names += [f"{s.slug}_stop_seed{first.seed}", f"{s.slug}_optimal_share"]
        columns += [learned, share]
    plot_score_maps(folder / "policy.png", [learned_row, share_row],
                    suptitle=f"The roll/hold boundary after {cfg.games[-1]:,} games: {cfg.label}",
                    fmts=cfg.figure_formats)
    formats.write_atomic(folder / "policy.csv", _maps_csv(axes.goal, names, columns))
    more = (f" (the first {MAP_SERIES_LIMIT} series)" if len(cfg.series) > MAP_SERIES_LIMIT
            else "")
    out.append(("figures/policy.png",
                "The roll/hold boundary as Neller and Presser draw it: per (my score i, "
                "opponent's score j), the turn total at which the mover stops rolling (holds, "
                "or reaches the goal), optimal and learned (first seed, player 0), and below, "
                "the share of states at (i, j), both seats, where the learned action is "
                f"optimal, over the seeds{more} (numbers: figures/policy.csv)"))
    return out


def write_game_report(study: GameStudy, out: str | os.PathLike[str], *,
                      tmp: Path | None = None) -> Path:
    """Write the game report folder for `study` to `out`, atomically as a whole."""
    out = Path(out)
    tmp = tmp if tmp is not None else _temp_folder(out)
    return fill_report_folder(
        tmp, out, study.timing, plot=lambda folder: _plot(study, folder),
        markdown=lambda figs: game_report_markdown(study, figs),
        metrics_csv=lambda: game_metrics_csv(study),
        metrics_json=lambda: game_metrics_json(study),
        timing_json=lambda: game_timing_json(study))


def make_game_report(config: GameReportConfig, out: str | os.PathLike[str] | None = None, *,
                     workers: int | None = None, dask: str | None = None,
                     executor: cf.Executor | None = None, progress: bool = False) -> Report:
    """Run the game study of `config` and write its folder (default :func:`game_default_out`)."""
    start = time.perf_counter()
    out_path = Path(out) if out is not None else game_default_out(config)
    tmp = _temp_folder(out_path)  # fail before the long part if `out` cannot be written
    try:
        study = run_game_study(config, workers=workers, dask=dask, executor=executor,
                               progress=progress)
        study.timing["start"] = start
        write_game_report(study, out_path, tmp=tmp)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    study.timing.pop("start", None)
    study.timing["total"] = time.perf_counter() - start
    return Report(out_path, study)  # type: ignore[arg-type]
