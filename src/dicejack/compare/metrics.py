"""The metrics of a learned policy against the exact solution, for every game: the handout's
tables against the truth (docs/design/metrics.md), the full comparison and its text (vectorised
numpy plus two exact policy evaluations per comparison); and any protocol game's learned policy
per state against its solution (:func:`learned_metrics`: policy agreement over every state, the
decisive ones, the on-path ones, weighted by optimal play's visits; value error; the exact value
of the learned policy against optimal play in each seat; its exploitability), its record and
text (:func:`compare_game`, ``dicejack compare --game``). The per-state metrics take plain arrays
(a best row per state, -1 = no data, and the learner's value estimates), so any learner's tables
fit, and any solution (:class:`~dicejack.solver.BaseSolution`: the handout's too, through its
per-row view)."""

from __future__ import annotations

import math
import warnings
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack import solver
from dicejack.compare.hints import table_hints
from dicejack.compare.learned import Learned, as_learned
from dicejack.compare.truth import (
    DECISIVE_MIN_GAP,
    ONPATH_MIN_VISIT,
    CompareError,
    CompareWarning,
    Truth,
    truth,
)
from dicejack.formats.json_output import json_safe
from dicejack.games.handout_rules import Game
from dicejack.games.protocol import game_label, game_params
from dicejack.solver import Solution
from dicejack.solver.best_response import SeatValues
from dicejack.solver.generic import (
    evaluate_policy,
    expected_visits,
    game_exploitability,
    level_structure,
)
from dicejack.solver.generic_output import plain
from dicejack.solver.results import BaseSolution, GameSolution

#: Metric names, in the order of every table, CSV and JSON dicejack writes.
METRIC_NAMES: tuple[str, ...] = (
    "agreement_all",
    "agreement_reachable",
    "agreement_onpath",
    "agreement_decisive",
    "weighted_agreement",
    "rmse_onpath",
    "mae_onpath",
    "max_error_onpath",
    "rmse_q_onpath",
    "regret_decisive",
    "weighted_regret",
    "score_vs_optimal",
    "exploitability",
    "states_with_data",
)

#: The range each metric can take (a mean over seeds and its interval's ends are clipped to it where
#: they are shown; a Student-t interval near a bound can cross it).
METRIC_RANGES: dict[str, tuple[float, float]] = {
    **{name: (0.0, 1.0) for name in METRIC_NAMES},
    "states_with_data": (0.0, math.inf),
}

#: Codes of :func:`state_classes`, for the disagreement heatmap (caveats named).
STATE_CLASSES: tuple[str, ...] = (
    "agrees with optimal",
    "unreachable (B)",
    "lost: P* = 0 (A)",
    "no data",
    "wrong, near-tie (E)",
    "wrong, off-path / rare (C, D)",
    "wrong, decisive",
)


def greedy_distribution(t: Truth, learned: Learned) -> np.ndarray:
    """The learned greedy policy as an action distribution: its best J where it has data, a
    uniformly random J (1/K each) elsewhere; a mixed policy's own distribution."""
    if learned.distribution is not None:
        return learned.distribution
    k = t.game.n_dice
    dist = np.zeros(t.game.table_shape)
    dist[:, :, 1:] = np.where(learned.has_data[:, :, None], 0.0, 1.0 / k)
    rows, cols = np.nonzero(learned.has_data)
    dist[rows, cols, learned.best[rows, cols]] = 1.0
    return dist


