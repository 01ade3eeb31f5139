"""The Yamslam re-roll study redone against exact truth: its numbers, computed
(:func:`yamslam_study`) and written as a report (:func:`yamslam_report`).

The study learns, for each of the 252 sorted rolls and 32 hold masks, the running average of the
score difference over N directed trials (:class:`~dicejack.learners.directed_average.
DirectedAverage`), and plots against N the agreement on the best mask and the RMS difference,
both measured against a 10,000-trial reference table, reading knees at about 800 and 1,600
trials. Here the same curves are drawn against the exact expected gains (the solver's, exact
in Fractions for the ties: many masks hold the same dice), beside the curves against a
10,000-trial reference table learned with its own seed, so the reference's own noise shows.
Agreement against exact truth is tie-aware (the learned best mask is one of the optimal ones);
against the reference it is counted as such a study counts it (the same mask as the
reference's best) and with masks that hold the same dice merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dicejack.games import Yamslam
from dicejack.games.yamslam import held_dice
from dicejack.learners.directed_average import DirectedAverage
from dicejack.solver import solve
from dicejack.solver.generic import evaluate_policy

__all__ = ["YamslamStudy", "yamslam_study", "yamslam_report"]


@dataclass(frozen=True)
class YamslamStudy:
    """The study's settings: seeds of the learners, trials per pair at which they are measured,
    the reference table's trials and seed."""

    seeds: tuple[int, ...] = (1, 2, 3, 4, 5)
    trials: tuple[int, ...] = (10, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400)
    reference_trials: int = 10_000
    reference_seed: int = 0


class _Truth:
    """The exact solution seen as the study's table: per pair (the learner's order) the exact
    gain, per roll its optimal masks and the dice each mask holds."""

    def __init__(self, learner: DirectedAverage) -> None:
        game = learner.game
        self.sol = solve(game, exact=True)
        space = self.sol.space
        self.pairs = learner.pairs
        self.gain = self.sol.q[self.pairs] - learner.baseline
        self.optimal = self.sol.optimal[self.pairs].reshape(-1, 32)
        self.rolls = [space.states[s] for s in learner.learned_states]
        # the dice a mask holds as one number: per face, how many (base 6)
        self.held = np.array([[sum(6 ** (d - 1) for d in held_dice(state[0], mask))
                               for mask in range(32)] for state in self.rolls], dtype=np.int64)
        start = space.row_start[:-1]
        self.first = start[learner.learned_states]  # the row of mask 0 per roll
        self.space = space
        exact = self.sol.values_exact
        self.value = exact[0] if exact is not None else Fraction(0)


def _best(gains: np.ndarray) -> np.ndarray:
    """Per roll, the mask with the largest gain (the first on ties)."""
    return np.argmax(gains.reshape(-1, 32), axis=1)


def _policy_value(truth: _Truth, masks: np.ndarray) -> float:
    """Exact expected final score when every roll plays its mask of `masks`."""
    space = truth.space
    w = np.zeros(space.n_rows)
    w[space.row_start[0]] = 1.0  # the start's one action: roll
    w[truth.first + masks] = 1.0
    return float(evaluate_policy(space, w)[0])


def _measure(truth: _Truth, gains: np.ndarray, ref: np.ndarray) -> dict[str, float]:
    best = _best(gains)
    ref_best = _best(ref)
    rows = np.arange(len(best))
    return {
        "agree_exact": float(np.mean(truth.optimal[rows, best])),
        "rms_exact": float(np.sqrt(np.mean((gains - truth.gain) ** 2))),
        "agree_ref": float(np.mean(best == ref_best)),
        "agree_ref_held": float(np.mean(truth.held[rows, best] == truth.held[rows, ref_best])),
        "rms_ref": float(np.sqrt(np.mean((gains - ref) ** 2))),
        "loss": float(truth.value) - _policy_value(truth, best),
    }


