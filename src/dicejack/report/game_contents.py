"""The text of a game report's files (``dicejack report --game``): report.md, metrics.csv,
metrics.json and timing.json, from a :class:`dicejack.report.game_study.GameStudy`.

Owns the words and numbers, not the folder (:mod:`dicejack.report.game_writers`) nor the
figures. Every file but timing.json depends only on the study's settings (the command in
report.md): no times, dates or paths.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dicejack.compare.metrics import DECISIVE_GAP, ON_PATH
from dicejack.formats.numbers import stated, stated_numbers
from dicejack.games.protocol import game_params
from dicejack.learners.base import check_params
from dicejack.learners.game_learners import GAME_LEARNERS
from dicejack.report.game_study import GAME_METRICS, GameSeries, GameStudy
from dicejack.solver.generic import expected_visits
from dicejack.solver.generic_output import plain

__all__ = ["GAME_REPORT_KIND", "GAME_AGREEMENT_TARGET", "game_metrics_csv", "game_metrics_json",
           "game_report_markdown", "game_timing_json", "top_states"]

#: metrics.json's "kind" in a game report (what tells it from the handout's reports).
GAME_REPORT_KIND = "dicejack-game-report"
#: The decisive agreement whose first checkpoint the report gives per series.
GAME_AGREEMENT_TARGET = 0.95
#: Most states in report.md's table of the states optimal play visits most.
TOP_STATES = 15


def _num(v: float, digits: int = 4) -> str:
    return "n/a" if not math.isfinite(v) else f"{v:.{digits}f}"


def _cell(mean: float, lo: float, hi: float, digits: int = 4) -> str:
    if not math.isfinite(mean):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return _num(mean, digits)
    return f"{_num(mean, digits)} ({_num(lo, digits)}..{_num(hi, digits)})"


def _all_params(s: GameSeries) -> dict[str, Any]:
    cls = GAME_LEARNERS[s.learner]
    return {k: plain(v) for k, v in check_params(cls.NAME, cls.PARAMS, s.kwargs()).items()}


def game_metrics_csv(study: GameStudy) -> str:
    """metrics.csv: ``series,learner,games,seed,metric,value``, one row per run, checkpoint and
    metric (value at formats.numbers.STATED_DIGITS significant digits; empty where
    undefined)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series", "learner", "games", "seed", "metric", "value"])
    for row in study.rows():
        v = row["value"]
        w.writerow([row["series"], row["learner"], row["games"], row["seed"], row["metric"],
                    repr(stated(v)) if math.isfinite(v) else ""])
    return buf.getvalue()


def _reach(study: GameStudy, s: GameSeries) -> dict[str, Any]:
    r = study.games_to_target(s, "agreement_decisive", GAME_AGREEMENT_TARGET)
    return {"target": r.target, "mean": r.mean, "per_seed": list(r.per_seed),
            "median": r.median, "min": r.first, "max": r.last, "seeds_reaching": r.reached}


def game_metrics_json(study: GameStudy) -> dict[str, Any]:
    """metrics.json: the game, its solution, the series, and per series, checkpoint and metric
    the mean and raw 95% interval over seeds; the games to reach 95% decisive agreement."""
    cfg, sol = study.config, study.solution
    return stated_numbers({
        "kind": GAME_REPORT_KIND,
        "command": cfg.command(),
        "game": str(cfg.game.name),
        "game_params": {k: plain(v) for k, v in game_params(cfg.game).items()},
        "solution": {"states": int((~sol.space.terminal).sum()), "pairs": int(sol.space.n_rows),
                     "method": sol.method, "residual": sol.residual, "value": sol.value},
        "series": [{"label": s.label, "learner": s.learner, "params": _all_params(s)}
                   for s in cfg.series],
        "seeds": list(cfg.seed_list),
        "games": list(cfg.games),
        "metrics": list(GAME_METRICS),
        "summary": study.summary_rows(),
        "agreement_target": {s.label: _reach(study, s) for s in cfg.series},
    })


def game_timing_json(study: GameStudy) -> dict[str, Any]:
    """timing.json: where the run time went (seconds; varies between runs)."""
    t = study.timing
    names = {"total": "total", "solve": "solve", "warmup": "compile_warmup",
             "runs_wall": "learner_runs", "learn_cpu": "learning_cpu",
             "metrics_cpu": "metrics_cpu", "plot": "figures", "write": "write"}
    return {"command": study.config.command(),
            "seconds": {out: round(t[k], 3) for k, out in names.items() if k in t},
            "moves": int(t.get("moves", 0)),
            "note": "run times vary between runs and machines; the command reproduces "
                    "report.md, the metrics and the figures' CSV byte for byte, the pictures "
                    "under the same matplotlib"}