def _per_state(t: Truth, learned: Learned) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(agree, q_learned, regret) per state; no-data states use a uniformly random J."""
    sol = t.solution
    has = learned.has_data
    j = np.where(has, learned.best, 1)[:, :, None]
    agree = has & np.take_along_axis(sol.optimal, j, axis=2)[:, :, 0]
    q_b = np.where(has, np.take_along_axis(sol.q, j, axis=2)[:, :, 0], t.random_q)
    if learned.distribution is not None:  # a mixed policy: its expected Q*
        q_b = (learned.distribution[:, :, 1:] * sol.q[:, :, 1:]).sum(axis=2)
    regret = np.maximum(sol.p - q_b, 0.0)
    return agree, q_b, regret


def _mean(values: np.ndarray, mask: np.ndarray) -> float:
    return float(values[mask].mean()) if mask.any() else float("nan")


def metric_values(t: Truth, learned: Learned) -> dict[str, float]:
    """Every metric of docs/design/metrics.md, in :data:`METRIC_NAMES` order (see the module
    docstring)."""
    game, sol = t.game, t.solution
    if learned.best.shape != game.shape:
        raise CompareError(f"the learned table is not {game.low}x{game.low}")
    agree, q_b, regret = _per_state(t, learned)
    est = learned.has_estimate & t.onpath
    err = learned.probability - sol.p
    err_q = learned.probability - q_b
    if est.any():
        e = err[est]
        rmse, mae, mx = float(np.sqrt(np.mean(e * e))), float(np.mean(np.abs(e))), float(
            np.max(np.abs(e))
        )
        eq = err_q[est]
        rmse_q = float(np.sqrt(np.mean(eq * eq)))
    else:
        rmse = mae = mx = rmse_q = float("nan")
    greedy = greedy_distribution(t, learned)
    first = solver.evaluate(game, greedy, t.optimal_dist)
    second = solver.evaluate(game, t.optimal_dist, greedy)
    exploit = solver.exploitability(game, greedy)
    return {
        "agreement_all": float(agree.mean()),
        "agreement_reachable": _mean(agree, t.reachable),
        "agreement_onpath": _mean(agree, t.onpath),
        "agreement_decisive": _mean(agree, t.decisive),
        "weighted_agreement": float(np.sum(t.weights * agree)),
        "rmse_onpath": rmse,
        "mae_onpath": mae,
        "max_error_onpath": mx,
        "rmse_q_onpath": rmse_q,
        "regret_decisive": _mean(regret, t.decisive),
        "weighted_regret": float(np.sum(t.weights * regret)),
        "score_vs_optimal": 0.5 * (first + 1.0 - second),
        "exploitability": exploit,
        "states_with_data": float(learned.has_data.sum()),
    }


@dataclass(frozen=True)
class WrongState:
    """A decisive state where the learned policy is not optimal."""

    x: int
    y: int
    learned: int  # 0 = no data
    optimal: tuple[int, ...]
    p_star: float
    q_learned: float
    regret: float
    gap: float
    visit: float
    estimate: float  # -1 = no estimate


@dataclass(frozen=True, eq=False)
class Comparison:
    """Result of :func:`compare`: the metrics, the state-set sizes, the wrong decisive states."""

    game: Game
    source: str
    p00: float
    metrics: dict[str, float]
    sets: dict[str, int]
    wrong_decisive: tuple[WrongState, ...]
    #: What a best response wins against the learned greedy policy (``SeatValues``):
    #: moving first, moving second; exploitability = first + second - 1.
    best_response: SeatValues | None = None

    def __getattr__(self, name: str) -> float:
        # c.agreement_decisive etc.; only called for names that are not fields.
        metrics = self.__dict__.get("metrics", {})
        if name in metrics:
            return metrics[name]
        raise AttributeError(name)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: plain Python values, every non-finite number (NaN, +-inf) as None."""
        return json_safe({
            "params": self.game.params(),
            "source": self.source,
            "p00": self.p00,
            "sets": dict(self.sets),
            "metrics": dict(self.metrics),
            "best_response": None if self.best_response is None else {
                "first": self.best_response.first, "second": self.best_response.second,
            },
            "wrong_decisive": [
                {
                    "x": w.x, "y": w.y, "learned": w.learned, "optimal": list(w.optimal),
                    "p_star": w.p_star, "q_learned": w.q_learned, "regret": w.regret,
                    "gap": w.gap, "visit": w.visit, "estimate": w.estimate,
                }
                for w in self.wrong_decisive
            ],
        })


