"""The handout game's section of a report: its report.md and metrics.json, built from a
:class:`~dicejack.report.study.Study` of the handout's game.

Owns what only the handout's game says (docs/design/formats.md): a plain-language summary, the
state sets of the handout's caveats A-E and the metrics made of them, its learned-table
heatmaps' legend, each series' table and its decisive states still wrong;
:mod:`dicejack.report.contents` writes every game's files and calls this for the handout's.
Two forms: a classic M report (every series the handout's learner with only M set: its files
exactly as before learners could be compared, series named by M) and a comparison of learners
(series named by label, with the games-to-95% and score-against-optimal tables and the
conclusions drawn from them in report.md). Every text depends only on the study's settings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from dicejack.compare import METRIC_NAMES
from dicejack.compare.metrics import METRIC_HELP
from dicejack.formats.escape import markdown_code, safe_text
from dicejack.formats.numbers import stated_numbers
from dicejack.report.config import LEARNED_FIGURES_LIMIT
from dicejack.report.limits import TIMING_FILE
from dicejack.report.series import SeriesSpec
from dicejack.report.study import Reach, Study

__all__ = [
    "TABLE_METRICS",
    "AGREEMENT_TARGET",
    "handout_metrics_json",
    "handout_markdown",
]

#: Metrics shown in the report's tables (all of them are in metrics.csv / metrics.json).
TABLE_METRICS = (
    "agreement_onpath",
    "agreement_decisive",
    "weighted_agreement",
    "rmse_onpath",
    "regret_decisive",
    "score_vs_optimal",
    "exploitability",
    "states_with_data",
)
#: Decisive on-path agreement the summary looks for.
AGREEMENT_TARGET = 0.95


# ------------------------------------------------------------------------------ metrics.json
def _num(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def _reach_json(reach: Reach) -> dict[str, Any]:
    return {"mean_first": reach.mean, "seed_first": list(reach.per_seed),
            "seed_median": reach.median, "seed_min": reach.first, "seed_max": reach.last,
            "seeds_reached": reach.reached}


def handout_metrics_json(study: Study) -> dict[str, Any]:
    """metrics.json of the handout's game: mean and 95% interval per (m, games, metric), plus the
    study's parameters (no run times: they are in timing.json). When learners are compared: per
    (series, games, metric), the series (label, learner, every parameter) instead of m, and when
    each series reaches :data:`AGREEMENT_TARGET` decisive agreement."""
    cfg = study.config
    summary = [
        {**row, "mean": _num(row["mean"]), "low": _num(row["low"]), "high": _num(row["high"])}
        for row in study.summary_rows()
    ]
    out: dict[str, Any] = {"params": cfg.game.params(), "p00": study.truth.p00}
    if cfg.comparison:
        out["series"] = [{"label": s.label, "learner": s.learner, "params": s.all_params()}
                         for s in cfg.series]
    else:
        out["m"] = list(cfg.ms)
    out.update({
        "games": list(cfg.games),
        "seeds": list(cfg.seed_list),
        "metrics": list(METRIC_NAMES),
        "interval": "95% Student-t over seeds: mean +- t(0.975, n-1) * sd / sqrt(n), raw "
                    "(not clipped: low and high may pass a metric's range, e.g. an agreement "
                    "interval above 1; report.md and the figures clip them to it)",
        "state_sets": study.truth.set_sizes(),
        "command": cfg.command(),
    })
    if cfg.comparison:
        out["agreement_target"] = {
            "metric": "agreement_decisive", "target": AGREEMENT_TARGET,
            "rule": "first checkpoint where the value is >= target (mean over seeds; each "
                    "seed); null: not reached",
            "series": [{"series": s.label, **_reach_json(_reach(study, s))}
                       for s in cfg.series],
        }
    out["summary"] = summary
    return stated_numbers(out)


# ------------------------------------------------------------------------------ report.md
def _pct(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{100 * v:.1f}%"


def _games(n: int) -> str:
    return f"{n:,}"


#: Most decimals a report shows: below 10^-8, a value prints as 0.
_MAX_DECIMALS = 8


def _decimals(name: str, mean: float, half: float = math.nan) -> int:
    """Decimals that show `mean` to two significant digits and the interval's half-width to one
    (at least 3, and 4 for the scores against the optimal player, which live near 0.5 and 0):
    0.00072 ± 0.00004, never 0.001 ± 0.000."""
    digits = 4 if name in ("score_vs_optimal", "exploitability") else 3
    for value, significant in ((mean, 2), (half, 1)):
        if math.isfinite(value) and value != 0:
            digits = max(digits, significant - 1 - math.floor(math.log10(abs(value))))
    return min(digits, _MAX_DECIMALS)


def _value(name: str, v: float, half: float = math.nan) -> str:
    """A mean as the text shows it: at the precision of its table cell (given the interval's
    half-width `half`)."""
    if not math.isfinite(v):
        return "n/a"
    if name == "states_with_data":
        return f"{v:,.1f}"
    return f"{v:.{_decimals(name, v, half)}f}"


def _at(study: Study, spec: SeriesSpec | float, name: str, i: int) -> str:
    """Metric `name` of a series at checkpoint `i`, as its table cell gives the mean."""
    mean, lo, hi = (v[i] for v in study.metric(spec, name))
    return _value(name, mean, (hi - lo) / 2)


def _cell(name: str, mean: float, lo: float, hi: float) -> str:
    """A table cell at one precision: the mean ± half-width of its 95% interval, or, where the
    interval was cut at the metric's range (then no longer symmetric), mean (low..high)."""
    if not math.isfinite(mean) or name == "states_with_data" or not math.isfinite(hi):
        return _value(name, mean)
    half = (hi - lo) / 2
    digits = _decimals(name, mean, half)
    if abs((hi - mean) - (mean - lo)) > 1e-9 * max(1.0, abs(mean)):
        return f"{mean:.{digits}f} ({lo:.{digits}f}..{hi:.{digits}f})"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def _first_stays_above(means: np.ndarray, games: Sequence[int], target: float) -> int | None:
    """The first game count from which the mean stays >= target (None if it never does)."""
    ok = np.isfinite(means) & (means >= target)
    for i in range(len(games)):
        if ok[i:].all():
            return games[i]
    return None


