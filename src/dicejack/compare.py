"""Metrics of a learned table against the exact solution (DESIGN.md, "Metrics").

Everything that depends only on the game (solution, visit probabilities, the state sets that encode
the handout's caveats A-E) is computed once in a frozen :class:`Truth`; comparing a learned table is
then a handful of vectorised numpy operations plus two exact policy evaluations, cheap enough for
thousands of checkpoints. Pure functions, no I/O.

Interpretations (each one a choice the handout and DESIGN.md leave open):

* **State sets.** ``all``: every <X,Y>. ``reachable``: :meth:`Game.reachable`. ``on-path``: visit
  probability >= 1e-3 in a game between two optimal players, ties split evenly
  (``solver.visit_probabilities(game, sol)``). ``decisive``: on-path, P*(s) > 1e-12 (not lost, up
  to float round-off) and gap(s) >= 0.02; a NaN gap (every J optimal) is not decisive.
* **No data.** A state whose learned best J is not in 1..K (the learner writes 0 where no J was
  ever played) has no data: it counts as a disagreement, its regret is that of a uniformly random J
  (P* minus the mean of Q*(s, J) over J = 1..K), and it has no estimate.
* **Estimates.** Probability errors use the states with data whose printed estimate is a number
  other than -1.
* **Weighted** agreement and regret weight every state by its visit probability under optimal play
  (the on-path weights), normalised to sum 1; states optimal play never visits weigh 0.
* **Score against optimal.** The learned greedy policy plays its best J where it has data and a
  uniformly random J (1/K each) elsewhere; score_vs_optimal = 0.5 * (P(learned, first, beats
  optimal) + 1 - P(optimal, first, beats learned)); 0.5 means as good as optimal.
* Metrics over an empty set are NaN.
* **Slips in printed tables** (transposed, 0-based J, another LTarget): :mod:`dicejack.hints`;
  its names stay reachable here (``compare.table_hints``, ...), loaded on first use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicejack import solver
from dicejack.game import DicejackError, Game
from dicejack.solver import Solution

__all__ = [
    "CompareError",
    "json_safe",
    "json_text",
    "METRIC_NAMES",
    "ONPATH_MIN_VISIT",
    "DECISIVE_MIN_GAP",
    "LOST_TOLERANCE",
    "STATE_CLASSES",
    "Truth",
    "Learned",
    "WrongState",
    "Comparison",
    "truth",
    "learned_from_counts",
    "learned_from_tables",
    "as_learned",
    "metric_values",
    "compare",
    "state_classes",
    "greedy_distribution",
    "format_comparison",
    "METRIC_HELP",
]

#: Names defined in :mod:`dicejack.hints` (which imports this module), reachable here too
#: (``compare.table_hints``), though not in ``__all__``.
HINT_NAMES = frozenset({"TableHints", "table_hints", "size_hint", "TRANSPOSED_MAX_SHARE",
                        "TRANSPOSED_MIN_GAIN", "ZERO_BASED_MIN_GAIN"})


def __getattr__(name: str) -> Any:
    """``compare.table_hints`` etc.: the hint names, from :mod:`dicejack.hints` on first use."""
    if name in HINT_NAMES:
        import dicejack.hints

        return getattr(dicejack.hints, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and the ones it serves on first use (tab completion)."""
    return sorted({*globals(), *HINT_NAMES})


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
    "states_with_data",
)

#: A state is on-path when optimal players visit it with at least this probability (caveat D).
ONPATH_MIN_VISIT = 1e-3
#: A state is decisive only when the best J beats every other J by at least this (caveat E).
DECISIVE_MIN_GAP = 0.02
#: P*(s) at or below this counts as lost (caveat A); float round-off stays far below it.
LOST_TOLERANCE = 1e-12

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


class CompareError(DicejackError):
    """Learned tables that cannot be compared with the game's solution."""


# --------------------------------------------------------------------------------- truth
@dataclass(frozen=True, eq=False)
class Truth:
    """Everything about a game that comparisons need, computed once.

    visit: (L, L) visit probability in a game between two optimal players (ties split evenly).
    reachable, onpath, decisive, lost, near_tie: (L, L) boolean state sets. random_q: mean of
    Q*(s, J) over J = 1..K (what a uniformly random J achieves). optimal_dist: the optimal policy
    as an action distribution.
    """

    game: Game
    solution: Solution
    visit: np.ndarray
    reachable: np.ndarray
    onpath: np.ndarray
    decisive: np.ndarray
    lost: np.ndarray
    near_tie: np.ndarray
    random_q: np.ndarray
    optimal_dist: np.ndarray
    weights: np.ndarray = field(repr=False)

    @property
    def p00(self) -> float:
        """The first player's win probability under optimal play."""
        return self.solution.p00

    def set_sizes(self) -> dict[str, int]:
        """Number of states in each set (and in the caveat sets), for reports."""
        return {
            "all": self.game.states,
            "reachable": int(self.reachable.sum()),
            "onpath": int(self.onpath.sum()),
            "decisive": int(self.decisive.sum()),
            "lost": int(self.lost.sum()),
            "lost_reachable": int((self.lost & self.reachable).sum()),
            "near_tie_onpath": int((self.near_tie & self.onpath).sum()),
            "all_j_optimal": int(np.isnan(self.solution.gap).sum()),
        }