def compare(
    game: Game, sol: Solution | Truth | None, learned: Any, *, hints: bool = True,
    zero_based: bool = False,
) -> Comparison:
    """Compare `learned` with the truth: a run, a :class:`Learned` (see the constructors
    learned_from_tables / _counts / _q / _policy), (best, probability), (win, lose), or a policy
    alone (a callable (x, y) -> J, a table of J, an OpenSpiel policy once dicejack.envs.openspiel is
    imported; its probability metrics are NaN).

    `sol` may be a Solution, a prepared :class:`Truth` (fastest for many comparisons) or None.
    `hints`: printed tables or a table of J that look transposed or 0-based raise a
    :class:`CompareWarning` saying what fits better (the comparison is still of what was handed).
    A policy alone plays J from 1: a 0 is refused as a 0-based policy, unless `zero_based` (a
    table or callable of actions 0..K-1). The result's ``best_response`` holds what a best
    response wins moving first and moving second (their sum minus 1 is the exploitability).
    """
    t = sol if isinstance(sol, Truth) else truth(game, sol)
    if t.game != game:
        raise CompareError(f"the truth is for a different game ({t.game})")
    lt = as_learned(game, learned, zero_based=zero_based)
    if hints:
        _warn_slips(t, learned, zero_based)
    metrics = metric_values(t, lt)
    br = solver.best_response(game, greedy_distribution(t, lt))
    agree, q_b, regret = _per_state(t, lt)
    wrong = t.decisive & ~agree
    xs, ys = np.nonzero(wrong)
    order = np.lexsort((ys, xs, -regret[xs, ys]))  # worst regret first, then by state
    sol_ = t.solution
    rows = tuple(
        WrongState(
            x=int(x), y=int(y), learned=int(lt.best[x, y]),
            optimal=tuple(int(j) for j in np.flatnonzero(sol_.optimal[x, y])),
            p_star=float(sol_.p[x, y]), q_learned=float(q_b[x, y]), regret=float(regret[x, y]),
            gap=float(sol_.gap[x, y]), visit=float(t.visit[x, y]),
            estimate=float(lt.probability[x, y]),
        )
        for x, y in zip(xs[order], ys[order], strict=True)
    )
    return Comparison(game, lt.source, t.p00, metrics, t.set_sizes(), rows,
                      SeatValues(br.first, br.second))


def _warn_slips(t: Truth, learned: Any, zero_based: bool = False) -> None:
    """A CompareWarning per slip :func:`table_hints` finds in printed tables or a table of J."""
    game = t.game
    if isinstance(learned, (tuple, list)) and len(learned) == 2:
        best, probability = np.asarray(learned[0]), np.asarray(learned[1])
    elif isinstance(learned, np.ndarray) and learned.shape == game.shape:
        best = learned + 1 if zero_based and learned.dtype.kind in "iuf" else learned
        probability = np.full(game.shape, np.nan)
    else:
        return
    if best.shape != game.shape or probability.shape != game.shape or best.dtype.kind not in "iuf":
        return
    for line in table_hints(t, best, probability).messages(game.n_dice):
        warnings.warn(line, CompareWarning, stacklevel=3)


def state_classes(t: Truth, learned: Learned) -> np.ndarray:
    """(L, L) int codes into :data:`STATE_CLASSES`, for the disagreement heatmap.

    Precedence: unreachable, lost, agrees, no data, then the kind of mistake (near-tie, off-path
    or rare, decisive) — so every caveat A-E is visible where it applies.
    """
    agree, _, _ = _per_state(t, learned)
    codes = np.full(t.game.shape, 6, dtype=np.int64)  # wrong, decisive
    codes[~t.decisive] = 5
    codes[t.near_tie & ~t.decisive] = 4
    codes[~learned.has_data] = 3
    codes[agree] = 0
    codes[t.lost] = 2
    codes[~t.reachable] = 1
    return codes