def _reach(study: Study, spec: SeriesSpec) -> Reach:
    """When `spec` reaches :data:`AGREEMENT_TARGET` decisive agreement."""
    return study.games_to_target(spec, "agreement_decisive", AGREEMENT_TARGET)


def _reach_cells(reach: Reach, seeds: int) -> list[str]:
    """The games-to-target table's cells: mean first, seeds reaching, median, range."""
    def text(v: float | None) -> str:
        return "not reached" if v is None else f"{v:,.0f}"

    reached = [g for g in reach.per_seed if g is not None]
    if not reached:
        spread = "not reached"
    else:
        spread = f"{min(reached):,}..{text(reach.last)}"
    return [text(reach.mean), f"{reach.reached:,}/{seeds:,}", text(reach.median), spread]


def _header(study: Study) -> list[str]:
    """Title, the command and P*(0,0)."""
    cfg, t = study.config, study.truth
    each = "each series (a learner and its parameters)" if cfg.comparison else "each M"
    title = "Learner comparison" if cfg.comparison else "Convergence report"
    return [
        f"# {title}: {cfg.game}\n",
        f"Generated by {markdown_code(cfg.command())}: for {each}, {cfg.seeds:,} "
        f"learner runs (seeds {cfg.seed_list[0]}..{cfg.seed_list[-1]}), each measured after "
        f"{', '.join(_games(n) for n in cfg.games)} games.\n",
        f"**Optimal play:** the first player wins with probability P*(0,0) = {t.p00:.6f}.\n",
    ]


