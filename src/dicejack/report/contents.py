"""What each file of a report says, for any game: the text of ``metrics.csv``,
``metrics.json``, ``timing.json``, ``report.md`` and ``report.html`` (report.md as a page),
built from a :class:`~dicejack.report.study.Study`.

Owns the contents (docs/design/formats.md), not the disk: :mod:`dicejack.report.folder` writes
them into the report folder. ``metrics.csv`` is the long form (one row per run, checkpoint and
metric), ``metrics.json`` the summary over seeds, ``timing.json`` where the run time went and
``report.md`` a summary, the figures and the tables: for another game than the handout's, the
game and its exact solution, the numbers at the last checkpoint, exploitability and decisive
agreement per checkpoint, the states optimal play visits most and what each metric means; a
game with hidden information says its own (:mod:`dicejack.report.information_section`: CFR's
average policy against the sequence-form value), and so does the handout's game
(:mod:`dicejack.report.handout_section`: its caveats' state sets and metrics, a classic M
report's or a comparison's findings).

Reproducible: every text but ``timing.json`` depends only on the study's settings (the command in
report.md), never on the executor, the worker count, the clock, the machine's paths or locale.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dicejack.compare.metrics import DECISIVE_GAP, ON_PATH
from dicejack.formats.html import Markup, html_page, markdown_html, png_data_uri
from dicejack.formats.numbers import stated, stated_numbers
from dicejack.games.protocol import game_params
from dicejack.report.handout_section import handout_markdown, handout_metrics_json
from dicejack.report.information_section import information_markdown, information_metrics_json
from dicejack.report.series import PROTOCOL_LEARNERS, SeriesSpec
from dicejack.report.study import Study
from dicejack.solver.generic import expected_visits
from dicejack.solver.generic_output import plain

__all__ = [
    "GAME_REPORT_KIND",
    "GAME_AGREEMENT_TARGET",
    "metrics_csv",
    "metrics_json",
    "timing_json",
    "report_markdown",
    "report_html",
    "top_states",
]

#: metrics.json's "kind" in a report on another game (what tells it from the handout's), with
#: hidden information or not.
GAME_REPORT_KIND = "dicejack-game-report"
#: The decisive agreement whose first checkpoint a report on another game gives per series.
GAME_AGREEMENT_TARGET = 0.95
#: Most states in report.md's table of the states optimal play visits most.
TOP_STATES = 15


# ------------------------------------------------------------------------------ every game
def _csv_value(study: Study, name: str, v: float) -> str:
    """A value of metrics.csv: 12 significant digits; the handout's game writes its
    states_with_data whole and an undefined value as nan, another game an empty cell."""
    protocol = study.config.protocol
    if not protocol and name == "states_with_data":
        return str(int(v))
    if not math.isfinite(v):
        return "" if protocol else "nan"
    return repr(stated(v))


def metrics_csv(study: Study) -> str:
    """Long form, header ``m,games,seed,metric,value`` (``series,learner,games,seed,metric,value``
    when learners are compared, and for another game): one row per run, checkpoint, metric;
    values at 12 significant digits (:func:`dicejack.formats.numbers.stated`), as in
    :func:`metrics_json`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    comparison = study.config.comparison
    w.writerow([*(["series", "learner"] if comparison else ["m"]), "games", "seed", "metric",
                "value"])
    for r in study.runs:
        key = [r.series.label, r.series.learner] if comparison else [f"{r.m:g}"]
        for i, n in enumerate(r.games):
            for k, name in enumerate(study.metric_names):
                w.writerow([*key, n, r.seed, name, _csv_value(study, name, float(r.values[i, k]))])
    return buf.getvalue()


def metrics_json(study: Study) -> dict[str, Any]:
    """metrics.json: the study's settings and, per series, checkpoint and metric, the mean and
    raw 95% interval over seeds (no run times: they are in :func:`timing_json`); the handout's
    game's (:func:`dicejack.report.handout_section.handout_metrics_json`), or another game's
    with its exact solution and the games to reach 95% decisive agreement."""
    if study.config.information:
        return {"kind": GAME_REPORT_KIND, **information_metrics_json(study)}
    if study.config.protocol:
        return _game_metrics_json(study)
    return handout_metrics_json(study)


def timing_json(study: Study) -> dict[str, Any]:
    """Where the run time went (seconds, wall unless named CPU; moves played): the content of
    timing.json. It varies from run to run, so it is kept out of the other files."""
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
        "note": "run times vary between runs and machines; the command reproduces report.md, "
                "the metrics and the figures' CSV byte for byte, the pictures under the same "
                "matplotlib",
    }


def report_markdown(study: Study, figures: Sequence[tuple[str, str]]) -> str:
    """report.md, the figures given as (caption, path) pairs: the handout's game's
    (:func:`dicejack.report.handout_section.handout_markdown`), or another game's."""
    if study.config.information:
        return information_markdown(study, figures)
    if study.config.protocol:
        return _game_markdown(study, figures)
    return handout_markdown(study, figures)


def report_html(markdown: str, pictures: Mapping[str, bytes]) -> str:
    """``report.html``: report.md as one self-contained page (the same text, state sets,
    figures and tables, by :func:`dicejack.formats.html.markdown_html`), its figures inline
    (`pictures`: PNG bytes by the path report.md gives them, e.g. ``figures/agreement.png``)."""
    def image(src: str) -> str | None:
        return png_data_uri(pictures[src]) if src in pictures else None

    title = markdown.split("\n", 1)[0].lstrip("#").strip()
    body = markdown_html(markdown, image)
    return html_page(title, [Markup("<main>"), body, Markup("</main>")])