#: One-line meaning of each metric, for printed tables.
METRIC_HELP: dict[str, str] = {
    "agreement_all": "share of all states where the learned J is optimal",
    "agreement_reachable": "the same over states reachable from <0,0>",
    "agreement_onpath": "the same over on-path states (optimal visit probability >= 0.001)",
    "agreement_decisive": "the same over decisive states (on-path, P* > 0, gap >= 0.02)",
    "weighted_agreement": "agreement weighted by optimal visit probability",
    "rmse_onpath": "RMSE of the estimate against P*, on-path states with data",
    "mae_onpath": "mean |estimate - P*|, on-path",
    "max_error_onpath": "max |estimate - P*|, on-path",
    "rmse_q_onpath": "RMSE of the estimate against Q*(s, learned J), on-path",
    "regret_decisive": "mean P* - Q*(s, learned J) over decisive states",
    "weighted_regret": "regret weighted by optimal visit probability",
    "score_vs_optimal": "learned greedy policy vs optimal, both seats (0.5 = optimal)",
    "exploitability": "what a best response wins beyond the game's value, both seats (0 = optimal)",
    "states_with_data": "states where the table has any data",
}


def format_comparison(c: Comparison, limit: int | None = 40, *, more: str = "limit=None") -> str:
    """The comparison as a readable text table, then the wrong decisive states (worst first):
    the first `limit` of them, then "... and N more (`more` for all)" (the command line says
    how it gets them all: ``--format json``)."""
    s = c.sets
    lines = [
        f"game: {c.game}; optimal first-player win probability P*(0,0) = {c.p00:.6f}",
        f"states: {s['all']} all, {s['reachable']} reachable, {s['onpath']} on-path, "
        f"{s['decisive']} decisive, {s['lost']} lost (P* = 0)",
    ]
    if c.source:
        lines.insert(0, f"learned: {c.source}")
    lines.append("")
    width = max(len(n) for n in METRIC_NAMES)
    lines.append(f"{'metric':<{width}}  {'value':>10}  meaning")
    lines.append("-" * (width + 14 + max(len(h) for h in METRIC_HELP.values())))
    for name in METRIC_NAMES:
        v = c.metrics[name]
        if not np.isfinite(v):
            text = "n/a"
        elif name == "states_with_data":
            text = f"{int(v)}"
        else:
            text = f"{v:.6f}"
        lines.append(f"{name:<{width}}  {text:>10}  {METRIC_HELP[name]}")
    br = c.best_response
    if br is not None:
        lines.append(
            f"A best response wins {br.first:.6f} moving first and {br.second:.6f} moving second "
            f"(optimal play: {c.p00:.6f} and {1 - c.p00:.6f}); exploitability = the sum - 1."
        )
    lines.append("")
    wrong = c.wrong_decisive
    if not wrong:
        lines.append(f"The learned policy is optimal in all {s['decisive']} decisive states.")
        return "\n".join(lines) + "\n"
    lines.append(
        f"Decisive states where the learned policy is wrong: {len(wrong)} of {s['decisive']}, "
        "worst regret first (learned 0 = no data, played as a uniformly random J):"
    )
    lines.append(
        f"{'<X,Y>':>8} {'learned':>7} {'optimal':>8} {'P*':>8} {'Q*(learned)':>11} "
        f"{'regret':>8} {'gap':>8} {'visit':>8} {'estimate':>9}"
    )
    shown = wrong if limit is None else wrong[:limit]
    for w in shown:
        est = "-1" if w.estimate == -1 else f"{w.estimate:.4f}"
        lines.append(
            f"{f'<{w.x},{w.y}>':>8} {w.learned:>7} {','.join(map(str, w.optimal)):>8} "
            f"{w.p_star:>8.4f} {w.q_learned:>11.4f} {w.regret:>8.4f} {w.gap:>8.4f} "
            f"{w.visit:>8.4f} {est:>9}"
        )
    if len(shown) < len(wrong):
        lines.append(f"... and {len(wrong) - len(shown):,} more ({more} for all).")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ any protocol game, per state
