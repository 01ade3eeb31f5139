"""What a report on a game with hidden information says: its report.md and metrics.json.

Owns the text of such a report (Kuhn poker...), not its numbers (:mod:`dicejack.report.runs`:
:data:`~dicejack.report.runs.INFORMATION_METRICS`, of CFR's average policy at each checkpoint,
exact over the game's tree of plays) nor its files (:mod:`dicejack.report.contents` picks this
section for such a game, :mod:`dicejack.report.folder` writes it). report.md: the game, its tree
and its sequence-form value (exact where the solver finds it), the series, the numbers at the
last checkpoint, exploitability and self-play value per checkpoint, the figures, and what each
metric means. A series whose seeds all give the same numbers (CFR+ and CFR do not use the seed)
is said to be deterministic, its interval of zero width shown as the one number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dicejack.formats.numbers import stated_numbers
from dicejack.games.protocol import game_params
from dicejack.report.runs import information_value
from dicejack.report.series import PROTOCOL_LEARNERS, SeriesSpec
from dicejack.report.study import Study
from dicejack.solver.generic_output import plain

__all__ = ["deterministic", "information_markdown", "information_metrics_json"]

_PLAYERS = {1: "one player", 2: "two players, zero-sum"}

#: CFR's variants as report.md describes them (:data:`dicejack.learners.cfr.VARIANTS`).
_VARIANTS = {
    "cfr+": "CFR+ (regret matching+, linear averaging, alternating updates; no randomness)",
    "cfr": "CFR (regret matching, uniform averaging, alternating updates; no randomness)",
    "outcome-sampling": "outcome-sampling MCCFR (one sampled play per player per iteration, "
                        "drawn from the seed)",
}

#: The solver of a game with hidden information, as the report names it.
_METHOD = "sequence-form linear programme (scipy's HiGHS)"


def deterministic(study: Study, series: SeriesSpec) -> bool:
    """True when every seed of `series` gave exactly the same numbers (CFR+ and CFR: the seed
    is used by nothing), so its 95% interval has zero width; False for one seed."""
    values = study.values(series)
    return len(values) > 1 and bool(np.all((values == values[0]) | np.isnan(values)))


def _g(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{v:.4g}"


def _cell(mean: float, lo: float, hi: float, same: bool) -> str:
    """A mean and its 95% interval; the mean alone when the seeds agree (`same`) or there is no
    interval."""
    if not math.isfinite(mean) or same or not (math.isfinite(lo) and math.isfinite(hi)):
        return _g(mean)
    return f"{_g(mean)} ({_g(lo)}..{_g(hi)})"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|")


def _value_text(study: Study) -> str:
    """The game's value as report.md states it: the exact fraction and its decimals, or the
    programme's optimum."""
    sol = study.truth
    if sol.exact_value is not None:
        return (f"{sol.exact_value} = {float(sol.exact_value):.12f} (exact: the programme's "
                "equilibrium, read as fractions, has NashConv exactly 0)")
    return f"{sol.value:.12f} (the programme's optimum, to its tolerance)"


def _head_lines(study: Study) -> list[str]:
    """The title, the command, the game and its value, the series and the seeds."""
    cfg, tree = study.config, study.truth.tree
    sets = tree.decisions()
    lines = [f"# Convergence report: {cfg.game_label}", "", f"Command: `{cfg.command()}`", ""]
    lines += [
        f"The game: {cfg.game_label}, {_PLAYERS.get(tree.num_players, 'players')}, with hidden "
        f"information (values are player 0's payoff), {tree.n_nodes:,} nodes in its tree of plays, "
        f"{len(sets):,} information sets where a player chooses. Its value by the {_METHOD}: "
        f"{_value_text(study)}.", "",
        f"Learners (one series each, {cfg.seeds} seeds {cfg.seed_list[0]}.."
        f"{cfg.seed_list[-1]}, checkpoints {', '.join(f'{g:,}' for g in cfg.games)} "
        "iterations; one iteration, the report's \"game\", is a full pass over the tree per "
        "player for cfr+ and cfr, one sampled play per player for outcome-sampling). Every "
        "metric is of the learned average policy, computed exactly over the tree:", "",
    ]
    for s in cfg.series:
        words = ", ".join(f"{k}={v}" for k, v in s.all_params().items())
        what = _VARIANTS.get(s.all_params().get("variant")) if s.learner == "cfr" else None
        lines.append(f"- `{_esc(s.label)}`: {what or PROTOCOL_LEARNERS[s.learner].SUMMARY} "
                     f"({words})")
    same = [s.label for s in cfg.series if deterministic(study, s)]
    if same:
        lines += ["", f"Deterministic: {', '.join(f'`{_esc(x)}`' for x in same)} gave the same "
                  f"numbers in all {cfg.seeds} seeds (the seed is used by nothing), so "
                  "their 95% intervals have zero width: the tables show the one number, the "
                  "figures a line without a band."]
    return lines