def yamslam_study(config: YamslamStudy = YamslamStudy()) -> dict[str, Any]:
    """Every number of the study (module docstring), as plain values."""
    game = Yamslam(1)
    reference = DirectedAverage(game, config.reference_seed)
    truth = _Truth(reference)
    n_pairs = len(reference.pairs)
    reference.play(config.reference_trials * n_pairs)
    ref = reference.gains()
    ref_best = _best(ref)
    rows = np.arange(len(ref_best))
    out: dict[str, Any] = {"config": config, "pairs": n_pairs, "rolls": len(truth.rolls)}
    out["reference"] = {
        "agree_exact": float(np.mean(truth.optimal[rows, ref_best])),
        "rms_exact": float(np.sqrt(np.mean((ref - truth.gain) ** 2))),
        "loss": float(truth.value) - _policy_value(truth, ref_best),
    }
    ties = truth.optimal.sum(axis=1)
    distinct = np.array([len(set(row)) for row in truth.held])
    out["ties"] = {"rolls_with_ties": int(np.sum(ties > 1)), "most": int(ties.max()),
                   "mean_optimal": float(ties.mean()), "distinct_holds": float(distinct.mean())}
    out["value"] = truth.value
    out["spread"] = float(np.sqrt(np.mean(_pair_variance(reference, truth))))
    runs = []
    for seed in config.seeds:
        learner = DirectedAverage(game, seed)
        for n in config.trials:
            learner.play(n * n_pairs - learner.played)
            runs.append({"seed": seed, "trials": n, **_measure(truth, learner.gains(), ref)})
    out["runs"] = runs
    two = solve(Yamslam(2))
    out["two_rerolls"] = {"value": two.value, "one_value": float(truth.value),
                          **_myopic(truth, two)}
    return out


def _pair_variance(learner: DirectedAverage, truth: _Truth) -> np.ndarray:
    """Per pair, the exact variance of one trial's score difference (its outcomes' spread)."""
    space = truth.space
    t = space.transitions
    out = np.zeros(len(learner.pairs))
    for k, r in enumerate(learner.pairs.tolist()):
        lo, hi = t.indptr[r], t.indptr[r + 1]
        p, x = t.data[lo:hi], space.payoff[t.indices[lo:hi]]
        mean = float(p @ x)
        out[k] = float(p @ (x - mean) ** 2)
    return out


def _myopic(truth: _Truth, two: Any) -> dict[str, Any]:
    """With two re-rolls: how often the best first re-roll is not a mask the one-re-roll
    table calls best, and what playing that table's choice first costs (exactly)."""
    space = two.space
    w = two.policy().copy()
    differs = 0
    for i, state in enumerate(truth.rolls):
        s = space.index[(state[0], 2)]
        rows = list(space.rows(s))
        one_best = [m for m in range(32) if truth.optimal[i, m]]
        if not any(two.optimal[rows[m]] for m in one_best):
            differs += 1
        w[rows[0]:rows[-1] + 1] = 0.0
        w[rows[one_best[0]]] = 1.0
    return {"first_differs": differs, "myopic_value": float(evaluate_policy(space, w)[0])}


# ------------------------------------------------------------------------------- the report
def _band(values: list[float], digits: int) -> str:
    a = np.asarray(values, dtype=np.float64)
    f = f"{{:.{digits}f}}"
    return f"{f.format(np.median(a))} [{f.format(a.min())}, {f.format(a.max())}]"


def _grid(result: dict[str, Any], key: str) -> np.ndarray:
    """The runs' `key` as an array: one row per seed, one column per trial count."""
    cfg: YamslamStudy = result["config"]
    runs = result["runs"]
    return np.array([[next(r[key] for r in runs if r["seed"] == s and r["trials"] == n)
                      for n in cfg.trials] for s in cfg.seeds])


def _ys_head_lines(result: dict[str, Any], command: str) -> list[str]:
    """The README up to the learner's table header: the game solved exactly and the
    reference table."""
    cfg: YamslamStudy = result["config"]
    ref, ties, value = result["reference"], result["ties"], result["value"]
    lines = [
        "# The Yamslam re-roll study against exact truth",
        "",
        f"Regenerate: `{command}` (byte for byte). docs/studies.md explains the study.",
        "",
        "## The game, solved exactly",
        "",
        f"- one re-roll: {result['rolls']} sorted rolls x 32 masks = {result['pairs']:,} pairs; "
        f"optimal expected final score {value.numerator}/{value.denominator} = "
        f"{float(value):.6f}",
        f"- ties: {ties['rolls_with_ties']} of {result['rolls']} rolls have more than one "
        f"optimal mask (up to {ties['most']}; {ties['mean_optimal']:.2f} on average): masks "
        f"that hold the same dice; a roll's 32 masks hold {ties['distinct_holds']:.2f} "
        "different sets of dice on average",
        f"- one trial's score difference has an exact standard deviation of "
        f"{result['spread']:.3f} points (root mean square over the pairs): N trials estimate a "
        f"gain to about {result['spread']:.2f}/sqrt(N)",
        f"- two re-rolls (the real game, a finite-horizon MDP): optimal expected final score "
        f"{result['two_rerolls']['value']:.6f}; on {result['two_rerolls']['first_differs']} of "
        f"{result['rolls']} rolls the best first re-roll is none of the masks the one-re-roll "
        "table calls best; playing that table's best mask first (then optimally) scores "
        f"{result['two_rerolls']['myopic_value']:.6f}",
        "",
        f"## The reference table: {cfg.reference_trials:,} trials per pair (seed "
        f"{cfg.reference_seed})",
        "",
        f"- its best mask is optimal on {ref['agree_exact']:.1%} of the rolls; RMS difference "
        f"from the exact gains {ref['rms_exact']:.4f} points; playing it loses "
        f"{ref['loss']:.6f} points a game against optimal play",
        "",
        f"## The learner against exact truth and against the reference ({len(cfg.seeds)} seeds;"
        " median [smallest, largest])",
        "",
        "| trials per pair | agreement, exact (tie-aware) | agreement with the reference "
        "(same mask) | agreement with the reference (same dice held) | RMS vs exact | RMS vs "
        "the reference | share of RMS² vs the reference from its noise | points lost a game |",
        "|---|---|---|---|---|---|---|---|",
    ]
    return lines