#: A state of a protocol game is on-path when a game between two optimal players (ties split
#: evenly) is there at least this often on average (the handout's threshold, caveat D).
ON_PATH = ONPATH_MIN_VISIT
#: A state of a protocol game is decisive when its best action beats its best non-optimal one by
#: this much (in payoff units; for win/lose games a win probability: the handout's threshold,
#: caveat E).
DECISIVE_GAP = DECISIVE_MIN_GAP


def learned_policy(sol: GameSolution, best: np.ndarray) -> np.ndarray:
    """Row weights playing row best[s] where it is >= 0, uniformly elsewhere."""
    space = sol.space
    counts = np.diff(space.row_start)
    w = 1.0 / np.maximum(np.repeat(counts, counts), 1).astype(np.float64)
    known = np.flatnonzero(best >= 0)
    owner = np.zeros(space.n_rows, dtype=bool)
    owner[:] = np.isin(space.row_state, known)
    w[owner] = 0.0
    w[best[known]] = 1.0
    return w


def _gaps(sol: GameSolution) -> np.ndarray:
    """Per non-terminal state: the mover's best Q minus its best non-optimal Q (inf where every
    action is optimal)."""
    space = sol.space
    sign = np.where(space.player == 1, -1.0, 1.0)[space.row_state]
    mover_q = sign * sol.q
    others = np.where(sol.optimal, -np.inf, mover_q)
    live = space.row_start[:-1][~space.terminal]
    top = np.maximum.reduceat(mover_q, live)
    second = np.maximum.reduceat(others, live)
    return top - second


@dataclass(frozen=True, eq=False)
class _Ground:
    """What every learned policy of one solution is measured against, computed once per
    solution (a report measures dozens of policies against one): the live, decisive and on-path
    states, optimal play's expected visits, its policy and the game's levels."""

    live: np.ndarray
    decisive: np.ndarray
    onpath: np.ndarray
    often: np.ndarray
    optimal_w: np.ndarray
    levels: Any


_GROUNDS: weakref.WeakKeyDictionary[GameSolution, _Ground] = weakref.WeakKeyDictionary()


def _ground(sol: GameSolution) -> _Ground:
    """The solution's :class:`_Ground`, kept as long as the solution is."""
    found = _GROUNDS.get(sol)
    if found is None:
        space = sol.space
        live = ~space.terminal
        gaps = np.full(space.n_states, np.inf)
        gaps[live] = _gaps(sol)
        levels = level_structure(space)
        optimal_w = sol.policy()
        often = expected_visits(space, optimal_w, levels)
        found = _Ground(live, live & (gaps >= DECISIVE_GAP) & np.isfinite(gaps),
                        live & (often >= ON_PATH), often, optimal_w, levels)
        _GROUNDS[sol] = found
    return found


