"""The report folder: its files, and writing it as a whole.

Owns what a report looks like on disk (DESIGN.md, "File formats"): ``metrics.csv`` (long form, one
row per run, checkpoint and metric), ``metrics.json`` (the summary over seeds), ``report.md``
(a plain-language summary, the state sets, the tables), ``figures/*.png`` (drawn by
:mod:`dicejack.figures`) and ``timing.json`` (where the run time went). :func:`make_report` runs a
study and writes its folder.

Reproducible: every file but ``timing.json`` depends only on the study's settings (the command in
report.md), never on the executor, the worker count, the clock, the machine's paths or locale, or
the matplotlib version: re-running the command rewrites them byte for byte.

The folder is built in a temporary folder next to its destination and renamed into place only
once complete, so a failed or interrupted run never leaves half a report, and an old report is
replaced only as a whole.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import io
import math
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dicejack import figures, formats
from dicejack.compare import METRIC_NAMES, json_text
from dicejack.game import Game
from dicejack.report.study import ReportConfig, ReportError, Study, run_study

__all__ = [
    "TABLE_METRICS",
    "AGREEMENT_TARGET",
    "metrics_csv",
    "metrics_json",
    "report_markdown",
    "default_out",
    "MARKER",
    "TIMING_FILE",
    "timing_json",
    "write_report",
    "Report",
    "make_report",
]

#: Metrics shown in the report's tables (all of them are in metrics.csv / metrics.json).
TABLE_METRICS = (
    "agreement_onpath",
    "agreement_decisive",
    "weighted_agreement",
    "rmse_onpath",
    "regret_decisive",
    "score_vs_optimal",
    "states_with_data",
)
#: Decisive on-path agreement the summary looks for.
AGREEMENT_TARGET = 0.95


# ------------------------------------------------------------------------------ metrics files
def _num(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def metrics_csv(study: Study) -> str:
    """Long form, header ``m,games,seed,metric,value``: one row per run, checkpoint, metric."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["m", "games", "seed", "metric", "value"])
    for r in study.runs:
        for i, n in enumerate(r.games):
            for k, name in enumerate(METRIC_NAMES):
                v = float(r.values[i, k])
                if name == "states_with_data":
                    text = str(int(v))
                else:
                    text = repr(v) if math.isfinite(v) else "nan"
                w.writerow([f"{r.m:g}", n, r.seed, name, text])
    return buf.getvalue()


def metrics_json(study: Study) -> dict[str, Any]:
    """Summary: mean and 95% interval per (m, games, metric), plus the study's parameters (no
    run times: they are in :func:`timing_json`)."""
    cfg = study.config
    summary = [
        {**row, "mean": _num(row["mean"]), "low": _num(row["low"]), "high": _num(row["high"])}
        for row in study.summary_rows()
    ]
    return {
        "params": cfg.game.params(),
        "p00": study.truth.p00,
        "m": list(cfg.ms),
        "games": list(cfg.games),
        "seeds": list(cfg.seed_list),
        "metrics": list(METRIC_NAMES),
        "interval": "95% Student-t over seeds: mean +- t(0.975, n-1) * sd / sqrt(n)",
        "state_sets": study.truth.set_sizes(),
        "command": cfg.command(),
        "summary": summary,
    }


#: The report's file of run times: the one file a re-run does not reproduce.
TIMING_FILE = "timing.json"


def timing_json(study: Study) -> dict[str, Any]:
    """Where the run time went (seconds, wall unless named CPU; moves played): the content of
    :data:`TIMING_FILE`. It varies from run to run, so it is kept out of the other files."""
    t = study.timing
    names = {
        "total": "total", "solve": "solve", "warmup": "compile_warmup",
        "runs_wall": "learner_runs", "learn_cpu": "learning_cpu", "metrics_cpu": "metrics_cpu",
        "statistics": "statistics", "plot": "figures", "write": "write",
    }
    return {
        "command": study.config.command(),
        "seconds": {out: round(t[k], 3) for k, out in names.items() if k in t},
        "moves": int(t.get("moves", 0)),
        "note": "run times vary between runs and machines; every other file of the report "
                "is reproduced byte for byte by the command",
    }