def top_states(study: GameStudy, limit: int = TOP_STATES) -> list[dict[str, Any]]:
    """The non-terminal states a game between optimal players (ties split evenly) is at most
    often, most first: state, mover, optimal actions, gap, expected visits, and per series the
    share of seeds whose last greedy action there is optimal."""
    sol = study.solution
    space = sol.space
    visits = expected_visits(space, sol.policy())
    live = np.flatnonzero(~space.terminal)
    order = live[np.lexsort((live, -visits[live]))][:limit]
    shares = {s.label: study.optimal_share(s) for s in study.config.series}
    sign = np.where(space.player == 1, -1.0, 1.0)
    out = []
    for s in order.tolist():
        lo, hi = int(space.row_start[s]), int(space.row_start[s + 1])
        mover_q = sign[s] * sol.q[lo:hi]
        optimal = [space.actions[r] for r in range(lo, hi) if sol.optimal[r]]
        others = [q for r, q in zip(range(lo, hi), mover_q, strict=True) if not sol.optimal[r]]
        gap = float(mover_q.max() - max(others)) if others else math.inf
        out.append({"state": space.states[s], "player": int(space.player[s]),
                    "optimal": optimal, "gap": gap, "visits": float(visits[s]),
                    "shares": {k: float(v[s]) for k, v in shares.items()}})
    return out


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|")


def _game_numbers_lines(study: GameStudy, two: bool) -> list[str]:
    """The section on the last checkpoint: every series' metrics and games to the decisive
    agreement target; for two players, the learned policy's exact value in either seat."""
    cfg, sol = study.config, study.solution
    last = len(cfg.games) - 1
    lines: list[str] = []
    lines += ["", f"## In numbers, after {cfg.games[-1]:,} games", "",
              "Mean over seeds (95% interval). Exploitability: " + (
                  "what best responses in both seats win against the learned greedy policy "
                  "beyond the game's value (0 = unexploitable)" if two else
                  "the optimal value minus the learned greedy policy's (one player)")
              + ", computed exactly.", ""]
    cols = ["agreement_decisive", "agreement_all", "weighted_agreement", "value_rmse",
            "exploitability", "score_vs_optimal"]
    header = ["series", *cols, "games to 95% decisive (mean; seeds)"]
    rows = []
    for s in cfg.series:
        mean, lo, hi = study.summary(s, clipped=True)
        cells = [_cell(mean[last, GAME_METRICS.index(c)], lo[last, GAME_METRICS.index(c)],
                       hi[last, GAME_METRICS.index(c)]) for c in cols]
        r = study.games_to_target(s, "agreement_decisive", GAME_AGREEMENT_TARGET)
        reach = (f"{r.mean:,}" if r.mean is not None else "not reached") + \
            f"; {r.reached} of {cfg.seeds}"
        rows.append([_esc(s.label), *cells, reach])
    lines += _table(header, rows)
    if two:
        lines += ["", "The exact value of the learned policy (player 0's payoff, mean over "
                  "seeds) with it in seat 0 against optimal play (value_first) and optimal "
                  f"play in seat 0 against it (value_second); the game's value is "
                  f"{sol.value:.6f}.", ""]
        rows = []
        for s in cfg.series:
            mean, lo, hi = study.summary(s, clipped=True)
            rows.append([_esc(s.label), *(_cell(mean[last, GAME_METRICS.index(c)],
                                                lo[last, GAME_METRICS.index(c)],
                                                hi[last, GAME_METRICS.index(c)])
                                          for c in ("value_first", "value_second",
                                                    "value_self_play"))])
        lines += _table(["series", "value_first", "value_second", "value_self_play"], rows)
    return lines


def _game_checkpoint_lines(study: GameStudy) -> list[str]:
    """The exploitability and decisive agreement tables, one row per checkpoint."""
    cfg = study.config
    lines: list[str] = []
    for metric, title in (("exploitability", "Exploitability per checkpoint"),
                          ("agreement_decisive", "Decisive agreement per checkpoint")):
        lines += ["", f"## {title}", ""]
        rows = []
        for i, g in enumerate(cfg.games):
            row = [f"{g:,}"]
            for s in cfg.series:
                mean, lo, hi = study.metric(s, metric)
                row.append(_cell(mean[i], lo[i], hi[i]))
            rows.append(row)
        lines += _table(["games", *(_esc(s.label) for s in cfg.series)], rows)
    return lines