def learned_metrics(sol: BaseSolution, best: np.ndarray, value: np.ndarray | None = None
                    ) -> dict[str, Any]:
    """The metrics (module docstring) as a flat dict: states, states_with_data,
    agreement_all and agreement_decisive (no data counts as a disagreement), decisive_states,
    agreement_onpath and onpath_states (states optimal play is at at least :data:`ON_PATH`
    times a game), weighted_agreement (weighted by those expected visits), value_rmse and
    value_max_error (over states with data and an estimate), value_self_play (the learned
    policy in both seats), value_first / value_second (player 0's payoff with the learned policy
    in seat 0 against optimal play, and optimal play in seat 0 against it), game_value,
    score_vs_optimal (two players: (value_first - game_value) + (game_value - value_second),
    <= 0, 0 when as good as optimal; one player: value_self_play - game_value) and
    exploitability. `sol` is any solution: its per-row form is measured."""
    sol = sol.generic()
    space = sol.space
    best = np.asarray(best, dtype=np.int64)
    if best.shape != (space.n_states,):
        raise ValueError(f"best must have one entry per state ({space.n_states})")
    ground = _ground(sol)
    live, decisive, onpath, often = ground.live, ground.decisive, ground.onpath, ground.often
    levels, optimal_w = ground.levels, ground.optimal_w
    known = live & (best >= 0)
    right = np.zeros(space.n_states, dtype=bool)
    right[known] = sol.optimal[best[known]]
    w = learned_policy(sol, best)
    out: dict[str, Any] = {
        "states": int(live.sum()),
        "states_with_data": int(known.sum()),
        "agreement_all": float(right[live].mean()) if live.any() else math.nan,
        "agreement_decisive": float(right[decisive].mean()) if decisive.any() else math.nan,
        "decisive_states": int(decisive.sum()),
        "agreement_onpath": float(right[onpath].mean()) if onpath.any() else math.nan,
        "onpath_states": int(onpath.sum()),
        "weighted_agreement": float((often[live] * right[live]).sum() / often[live].sum())
        if often[live].sum() > 0 else math.nan,
    }
    if value is not None:
        v = np.asarray(value, dtype=np.float64)
        have = known & np.isfinite(v)
        err = v[have] - sol.values[have]
        out["value_rmse"] = float(np.sqrt(np.mean(err**2))) if have.any() else math.nan
        out["value_max_error"] = float(np.abs(err).max()) if have.any() else math.nan
    out["game_value"] = sol.value
    out["value_self_play"] = float(evaluate_policy(space, w, levels=levels)[0])
    if space.num_players == 2:
        p0_rows = space.player[space.row_state] == 0
        first = np.where(p0_rows, w, optimal_w)
        second = np.where(p0_rows, optimal_w, w)
        out["value_first"] = float(evaluate_policy(space, first, levels=levels)[0])
        out["value_second"] = float(evaluate_policy(space, second, levels=levels)[0])
        out["score_vs_optimal"] = (out["value_first"] - sol.value) + (sol.value
                                                                       - out["value_second"])
    else:
        out["score_vs_optimal"] = out["value_self_play"] - sol.value
    out["exploitability"] = game_exploitability(space, w, levels=levels)
    return out


@dataclass(frozen=True)
class GameComparison:
    """What `source` (a run's label, a file) learned, against `solution`: the metrics."""

    source: str
    solution: GameSolution
    metrics: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        game = self.solution.space.game
        return {"source": self.source, "game": str(game.name),
                "params": {k: plain(v) for k, v in game_params(game).items()},
                "solution_method": self.solution.method,
                "solution_residual": self.solution.residual, "metrics": dict(self.metrics)}

    def text(self) -> str:
        """``learned: SOURCE``, the game, then one metric a line."""
        sol, m = self.solution, self.metrics
        lines = [f"learned: {self.source}",
                 f"game: {game_label(sol.space.game)}; states with data "
                 f"{m['states_with_data']:,} of {m['states']:,}",
                 f"against the exact solution ({sol.method}, residual {sol.residual:.2g}):"]
        for key, value in m.items():
            if key in ("states", "states_with_data"):
                continue
            shown = f"{value:,}" if isinstance(value, int) else f"{value:.6f}"
            lines.append(f"  {key:<20} {shown}")
        return "\n".join(lines) + "\n"


def compare_game(solution: BaseSolution, tables: Any, source: str) -> GameComparison:
    """`tables` (best row per state, -1 = no data; value per state) against `solution` (its
    per-row form)."""
    solution = solution.generic()
    return GameComparison(source, solution,
                          learned_metrics(solution, tables.best, getattr(tables, "value", None)))
