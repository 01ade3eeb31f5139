"""What a report draws, for any game: its figures into the report's figures/ folder.

Owns choosing the figures and their numbers, not drawing them (:mod:`dicejack.figures`). Every
report draws its curves over checkpoints with 95% bands over seeds, each figure's numbers
beside it as CSV. The handout's game adds its optimal policy and each series' learned tables
(the first seed's, and the share of seeds right over all of them: :func:`learned_figures`, by
:func:`dicejack.figures.plot_figures`); a game with two score axes (Pig, Piglet:
:mod:`dicejack.report.score_axes`) adds the roll/hold boundary as Neller and Presser draw it,
optimal and learned (``figures/policy.png`` and its numbers ``policy.csv``, by
:mod:`dicejack.figures.game_maps`). A game with hidden information draws its average policy's
exploitability, value error and value in either seat against a best response, beside the
game's value, over CFR's iterations (:func:`information_panels`).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from dicejack import figures, formats
from dicejack.figures.convergence import plot_curves
from dicejack.figures.game_maps import ScoreMap, plot_score_maps
from dicejack.report.config import LEARNED_FIGURES_LIMIT
from dicejack.report.runs import information_value
from dicejack.report.score_axes import hold_rows, mean_by_scores, score_axes, stop_totals
from dicejack.report.study import Study

__all__ = ["GAME_PANELS", "MAP_SERIES_LIMIT", "curve_series", "information_panels",
           "learned_figures", "plot"]

#: Most series drawn on the score maps (one column each).
MAP_SERIES_LIMIT = 4

#: The curves figures of a report on another game: file stem, title and panels (the handout's:
#: :data:`dicejack.figures.convergence.CURVE_FIGURES`).
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


def information_panels(value: float) -> tuple[figures.Panel, ...]:
    """The panels of a game with hidden information's curves figure, the game's `value` drawn
    across its value panels (the gains and errors cut at 0 below, the values not cut)."""
    gain, anything = (0.0, math.inf), (-math.inf, math.inf)
    return (
        figures.Panel("exploitability", "Exploitability (exact)", "payoff", logy=True,
                      zero=True, band=gain),
        figures.Panel("loss_first", "Seat 0's loss against the game value", "payoff",
                      logy=True, zero=True, band=gain),
        figures.Panel("value_first", "Seat 0 against the equilibrium", "player 0's payoff",
                      hline=value, band=anything),
        figures.Panel("value_second", "Seat 1 against the equilibrium", "player 0's payoff",
                      hline=value, band=anything),
    )


def curve_series(study: Study) -> list[figures.Series]:
    """One curve per series of the study, for every panel of the curves figures."""
    cfg = study.config
    return [figures.Series(cfg.legend(s),
                           {name: study.metric(s, name) for name in study.metric_names})
            for s in cfg.series]


def learned_figures(study: Study) -> list[figures.LearnedFigure]:
    """The handout's game's learned tables drawn: each series' first seed at the last
    checkpoint, for the first :data:`~dicejack.report.config.LEARNED_FIGURES_LIMIT` series."""
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


def plot(study: Study, folder: Path) -> list[tuple[str, str]]:
    """Every figure of the report into `folder`; returns (caption, path in the report)
    pairs, in the report's order."""
    cfg = study.config
    if not cfg.protocol:
        return figures.plot_figures(folder, study.truth, cfg.games, curve_series(study),
                                    learned_figures(study), cfg.figure_formats)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    if cfg.information:
        value = information_value(study.truth)
        plot_curves(folder / "convergence.png", cfg.games, curve_series(study),
                    information_panels(value), fmts=cfg.figure_formats,
                    suptitle=f"Average policy against exact: {cfg.game_label}",
                    xlabel="iterations (NGAMES)")
        return [(f"The average policy against exact, mean over {cfg.seeds} seeds with 95% "
                 f"bands (dashed: the game's value {value:.6f}; numbers: "
                 "figures/convergence.csv)", "figures/convergence.png")]
    for stem, title, panels in GAME_PANELS:
        plot_curves(folder / f"{stem}.png", cfg.games, curve_series(study), panels,
                    suptitle=f"{title}: {cfg.game_label}", fmts=cfg.figure_formats)
        out.append((f"{title}, mean over {cfg.seeds} seeds with 95% bands (numbers: "
                    f"figures/{stem}.csv)", f"figures/{stem}.png"))
    if score_axes(cfg.game_object, study.truth.space) is not None:
        out.append(_score_maps(study, folder))
    return out


def _maps_csv(goal: int, names: list[str], maps: list[np.ndarray]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["i", "j", *names])
    for i in range(goal):
        for j in range(goal):
            w.writerow([i, j, *("" if not np.isfinite(m[i, j]) else f"{float(m[i, j]):.4g}"
                                for m in maps)])
    return buf.getvalue()


def _score_maps(study: Study, folder: Path) -> tuple[str, str]:
    """The roll/hold boundary of a game with score axes, optimal and learned, into
    ``policy.png`` and ``policy.csv``; returns its (caption, path)."""
    cfg, sol = study.config, study.truth
    axes = score_axes(cfg.game_object, sol.space)
    hold = hold_rows(sol.space)
    has_hold = hold >= 0
    optimal_hold = has_hold & sol.optimal[np.maximum(hold, 0)]
    live = ~sol.space.terminal
    optimal = stop_totals(axes, optimal_hold, live)
    learned_row: list[ScoreMap | None] = [
        ScoreMap("Optimal: turn total at which player 0 stops", optimal, top=axes.goal)]
    share_row: list[ScoreMap | None] = [None]
    names, columns = ["optimal_stop"], [optimal]
    for s in cfg.series[:MAP_SERIES_LIMIT]:
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
                    suptitle=f"The roll/hold boundary after {cfg.games[-1]:,} games: "
                             f"{cfg.game_label}", fmts=cfg.figure_formats)
    formats.write_atomic(folder / "policy.csv", _maps_csv(axes.goal, names, columns))
    more = (f" (the first {MAP_SERIES_LIMIT} series)" if len(cfg.series) > MAP_SERIES_LIMIT
            else "")
    return ("The roll/hold boundary as Neller and Presser draw it: per (my score i, "
            "opponent's score j), the turn total at which the mover stops rolling (holds, "
            "or reaches the goal), optimal and learned (first seed, player 0), and below, "
            "the share of states at (i, j), both seats, where the learned action is "
            f"optimal, over the seeds{more} (numbers: figures/policy.csv)", "figures/policy.png")