def _m_findings(study: Study) -> list[str]:
    """The plain-language summary of a classic M report, one paragraph per M."""
    cfg, t = study.config, study.truth
    sizes = t.set_sizes()
    last = cfg.games[-1]
    out: list[str] = []
    add = out.append
    for m in cfg.ms:
        dec, dlo, dhi = study.metric(m, "agreement_decisive")
        onp = study.metric(m, "agreement_onpath")[0]
        score, slo, shi = study.metric(m, "score_vs_optimal")
        regret = study.metric(m, "regret_decisive")[0]
        allm = study.metric(m, "agreement_all")[0]
        reach = study.metric(m, "agreement_reachable")[0]
        when = _first_stays_above(dec, cfg.games, AGREEMENT_TARGET)
        touched = [n for n, v in zip(cfg.games, dec, strict=True)
                   if math.isfinite(v) and v >= AGREEMENT_TARGET]
        if not touched:
            passes = (f"does not reach {AGREEMENT_TARGET:.0%} within {_games(last)} games "
                      f"(mean over seeds)")
        elif when is None:
            passes = (f"reaches {AGREEMENT_TARGET:.0%} (mean over seeds) at "
                      f"{_games(touched[0])} games but does not stay above it within "
                      f"{_games(last)} games")
        else:
            passes = (f"passes {AGREEMENT_TARGET:.0%} (mean over seeds) at {_games(when)} games "
                      "and stays above it")
        ci = f" (95% interval {_pct(dlo[-1])}..{_pct(dhi[-1])})" if math.isfinite(dhi[-1]) else ""
        add(f"- **M = {m:g}.** Agreement with the optimal policy on the {sizes['decisive']:,} "
            f"decisive states (on the optimal path, not lost, best move better by >= 0.02) "
            f"{passes}; after {_games(last)} games it is {_pct(dec[-1])}{ci}, and "
            f"{_pct(onp[-1])} on all {sizes['onpath']:,} on-path states.")
        falls = "falls" if regret[-1] < regret[0] else "goes"
        add(f"  The estimated win probability on the path is off by "
            f"{_at(study, m, 'rmse_onpath', 0)} (RMSE) after {_games(cfg.games[0])} games and "
            f"{_at(study, m, 'rmse_onpath', -1)} after {_games(last)}; the mean regret on "
            f"decisive states {falls} from {_at(study, m, 'regret_decisive', 0)} to "
            f"{_at(study, m, 'regret_decisive', -1)}.")
        add(f"  Against the optimal player, the learned greedy policy scores "
            f"{score[-1]:.4f}" + (f" (95% interval {slo[-1]:.4f}..{shi[-1]:.4f})"
                                 if math.isfinite(shi[-1]) else "")
            + " over both seats (0.5 = as good as optimal).")
        add(f"  Off the path it is another story, as the handout warns: over all "
            f"{sizes['all']:,} states agreement is only {_pct(allm[-1])} ({_pct(reach[-1])} of the "
            f"{sizes['reachable']:,} reachable ones); states that optimal play rarely or never "
            "visits get few games, so their tables stay noisy.")
    return out


_MARKDOWN_MARKS = re.compile(r"[\\`*\[\]|~]|(?<![^\W_])_|_(?![^\W_])")


def _markdown(text: str) -> str:
    """`text` (a series' label, chosen by whoever runs the report: a learner file's path, its
    parameters) as Markdown prose that makes no code, emphasis, link, table cell or HTML: the
    marks backslash-escaped (`_` where it could open or close emphasis, not inside a word),
    ``& < >`` as entities; a plain label (``q-learning alpha=0.1``) stays as it is."""
    escaped = _MARKDOWN_MARKS.sub(lambda m: "\\" + m.group(), safe_text(text))
    return escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _label(spec: SeriesSpec) -> str:
    """A series' label as report.md writes it (:func:`_markdown`)."""
    return _markdown(spec.label)