def truth(game: Game, sol: Solution | None = None) -> Truth:
    """Build the :class:`Truth` of `game` (solving it unless `sol` is given)."""
    if not isinstance(game, Game):
        raise CompareError(f"truth() needs a Game, got {type(game).__name__}")
    if sol is None:
        sol = solver.solve(game)
    elif sol.game != game:
        raise CompareError(f"the solution is for a different game ({sol.game})")
    visit = solver.visit_probabilities(game, sol)
    reachable = game.reachable()
    onpath = visit >= ONPATH_MIN_VISIT
    lost = sol.p <= LOST_TOLERANCE
    gap = sol.gap
    finite_gap = np.isfinite(gap)
    decisive = onpath & ~lost & finite_gap & (np.where(finite_gap, gap, 0.0) >= DECISIVE_MIN_GAP)
    near_tie = finite_gap & (np.where(finite_gap, gap, np.inf) < DECISIVE_MIN_GAP)
    random_q = sol.q[:, :, 1:].mean(axis=2)
    weights = visit / visit.sum()
    arrays = dict(
        visit=visit, reachable=reachable, onpath=onpath, decisive=decisive, lost=lost,
        near_tie=near_tie, random_q=random_q, optimal_dist=solver.optimal_distribution(sol),
        weights=weights,
    )
    for name, a in arrays.items():
        # optimal_dist stays writable: numba compiles a separate (slow to build) specialisation
        # of the evaluation kernel for read-only arrays. Treat it as read-only all the same.
        if name != "optimal_dist":
            a.setflags(write=False)
    return Truth(game=game, solution=sol, **arrays)


# ------------------------------------------------------------------------------- learned
@dataclass(frozen=True, eq=False)
class Learned:
    """A learned table as the handout prints it: best J per state and its estimated win chance.

    best: (L, L) int64, 0 where the state has no data; probability: (L, L) float64, -1 where there
    is no estimate; has_data: best in 1..K. source: where it came from (for messages).
    """

    best: np.ndarray
    probability: np.ndarray
    has_data: np.ndarray
    source: str = ""

    @property
    def has_estimate(self) -> np.ndarray:
        """States with data and an estimate (a finite number other than -1)."""
        p = self.probability
        return self.has_data & np.isfinite(p) & (p != -1)


def learned_from_tables(
    game: Game,
    best: Any,
    probability: Any,
    *,
    no_data: Any = None,
    source: str = "",
) -> Learned:
    """A :class:`Learned` from the two printed arrays (any program's output).

    Cells of `best` outside 1..K, or marked in the optional `no_data` mask, have no data.
    """
    shape = game.shape
    best_a = np.asarray(best)
    prob_a = np.asarray(probability, dtype=np.float64)
    for name, a in (("policy", best_a), ("probability", prob_a)):
        if a.shape != shape:
            dims = "x".join(map(str, a.shape)) or "scalar"
            raise CompareError(
                f"the {name} table is {dims}, but LTarget={game.low} needs "
                f"{game.low}x{game.low}: tables from another game?"
            )
    if not np.issubdtype(best_a.dtype, np.integer):
        best_f = np.asarray(best_a, dtype=np.float64)
        whole = np.isfinite(best_f) & (best_f == np.round(best_f))
        best_a = np.where(whole, best_f, 0).astype(np.int64)
    best_a = best_a.astype(np.int64)
    has = (best_a >= 1) & (best_a <= game.n_dice)
    if no_data is not None:
        mask = np.asarray(no_data, dtype=bool)
        if mask.shape != shape:
            raise CompareError(f"the no-data mask must be {game.low}x{game.low}")
        has &= ~mask
    best_a = np.where(has, best_a, 0)
    prob_a = np.where(has, prob_a, -1.0)
    for a in (best_a, prob_a, has):
        a.setflags(write=False)
    return Learned(best=best_a, probability=prob_a, has_data=has, source=source)


def learned_from_counts(game: Game, win: Any, lose: Any, *, source: str = "") -> Learned:
    """A :class:`Learned` from the learner's WinCount/LoseCount tables, through
    :func:`dicejack.learner.learned_tables` (best J by estimate among J with data)."""
    from dicejack import learner

    win = np.asarray(win)
    lose = np.asarray(lose)
    if win.shape != game.table_shape or lose.shape != game.table_shape:
        raise CompareError(
            f"count tables have shape {win.shape} and {lose.shape}, but {game} needs "
            f"{game.table_shape}: a run from another game?"
        )
    best, prob = learner.learned_tables(win, lose)
    return learned_from_tables(game, best, prob, source=source)