def _game_top_states_lines(study: GameStudy) -> list[str]:
    """The section on the states optimal play visits most."""
    cfg = study.config
    lines: list[str] = []
    lines += ["## The states optimal play visits most", "",
              "Expected visits per game between optimal players (ties split evenly); per "
              "series, the share of seeds whose greedy action there is optimal after "
              f"{cfg.games[-1]:,} games; gap: the best action's value over the best "
              "non-optimal one's, for the mover.", ""]
    rows = []
    for t in top_states(study):
        rows.append([_esc(repr(t["state"])), str(t["player"]),
                     _esc(", ".join(map(str, t["optimal"]))),
                     "all optimal" if math.isinf(t["gap"]) else f"{t['gap']:.4f}",
                     f"{t['visits']:.4f}",
                     *(f"{100 * v:.0f}%" for v in t["shares"].values())])
    lines += _table(["state", "mover", "optimal", "gap", "visits",
                     *(_esc(s.label) for s in cfg.series)], rows)
    return lines


def _game_metrics_lines(two: bool) -> list[str]:
    """The section on what each metric means."""
    lines: list[str] = []
    lines += ["", "## The metrics", "",
              "- agreement_all: the share of non-terminal states where the learned greedy "
              "action is optimal (no data counts as wrong).",
              f"- agreement_decisive: the same over the states whose best action beats the "
              f"best non-optimal one by at least {DECISIVE_GAP:g}.",
              f"- agreement_onpath, weighted_agreement: over the states a game between "
              f"optimal players is at at least {ON_PATH:g} times on average, and weighted by "
              "that average.",
              "- value_rmse, value_max_error: the learned values against the exact ones where "
              "there is data.",
              "- value_first, value_second, value_self_play: the exact payoff of player 0 with "
              "the learned policy in seat 0 against optimal play, with optimal play in seat 0 "
              "against it, and with it in both seats.",
              "- score_vs_optimal: what the learned policy gives away against optimal play, "
              "summed over both seats (0 = as good as optimal).",
              "- exploitability: what best responses in both seats win against it beyond the "
              "game's value." if two else "- exploitability: the optimal value minus its "
              "value.",
              "", "Intervals: mean +- t(0.975, n-1) sd / sqrt(n) over the n seeds, cut at each "
              "metric's range; metrics.json keeps them raw, metrics.csv has every run's "
              "value."]
    return lines


def game_report_markdown(study: GameStudy, figures: Sequence[tuple[str, str]]) -> str:
    """report.md: the game and its solution, the conclusions in numbers at the last checkpoint,
    exploitability and decisive agreement per checkpoint (mean and 95% interval over seeds),
    the figures (`figures`: (path, caption) pairs), the states optimal play visits most, and
    what each metric means."""
    cfg, sol = study.config, study.solution
    space = sol.space
    two = space.num_players == 2
    lines = [f"# Convergence report: {cfg.label}", "",
             f"Command: `{cfg.command()}`", ""]
    who = ("two players, zero-sum; values are player 0's payoff (for win/lose games, player "
           "0's win probability)") if two else "one player"
    lines += [
        f"The game: {cfg.label} ({who}), {int((~space.terminal).sum()):,} non-terminal "
        f"reachable states and {space.n_rows:,} (state, action) pairs. Its exact solution "
        f"({sol.method}, Bellman residual {sol.residual:.2g}): value of the initial state "
        f"{sol.value:.6f}.", "",
        f"Learners (one series each, {cfg.seeds} seeds {cfg.seed_list[0]}.."
        f"{cfg.seed_list[-1]}, checkpoints {', '.join(f'{g:,}' for g in cfg.games)} games):",
        "",
    ]
    for s in cfg.series:
        words = ", ".join(f"{k}={v}" for k, v in _all_params(s).items())
        lines.append(f"- `{_esc(s.label)}`: {GAME_LEARNERS[s.learner].SUMMARY} ({words})")
    lines += _game_numbers_lines(study, two)
    lines += _game_checkpoint_lines(study)
    lines += ["", "## Figures", ""]
    for path, caption in figures:
        lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    lines += _game_top_states_lines(study)
    lines += _game_metrics_lines(two)
    return "\n".join(lines) + "\n"