def _names(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _interval_text(lo: float, hi: float, fmt: str) -> str:
    return f" (95% interval {lo:{fmt}}..{hi:{fmt}})" if math.isfinite(hi) else ""


def _comparison_findings(study: Study) -> list[str]:
    """The conclusions of a comparison of learners, in numbers computed from the study."""
    cfg, t = study.config, study.truth
    sizes = t.set_sizes()
    first, last = cfg.games[0], cfg.games[-1]
    series = list(cfg.series)
    n = len(series)
    out: list[str] = [f"{n:,} series on the same {cfg.seeds:,} seeds: "
                      f"{_names([_label(s) for s in series])}.\n"]
    add = out.append
    target = f"{AGREEMENT_TARGET:.0%}"
    reaches = {s: _reach(study, s) for s in series}
    fast = sorted((s for s in series if reaches[s].mean is not None),
                  key=lambda s: (reaches[s].mean, series.index(s)))
    never = [_label(s) for s in series if reaches[s].mean is None]
    dec = {s: study.metric(s, "agreement_decisive") for s in series}
    if fast:
        order = [f"{_label(s)} at {_games(reaches[s].mean)} games" for s in fast]
        text = (f"- **Fastest to {target} decisive agreement** (mean over seeds, on the "
                f"{sizes['decisive']:,} decisive states): {order[0]}")
        if len(order) > 1:
            text += f"; then {', '.join(order[1:])}"
        if never:
            text += (f"; {_names(never)} {'does' if len(never) == 1 else 'do'} not reach it "
                     f"within {_games(last)} games")
        add(text + ".")
    else:
        best = max(series, key=lambda s: (dec[s][0][-1], -series.index(s)))
        add(f"- **No series reaches {target} decisive agreement** (mean over seeds) within "
            f"{_games(last)} games; the closest is {_label(best)} with "
            f"{_pct(dec[best][0][-1])}.")
    score = {s: study.metric(s, "score_vs_optimal") for s in series}
    ranked = sorted(series, key=lambda s: (-score[s][0][-1], series.index(s)))
    top = ranked[0]
    mean, lo, hi = (v[-1] for v in score[top])
    text = (f"- **Best against the optimal player after {_games(last)} games:** {_label(top)} "
            f"scores {mean:.4f}{_interval_text(lo, hi, '.4f')} over both seats (0.5 = as good as "
            "optimal)")
    if n > 1:
        rest = [f"{_label(s)} {score[s][0][-1]:.4f}" for s in ranked[1:]]
        text += f"; then {', '.join(rest)}"
        second = ranked[1]
        if math.isfinite(lo) and math.isfinite(score[second][2][-1]):
            overlap = lo <= score[second][2][-1]
            text += (f". Its interval {'overlaps' if overlap else 'lies above'} that of "
                     f"{_label(second)}"
                     + (f" ({score[second][1][-1]:.4f}..{score[second][2][-1]:.4f}): "
                        f"{cfg.seeds:,} seeds do not settle which of the two is better"
                        if overlap else ""))
    add(text + ".")
    ranked = sorted(series, key=lambda s: (-dec[s][0][-1], series.index(s)))
    add(f"- **Decisive agreement after {_games(last)} games:** " + ", ".join(
        f"{_label(s)} {_pct(dec[s][0][-1])}"
        + _interval_text(dec[s][1][-1], dec[s][2][-1], ".1%") for s in ranked) + ".")
    rise_dec = [_label(s) for s in series if dec[s][0][-1] > dec[s][0][0]]
    rise_score = [_label(s) for s in series if score[s][0][-1] > score[s][0][0]]
    parts = []
    for what, rising in (("decisive agreement", rise_dec),
                         ("the score against the optimal player", rise_score)):
        if len(rising) == n:
            parts.append(f"{what} rises in every series")
        else:
            flat = [_label(s) for s in series if _label(s) not in rising]
            parts.append(f"{what} rises in {len(rising)} of {n} series (not in {_names(flat)})")
    add(f"- **From {_games(first)} to {_games(last)} games**, {parts[0]}, and {parts[1]} "
        "(means over seeds; every number is in the tables below).")
    return out


def _comparison_tables(study: Study) -> list[str]:
    """The games-to-target table and the score against the optimal player per checkpoint, one
    column per series."""
    cfg = study.config
    series = list(cfg.series)
    out: list[str] = []
    add = out.append
    add(f"## Games needed to reach {AGREEMENT_TARGET:.0%} decisive agreement\n")
    add(f"The first checkpoint where the mean over seeds reaches {AGREEMENT_TARGET:.0%}, and "
        "each seed's first checkpoint that does: how many seeds reach it, their median and "
        f"range (a seed that does not reach it within {_games(cfg.games[-1])} games counts as "
        "later than every checkpoint).\n")
    add("| series | mean over seeds reaches it at | seeds reaching | median over seeds | "
        "range over seeds |")
    add("|---|---:|---:|---:|---:|")
    for s in series:
        add(f"| {_label(s)} | " + " | ".join(_reach_cells(_reach(study, s), cfg.seeds)) + " |")
    add("")
    out += _per_checkpoint_table(
        study, series, "score_vs_optimal", "Score against the optimal player",
        "The learned greedy policy against the optimal player over both seats (0.5 = as good "
        "as optimal)")
    out += _per_checkpoint_table(
        study, series, "exploitability", "Exploitability",
        "What a best response wins against the learned greedy policy beyond the game's value, "
        "both seats summed (0 = nothing exploits it; OpenSpiel's exploitability)")
    return out


def _per_checkpoint_table(study: Study, series: list, metric: str, title: str,
                          meaning: str) -> list[str]:
    """A section with one row per checkpoint and one column per series: `metric`'s mean over
    seeds ± half-width of the 95% interval."""
    values = {s: study.metric(s, metric) for s in series}
    out = [f"## {title}\n", f"{meaning}: mean over seeds ± half-width of the 95% interval "
           "(mean (low..high) where the interval is cut at the metric's range).\n",
           "| games | " + " | ".join(_label(s) for s in series) + " |",
           "|---:|" + "---:|" * len(series)]
    for i, n in enumerate(study.config.games):
        out.append(f"| {_games(n)} | " + " | ".join(
            _cell(metric, *(v[i] for v in values[s])) for s in series) + " |")
    return out + [""]


def _state_sets(study: Study) -> list[str]:
    sizes = study.truth.set_sizes()
    return [
        "## State sets (the handout's caveats A-E)\n",
        "| set | states | meaning |",
        "|---|---:|---|",
        f"| all | {sizes['all']:,} | every <X,Y> with 0 <= X, Y < LTarget |",
        f"| reachable | {sizes['reachable']:,} | reachable from <0,0> under some legal play "
        f"(caveat B: {sizes['all'] - sizes['reachable']:,} are not) |",
        f"| on-path | {sizes['onpath']:,} | visited with probability >= 0.001 by two optimal "
        "players (caveats C, D) |",
        f"| decisive | {sizes['decisive']:,} | on-path, P* > 0, best J better than every other "
        "by >= 0.02 (caveats A, E) |",
        f"| lost | {sizes['lost']:,} | P* = 0: every J loses (caveat A); "
        f"{sizes['lost_reachable']:,} reachable |",
        f"| near-tie on-path | {sizes['near_tie_onpath']:,} | on-path with a gap below 0.02 "
        "(caveat E) |",
        "",
    ]


def _figure_lines(study: Study, figures: Sequence[tuple[str, str]]) -> list[str]:
    cfg = study.config
    others = [f for f in cfg.figure_formats if f != "png"]
    out = ["## Figures\n", "The numbers each curves figure draws are beside it as CSV "
           "(e.g. `figures/agreement.csv`: series, metric, games, mean and 95% band)"
           + (f"; every figure is also in {' and '.join(f.upper() for f in others)} "
              f"(`figures/*.{others[0]}`)" if others else "") + ".\n"]
    explained = seeds_explained = False
    for caption, path in figures:  # a caption may hold a series' label: escaped
        out.append(f"**{_markdown(caption)}**\n")
        alt = _markdown(caption.replace("[", "(").replace("]", ")"))
        out.append(f"![{alt}]({path})\n")
        if path.endswith("_seeds.png"):
            if not (cfg.comparison and seeds_explained):
                seeds_explained = True
                out.append("Left: the share of seeds whose learned J is optimal in each state "
                           "(green: all, red: none; grey: unreachable or lost, where every J "
                           "is as good); right: the learned win probability averaged over the "
                           "seeds with an estimate there.\n")
        elif "figures/learned_" in path and not (cfg.comparison and explained):
            explained = True  # once when learners are compared; under each M in an M report
            out.append("Right: green = the learned J is optimal; light grey = unreachable "
                       "(caveat B); dark grey = lost, P* = 0 (A); mid grey = no data; yellow = "
                       "wrong in a near-tie (E); orange = wrong where optimal play rarely or "
                       "never goes (C, D); red = wrong on a decisive state.\n")
    if len(cfg.series) > LEARNED_FIGURES_LIMIT:
        out.append(f"Learned tables are drawn for the first {LEARNED_FIGURES_LIMIT} of the "
                   f"{len(cfg.series)} series.\n")
    return out


def _series_tables(study: Study, spec: SeriesSpec, heading: str) -> list[str]:
    """One series' table of :data:`TABLE_METRICS` per checkpoint, and its decisive states
    still wrong at the end."""
    cfg = study.config
    mean, lo, hi = study.summary(spec, clipped=True)
    out = [f"### {heading}\n", "| games | " + " | ".join(TABLE_METRICS) + " |",
           "|---:|" + "---:|" * len(TABLE_METRICS)]
    for i, n in enumerate(cfg.games):
        cells = []
        for name in TABLE_METRICS:
            k = METRIC_NAMES.index(name)
            cells.append(_cell(name, mean[i, k], lo[i, k], hi[i, k]))
        out.append(f"| {_games(n)} | " + " | ".join(cells) + " |")
    out.append("")
    rows = study.wrong_decisive(spec)
    out.append(f"Decisive states still wrong after {_games(cfg.games[-1])} games (in how many "
               f"of {cfg.seeds:,} seeds):\n")
    if not rows:
        out.append("none.\n")
    else:
        out.append("| <X,Y> | seeds wrong | optimal J | gap |")
        out.append("|---|---:|---|---:|")
        for x, y, count, opt, gap in rows[:15]:
            out.append(f"| <{x},{y}> | {count:,} | {', '.join(map(str, opt))} | {gap:.4f} |")
        if len(rows) > 15:
            out.append(f"\n... and {len(rows) - 15:,} more.")
        out.append("")
    return out


def handout_markdown(study: Study, figures: Sequence[tuple[str, str]]) -> str:
    """report.md of the handout's game: the game, P*(0,0), a plain-language summary (for a
    comparison of learners, its conclusions in numbers and the games-to-95% and score tables),
    the state sets, figures and tables."""
    cfg = study.config
    out = _header(study)
    out.append("## What was found\n")
    if cfg.comparison:
        out += _comparison_findings(study)
        out.append("")
        out += _comparison_tables(study)
    else:
        out += _m_findings(study)
        out.append("")
    out += _state_sets(study)
    out += _figure_lines(study, figures)
    out.append("## Tables\n")
    out.append("Mean over seeds ± half-width of the 95% interval; where the interval passes "
               "the metric's range (e.g. agreement above 1) it is cut there and shown as mean "
               "(low..high) (`metrics.json` keeps its raw ends). "
               "Every metric at every checkpoint is in `metrics.csv` (per run) and "
               "`metrics.json` (summaries); definitions in docs/design/metrics.md. The columns:\n")
    out += [f"- `{name}`: {METRIC_HELP[name]}" for name in TABLE_METRICS]
    out.append("")
    for s in cfg.series:
        out += _series_tables(study, s, _label(s) if cfg.comparison else f"M = {s.m:g}")
    out.append("## Reproducing this report\n")
    out.append(f"Running the command above again rewrites `report.md`, `metrics.csv`, "
               f"`metrics.json` and the figures' CSV byte for byte on any machine, whatever the "
               f"number of workers (numbers at 12 significant digits); the pictures, and "
               f"`report.html` which embeds them, under the same matplotlib; run times vary, so "
               f"they are kept apart in `{TIMING_FILE}`.\n")
    return "\n".join(out).rstrip("\n") + "\n"