def _numbers_lines(study: Study) -> list[str]:
    """The last checkpoint's metrics, one row per series."""
    cfg = study.config
    col = study.metric_names.index
    last = len(cfg.games) - 1
    lines = ["", f"## In numbers, after {cfg.games[-1]:,} iterations", "",
             "Mean over seeds (95% interval). The game's value is "
             f"{information_value(study.truth):.6f}; value_first <= it <= value_second.", ""]
    cols = list(study.metric_names)
    rows = []
    for s in cfg.series:
        mean, lo, hi = study.summary(s, clipped=True)
        same = deterministic(study, s)
        rows.append([_esc(s.label), *(_cell(mean[last, col(c)], lo[last, col(c)],
                                            hi[last, col(c)], same) for c in cols)])
    return lines + _table(["series", *cols], rows)


def _checkpoint_lines(study: Study) -> list[str]:
    """Exploitability and self-play value per checkpoint, one column per series."""
    cfg = study.config
    lines: list[str] = []
    for metric, title in (("exploitability", "Exploitability per checkpoint"),
                          ("value_self_play", "Self-play value per checkpoint")):
        lines += ["", f"## {title}", ""]
        rows = []
        same = [deterministic(study, s) for s in cfg.series]
        for i, g in enumerate(cfg.games):
            row = [f"{g:,}"]
            for s, fixed in zip(cfg.series, same, strict=True):
                mean, lo, hi = study.metric(s, metric)
                row.append(_cell(mean[i], lo[i], hi[i], fixed))
            rows.append(row)
        lines += _table(["iterations", *(_esc(s.label) for s in cfg.series)], rows)
    return lines


def _metrics_lines() -> list[str]:
    """What each metric means."""
    return [
        "", "## The metrics", "",
        "All of the learned average policy (CFR's), exact over the game's tree of plays:",
        "",
        "- exploitability: OpenSpiel's, NashConv over the number of players (0 at an "
        "equilibrium).",
        "- nash_conv: what a best response gains over the policy, summed over the seats.",
        "- value_first: player 0's payoff with the policy in seat 0 against the sequence "
        "form's equilibrium in seat 1 (at most the game's value).",
        "- value_second: player 0's payoff with the equilibrium in seat 0 against the policy in "
        "seat 1 (at least the game's value).",
        "- loss_first, loss_second: what the policy gives up against the game's value in its "
        "own payoff in each seat (0 when it plays as well as an equilibrium there); "
        "score_vs_optimal = -(loss_first + loss_second).",
        "- value_self_play: player 0's payoff with the policy in both seats.",
        "These are compare's (`dicejack compare --game kuhn`), one definition for both.",
        "", "Intervals: mean +- t(0.975, n-1) sd / sqrt(n) over the n seeds, cut at each "
        "metric's range; metrics.json keeps them raw, metrics.csv has every run's value.",
    ]


def information_markdown(study: Study, figures: Sequence[tuple[str, str]]) -> str:
    """report.md of a game with hidden information (module docstring); `figures` as (caption,
    path) pairs."""
    lines = _head_lines(study) + _numbers_lines(study) + _checkpoint_lines(study)
    lines += ["", "## Figures", ""]
    for caption, path in figures:
        lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    lines += _metrics_lines()
    return "\n".join(lines) + "\n"


def information_metrics_json(study: Study) -> dict[str, Any]:
    """metrics.json of a game with hidden information but its "kind" (another game's:
    :mod:`dicejack.report.contents` puts it first): the game, its solution (value, exact value
    as a fraction's text or null, tree size), the series (deterministic or not), and per series,
    checkpoint and metric the mean and raw 95% interval over seeds."""
    cfg, sol = study.config, study.truth
    return stated_numbers({
        "command": cfg.command(),
        "game": str(cfg.game_object.name),
        "game_params": {k: plain(v) for k, v in game_params(cfg.game_object).items()},
        "solution": {"method": _METHOD, "value": information_value(sol),
                     "exact_value": None if sol.exact_value is None else str(sol.exact_value),
                     "nodes": sol.tree.n_nodes, "information_sets": len(sol.tree.decisions())},
        "series": [{"label": s.label, "learner": s.learner,
                    "params": {k: plain(v) for k, v in s.all_params().items()},
                    "deterministic": deterministic(study, s)} for s in cfg.series],
        "seeds": list(cfg.seed_list),
        "games": list(cfg.games),
        "metrics": list(study.metric_names),
        "summary": study.summary_rows(),
    })