def _ys_table_lines(result: dict[str, Any], grids: dict[str, np.ndarray]) -> list[str]:
    """The learner's table rows (one per trial count), the figure links and the note on the
    reference's noise."""
    ns = list(result["config"].trials)
    ref = result["reference"]
    ae, ar, ah = grids["agree_exact"], grids["agree_ref"], grids["agree_ref_held"]
    re_, rr, loss = grids["rms_exact"], grids["rms_ref"], grids["loss"]
    lines: list[str] = []
    for j, n in enumerate(ns):
        share = ref["rms_exact"] ** 2 / np.median(rr[:, j]) ** 2
        lines.append(
            f"| {n:,} | {_band(list(ae[:, j]), 3)} | {_band(list(ar[:, j]), 3)} | "
            f"{_band(list(ah[:, j]), 3)} | {_band(list(re_[:, j]), 4)} | "
            f"{_band(list(rr[:, j]), 4)} | {share:.0%} | {_band(list(loss[:, j]), 5)} |")
    lines += [
        "",
        "![agreement versus trials](agreement.png)",
        "",
        "![RMS difference versus trials](rms.png)",
        "",
        "*Share of RMS² from the reference's noise*: the reference's own mean squared error "
        "(against the exact gains) over the median mean squared difference from it; the two "
        "tables are independent, so their squared errors add.",
        "",
    ]
    return lines


def _ys_runs_csv(runs: list[dict[str, Any]]) -> str:
    """runs.csv: one row per seed and trial count."""
    csv = ["seed,trials,agree_exact,agree_ref,agree_ref_held,rms_exact,rms_ref,loss"]
    for r in runs:
        csv.append(f"{r['seed']},{r['trials']},{r['agree_exact']:.6f},{r['agree_ref']:.6f},"
                   f"{r['agree_ref_held']:.6f},{r['rms_exact']:.9f},{r['rms_ref']:.9f},"
                   f"{r['loss']:.9f}")
    return "\n".join(csv) + "\n"


def _ys_figures(result: dict[str, Any], grids: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """The agreement and RMS figures' arguments."""
    from dicejack.figures.study_figures import Curve

    cfg: YamslamStudy = result["config"]
    ns = list(cfg.trials)
    ref = result["reference"]
    ae, ar, ah = grids["agree_exact"], grids["agree_ref"], grids["agree_ref_held"]
    re_, rr = grids["rms_exact"], grids["rms_ref"]
    marks = (800, 1600)
    figures = [
        {"file": "agreement.png", "curves": [
            Curve("against exact truth (tie-aware)", ns, ae),
            Curve(f"against the {cfg.reference_trials:,}-trial reference (same mask)", ns, ar),
            Curve("against the reference (same dice held)", ns, ah)],
         "title": "Agreement on the best mask (252 rolls)", "xlabel": "trials per (roll, mask)",
         "ylabel": "share of rolls", "marks": marks},
        {"file": "rms.png", "curves": [
            Curve("against exact truth", ns, re_),
            Curve(f"against the {cfg.reference_trials:,}-trial reference", ns, rr),
            Curve("the reference's own RMS error", ns, [[ref["rms_exact"]] * len(ns)],
                  dashed=True)],
         "title": "RMS difference of the gain table (8,064 pairs)",
         "xlabel": "trials per (roll, mask)", "ylabel": "RMS (points)", "marks": marks,
         "log_y": True},
    ]
    return figures


def yamslam_report(result: dict[str, Any], command: str) -> tuple[str, str, list[tuple]]:
    """(README.md text, runs.csv text, figures: dicts of :func:`~dicejack.figures.study_figures.
    curves_figure`'s arguments and "file")."""
    grids = {key: _grid(result, key) for key in
             ("agree_exact", "agree_ref", "agree_ref_held", "rms_exact", "rms_ref", "loss")}
    lines = [*_ys_head_lines(result, command), *_ys_table_lines(result, grids)]
    return "\n".join(lines) + "\n", _ys_runs_csv(result["runs"]), _ys_figures(result, grids)