# ------------------------------------------------------------------------------ another game
def _num(v: float, digits: int = 4) -> str:
    return "n/a" if not math.isfinite(v) else f"{v:.{digits}f}"


def _cell(mean: float, lo: float, hi: float, digits: int = 4) -> str:
    if not math.isfinite(mean):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return _num(mean, digits)
    return f"{_num(mean, digits)} ({_num(lo, digits)}..{_num(hi, digits)})"


def _all_params(s: SeriesSpec) -> dict[str, Any]:
    return {k: plain(v) for k, v in s.all_params().items()}


def _reach(study: Study, s: SeriesSpec) -> dict[str, Any]:
    r = study.games_to_target(s, "agreement_decisive", GAME_AGREEMENT_TARGET)
    return {"target": r.target, "mean": r.mean, "per_seed": list(r.per_seed),
            "median": r.median, "min": r.first, "max": r.last, "seeds_reaching": r.reached}


def _game_metrics_json(study: Study) -> dict[str, Any]:
    """metrics.json of another game: the game, its solution, the series, and per series, checkpoint
    and metric the mean and raw 95% interval over seeds; the games to reach 95% decisive
    agreement."""
    cfg, sol = study.config, study.truth
    return stated_numbers({
        "kind": GAME_REPORT_KIND,
        "command": cfg.command(),
        "game": str(cfg.game_object.name),
        "game_params": {k: plain(v) for k, v in game_params(cfg.game_object).items()},
        "solution": {"states": int((~sol.space.terminal).sum()), "pairs": int(sol.space.n_rows),
                     "method": sol.method, "residual": sol.residual, "value": sol.value},
        "series": [{"label": s.label, "learner": s.learner, "params": _all_params(s)}
                   for s in cfg.series],
        "seeds": list(cfg.seed_list),
        "games": list(cfg.games),
        "metrics": list(study.metric_names),
        "summary": study.summary_rows(),
        "agreement_target": {s.label: _reach(study, s) for s in cfg.series},
    })


def top_states(study: Study, limit: int = TOP_STATES) -> list[dict[str, Any]]:
    """The non-terminal states a game between optimal players (ties split evenly) is at most
    often, most first: state, mover, optimal actions, gap, expected visits, and per series the
    share of seeds whose last greedy action there is optimal."""
    sol = study.truth
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


def _game_numbers_lines(study: Study, two: bool) -> list[str]:
    """The section on the last checkpoint: every series' metrics and games to the decisive
    agreement target; for two players, the learned policy's exact value in either seat."""
    cfg, sol = study.config, study.truth
    col = study.metric_names.index
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
        cells = [_cell(mean[last, col(c)], lo[last, col(c)], hi[last, col(c)]) for c in cols]
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
            rows.append([_esc(s.label), *(_cell(mean[last, col(c)], lo[last, col(c)],
                                                hi[last, col(c)])
                                          for c in ("value_first", "value_second",
                                                    "value_self_play"))])
        lines += _table(["series", "value_first", "value_second", "value_self_play"], rows)
    return lines


def _game_checkpoint_lines(study: Study) -> list[str]:
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


def _game_top_states_lines(study: Study) -> list[str]:
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


def _game_markdown(study: Study, figures: Sequence[tuple[str, str]]) -> str:
    """report.md of another game: the game and its solution, the conclusions in numbers at the last
    checkpoint, exploitability and decisive agreement per checkpoint (mean and 95% interval over
    seeds), the figures (`figures`: (caption, path) pairs), the states optimal play visits most,
    and what each metric means."""
    cfg, sol = study.config, study.truth
    space = sol.space
    two = space.num_players == 2
    lines = [f"# Convergence report: {cfg.game_label}", "",
             f"Command: `{cfg.command()}`", ""]
    who = ("two players, zero-sum; values are player 0's payoff (for win/lose games, player "
           "0's win probability)") if two else "one player"
    lines += [
        f"The game: {cfg.game_label} ({who}), {int((~space.terminal).sum()):,} non-terminal "
        f"reachable states and {space.n_rows:,} (state, action) pairs. Its exact solution "
        f"({sol.method}, Bellman residual {sol.residual:.2g}): value of the initial state "
        f"{sol.value:.6f}.", "",
        f"Learners (one series each, {cfg.seeds} seeds {cfg.seed_list[0]}.."
        f"{cfg.seed_list[-1]}, checkpoints {', '.join(f'{g:,}' for g in cfg.games)} games):",
        "",
    ]
    for s in cfg.series:
        words = ", ".join(f"{k}={v}" for k, v in _all_params(s).items())
        lines.append(f"- `{_esc(s.label)}`: {PROTOCOL_LEARNERS[s.learner].SUMMARY} ({words})")
    lines += _game_numbers_lines(study, two)
    lines += _game_checkpoint_lines(study)
    lines += ["", "## Figures", ""]
    for caption, path in figures:
        lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    lines += _game_top_states_lines(study)
    lines += _game_metrics_lines(two)
    return "\n".join(lines) + "\n"