# ------------------------------------------------------------------------------ report.md
def _pct(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{100 * v:.1f}%"


def _games(n: int) -> str:
    return f"{n:,}"


def _cell(name: str, mean: float, lo: float, hi: float) -> str:
    if not math.isfinite(mean):
        return "n/a"
    if name == "states_with_data":
        return f"{mean:.1f}"
    digits = 4 if name in ("score_vs_optimal",) else 3
    if not math.isfinite(hi):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {(hi - lo) / 2:.{digits}f}"


def _first_stays_above(means: np.ndarray, games: Sequence[int], target: float) -> int | None:
    """The first game count from which the mean stays >= target (None if it never does)."""
    ok = np.isfinite(means) & (means >= target)
    for i in range(len(games)):
        if ok[i:].all():
            return games[i]
    return None


def report_markdown(study: Study, figures: Sequence[tuple[str, str]]) -> str:
    """The report's text: the game, P*(0,0), a plain-language summary, tables, figures."""
    cfg, t = study.config, study.truth
    g = cfg.game
    sizes = t.set_sizes()
    last = cfg.games[-1]
    out: list[str] = []
    add = out.append
    add(f"# Convergence report: {g}\n")
    add(f"Generated by `{cfg.command()}`: for each M, {cfg.seeds} learner runs (seeds "
        f"{cfg.seed_list[0]}..{cfg.seed_list[-1]}), each measured after "
        f"{', '.join(_games(n) for n in cfg.games)} games.\n")
    add(f"**Optimal play:** the first player wins with probability P*(0,0) = {t.p00:.6f}.\n")
    add("## What was found\n")
    for m in cfg.ms:
        dec, dlo, dhi = study.metric(m, "agreement_decisive")
        onp = study.metric(m, "agreement_onpath")[0]
        rmse = study.metric(m, "rmse_onpath")[0]
        score, slo, shi = study.metric(m, "score_vs_optimal")
        regret = study.metric(m, "regret_decisive")[0]
        allm = study.metric(m, "agreement_all")[0]
        reach = study.metric(m, "agreement_reachable")[0]
        when = _first_stays_above(dec, cfg.games, AGREEMENT_TARGET)
        if when is None:
            passes = (f"does not stay above {AGREEMENT_TARGET:.0%} within {_games(last)} games "
                      f"(mean over seeds)")
        else:
            passes = (f"passes {AGREEMENT_TARGET:.0%} (mean over seeds) at {_games(when)} games "
                      "and stays above it")
        ci = f" (95% interval {_pct(dlo[-1])}..{_pct(dhi[-1])})" if math.isfinite(dhi[-1]) else ""
        add(f"- **M = {m:g}.** Agreement with the optimal policy on the {sizes['decisive']} "
            f"decisive states (on the optimal path, not lost, best move better by >= 0.02) "
            f"{passes}; after {_games(last)} games it is {_pct(dec[-1])}{ci}, and "
            f"{_pct(onp[-1])} on all {sizes['onpath']} on-path states.")
        add(f"  The estimated win probability on the path is off by {rmse[0]:.3f} (RMSE) after "
            f"{_games(cfg.games[0])} games and {rmse[-1]:.4f} after {_games(last)}; the mean "
            f"regret on decisive states falls from {regret[0]:.4f} to {regret[-1]:.5f}.")
        add(f"  Against the optimal player, the learned greedy policy scores "
            f"{score[-1]:.4f}" + (f" (95% interval {slo[-1]:.4f}..{shi[-1]:.4f})"
                                 if math.isfinite(shi[-1]) else "")
            + " over both seats (0.5 = as good as optimal).")
        add(f"  Off the path it is another story, as the handout warns: over all "
            f"{sizes['all']} states agreement is only {_pct(allm[-1])} ({_pct(reach[-1])} of the "
            f"{sizes['reachable']} reachable ones); states that optimal play rarely or never "
            "visits get few games, so their tables stay noisy.")
    add("")
    add("## State sets (the handout's caveats A-E)\n")
    add("| set | states | meaning |")
    add("|---|---:|---|")
    add(f"| all | {sizes['all']} | every <X,Y> with 0 <= X, Y < LTarget |")
    add(f"| reachable | {sizes['reachable']} | reachable from <0,0> under some legal play "
        f"(caveat B: {sizes['all'] - sizes['reachable']} are not) |")
    add(f"| on-path | {sizes['onpath']} | visited with probability >= 0.001 by two optimal "
        "players (caveats C, D) |")
    add(f"| decisive | {sizes['decisive']} | on-path, P* > 0, best J better than every other "
        "by >= 0.02 (caveats A, E) |")
    add(f"| lost | {sizes['lost']} | P* = 0: every J loses (caveat A); {sizes['lost_reachable']} "
        "reachable |")
    add(f"| near-tie on-path | {sizes['near_tie_onpath']} | on-path with a gap below 0.02 "
        "(caveat E) |")
    add("")
    add("## Figures\n")
    for caption, path in figures:
        add(f"**{caption}**\n")
        add(f"![{caption}]({path})\n")
        if "learned_m" in path:
            add("Right: green = the learned J is optimal; light grey = unreachable (caveat B); "
                "dark grey = lost, P* = 0 (A); mid grey = no data; yellow = wrong in a near-tie "
                "(E); orange = wrong where optimal play rarely or never goes (C, D); red = wrong "
                "on a decisive state.\n")
    add("## Tables\n")
    add("Mean over seeds ± half-width of the 95% interval. Every metric at every checkpoint is in "
        "`metrics.csv` (per run) and `metrics.json` (summaries); definitions in DESIGN.md.\n")
    for m in cfg.ms:
        mean, lo, hi = study.summary(m)
        add(f"### M = {m:g}\n")
        add("| games | " + " | ".join(TABLE_METRICS) + " |")
        add("|---:|" + "---:|" * len(TABLE_METRICS))
        for i, n in enumerate(cfg.games):
            cells = []
            for name in TABLE_METRICS:
                k = METRIC_NAMES.index(name)
                cells.append(_cell(name, mean[i, k], lo[i, k], hi[i, k]))
            add(f"| {_games(n)} | " + " | ".join(cells) + " |")
        add("")
        rows = study.wrong_decisive(m)
        add(f"Decisive states still wrong after {_games(last)} games (in how many of "
            f"{cfg.seeds} seeds):\n")
        if not rows:
            add("none.\n")
        else:
            add("| <X,Y> | seeds wrong | optimal J | gap |")
            add("|---|---:|---|---:|")
            for x, y, count, opt, gap in rows[:15]:
                add(f"| <{x},{y}> | {count} | {', '.join(map(str, opt))} | {gap:.4f} |")
            if len(rows) > 15:
                add(f"\n... and {len(rows) - 15} more.")
            add("")
    add("## Reproducing this report\n")
    add(f"Running the command above again (with the same versions of dicejack, numpy and "
        f"matplotlib) rewrites every file of this folder byte for byte, whatever the number of "
        f"workers; run times vary, so they are kept apart in `{TIMING_FILE}`, the one file that "
        f"differs between runs.\n")
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------------------ the folder
def default_out(game: Game) -> Path:
    """Default report folder: reports/<game label>, e.g. reports/s6-l15-h17-d2."""
    return Path("reports") / game.label()


#: The file that marks a folder as a dicejack report: only such a folder (or an empty one) is ever
#: replaced by a new report.
MARKER = ".dicejack-report"


def _temp_folder(out: Path) -> Path:
    """A fresh temporary folder next to `out` (checks up front that `out` can be written)."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"cannot write the report to {out}: it exists and is not a folder")
    here = Path.cwd().resolve()
    target = out.resolve()
    if target == here or target in here.parents:
        raise ReportError(
            f"--out {out} is the current folder{' or above it' if target != here else ''}; "
            "name a folder for the report, e.g. --out reports/mine"
        )
    if out.is_dir() and not (out / MARKER).exists():
        try:
            empty = next(out.iterdir(), None) is None
        except OSError as exc:
            raise ReportError(f"cannot write the report folder {out}: {_os_reason(exc)}") from None
        if not empty:
            raise ReportError(
                f"--out {out} is a folder dicejack did not write (no {MARKER} in it); it would be "
                "replaced as a whole, so name a new or empty folder"
            )
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise ReportError(f"cannot write the report folder {out}: {_os_reason(exc)}") from None


def _os_reason(exc: OSError) -> str:
    """strerror and the path it concerns, e.g. 'Not a directory: /tmp/file'."""
    reason = exc.strerror or str(exc)
    return f"{reason}: {exc.filename}" if exc.filename else reason


def _swap_into_place(tmp: Path, out: Path) -> None:
    """Rename the finished `tmp` to `out`, replacing an old report only as a whole."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
        os.rmdir(old)
        os.rename(out, old)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp made it private
    try:
        os.rename(tmp, out)
    except OSError:
        if old is not None:
            os.rename(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _plot(study: Study, folder: Path) -> list[tuple[str, str]]:
    """The report's figures: one curve per M, and each M's first seed drawn as its learned
    tables."""
    cfg = study.config
    series = [figures.Series(f"M = {m:g}", {name: study.metric(m, name) for name in METRIC_NAMES})
              for m in cfg.ms]
    learned = []
    for m in cfg.ms:
        first = study.runs_for(m)[0]
        learned.append(figures.LearnedFigure(
            name=f"learned_m{m:g}.png",
            title=f"Learned policy, M = {m:g}, seed {first.seed}, {cfg.games[-1]:,} games",
            caption=f"Learned tables at the last checkpoint (M = {m:g}, first seed)",
            tables=study.last_tables(first),
        ))
    return figures.plot_figures(folder, study.truth, cfg.games, series, learned)


def write_report(study: Study, out: str | os.PathLike[str], *, tmp: Path | None = None) -> Path:
    """Write the report folder for `study` to `out`, atomically as a whole; returns `out`."""
    out = Path(out)
    tmp = tmp if tmp is not None else _temp_folder(out)
    done = False
    try:
        t0 = time.perf_counter()
        study.summary(study.config.ms[0])  # the statistics over seeds, once, for every file
        study.timing["statistics"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        figs = _plot(study, tmp / "figures")
        study.timing["plot"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        formats.write_atomic(
            tmp / MARKER,
            "This folder is a dicejack report; `dicejack report --out` replaces it as a whole.\n",
        )
        formats.write_atomic(tmp / "metrics.csv", metrics_csv(study))
        formats.write_atomic(tmp / "report.md", report_markdown(study, figs))
        formats.write_atomic(tmp / "metrics.json", json_text(metrics_json(study), indent=1))
        study.timing["write"] = time.perf_counter() - t0
        if "start" in study.timing:
            study.timing["total"] = time.perf_counter() - study.timing["start"]
        formats.write_atomic(tmp / TIMING_FILE, json_text(timing_json(study), indent=1))
        _swap_into_place(tmp, out)
        done = True
    except OSError as exc:
        raise ReportError(f"cannot write the report folder {out}: {_os_reason(exc)}") from None
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
    """Run the study of `config` and write its report folder (default reports/<game label>)."""
    config = config if config is not None else ReportConfig()
    start = time.perf_counter()
    out_path = Path(out) if out is not None else default_out(config.game)
    tmp = _temp_folder(out_path)  # fail before the long part if `out` cannot be written
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