def as_learned(game: Game, obj: Any) -> Learned:
    """Accept a :class:`Learned`, a counting run (anything with game/win/lose), any other run
    with ``tables`` = (best, probability) (and optionally ``game`` and ``label``), or a pair:
    (best, probability), each (L, L), or the raw counts (win, lose), each (L, L, K+1)."""
    if isinstance(obj, Learned):
        if obj.best.shape != game.shape:
            raise CompareError(f"the learned table is not {game.low}x{game.low}")
        return obj
    if hasattr(obj, "win") and hasattr(obj, "lose"):
        run_game = getattr(obj, "game", None)
        if run_game is not None and run_game != game:
            raise CompareError(f"the run is from another game ({run_game}), not {game}")
        label = f"run m={obj.m:g} games={obj.games} seed={obj.seed}" if hasattr(obj, "m") else ""
        return learned_from_counts(game, obj.win, obj.lose, source=label)
    if hasattr(obj, "best") and hasattr(obj, "probability"):  # a learners.Tables (checkpoint)
        return learned_from_tables(game, obj.best, obj.probability)
    if hasattr(obj, "tables"):  # any learner's run (dicejack.learners): (best, probability)
        run_game = getattr(obj, "game", None)
        if run_game is not None and run_game != game:
            raise CompareError(f"the run is from another game ({run_game}), not {game}")
        best, probability = obj.tables
        return learned_from_tables(game, best, probability, source=str(getattr(obj, "label", "")))
    if isinstance(obj, (tuple, list)) and len(obj) == 2:
        return _learned_from_pair(game, obj[0], obj[1])
    raise CompareError(
        f"cannot compare a {type(obj).__name__}; pass a run, (best, probability) or (win, lose)"
    )


def _learned_from_pair(game: Game, first: Any, second: Any) -> Learned:
    """(best, probability), each (L, L), or the raw counts (win, lose), each (L, L, K+1)."""
    a, b = np.asarray(first), np.asarray(second)
    if a.ndim == b.ndim == 2:
        return learned_from_tables(game, a, b)
    if a.ndim == b.ndim == 3:
        return learned_from_counts(game, a, b)
    low, k1 = game.low, game.n_dice + 1
    raise CompareError(
        f"got arrays of shape {a.shape} and {b.shape}; pass (best, probability), each "
        f"{low}x{low}, or the counts (win, lose), each of shape ({low}, {low}, {k1})"
    )


# ------------------------------------------------------------------------------- metrics
def greedy_distribution(t: Truth, learned: Learned) -> np.ndarray:
    """The learned greedy policy as an action distribution: its best J where it has data, a
    uniformly random J (1/K each) elsewhere."""
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
    regret = np.maximum(sol.p - q_b, 0.0)
    return agree, q_b, regret


def _mean(values: np.ndarray, mask: np.ndarray) -> float:
    return float(values[mask].mean()) if mask.any() else float("nan")


def metric_values(t: Truth, learned: Learned) -> dict[str, float]:
    """Every metric of DESIGN.md, in :data:`METRIC_NAMES` order (see the module docstring)."""
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
            "wrong_decisive": [
                {
                    "x": w.x, "y": w.y, "learned": w.learned, "optimal": list(w.optimal),
                    "p_star": w.p_star, "q_learned": w.q_learned, "regret": w.regret,
                    "gap": w.gap, "visit": w.visit, "estimate": w.estimate,
                }
                for w in self.wrong_decisive
            ],
        })


def compare(game: Game, sol: Solution | Truth | None, learned: Any) -> Comparison:
    """Compare `learned` (a run, a :class:`Learned`, or (best, probability)) with the truth.

    `sol` may be a Solution, a prepared :class:`Truth` (fastest for many comparisons) or None.
    """
    t = sol if isinstance(sol, Truth) else truth(game, sol)
    if t.game != game:
        raise CompareError(f"the truth is for a different game ({t.game})")
    lt = as_learned(game, learned)
    metrics = metric_values(t, lt)
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
    return Comparison(game, lt.source, t.p00, metrics, t.set_sizes(), rows)


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
    "states_with_data": "states where the table has any data",
}


def format_comparison(c: Comparison, limit: int | None = 40) -> str:
    """The comparison as a readable text table, then the wrong decisive states (worst first)."""
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
        lines.append(f"... and {len(wrong) - len(shown)} more (use --format json for all).")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ JSON output
def json_safe(obj: Any) -> Any:
    """`obj` with numpy values made plain and every non-finite float (NaN, +-inf) as None.

    JSON has no NaN or infinity; dicejack writes null for them (a hostile input such as ``inf``
    or ``1e309`` in a table is data, never a crash)."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if np.isfinite(v) else None
    return obj


def json_text(obj: Any, *, indent: int | None = None, compact: bool = False) -> str:
    """`obj` as valid JSON text ending in a newline, non-finite numbers as null (see
    :func:`json_safe`); never NaN or Infinity tokens (``allow_nan=False`` holds it to that)."""
    separators = (",", ":") if compact else None
    return json.dumps(json_safe(obj), indent=indent, separators=separators,
                      allow_nan=False) + "\n"
