"""A learned policy of a protocol game measured against its exact solution: policy agreement
(every state, the decisive ones, the on-path ones, weighted by optimal play's visits), value
error, the exact value of the learned policy
against optimal play in each seat, and its exploitability. Takes plain arrays (a best row per
state, -1 = no data, and the learner's value estimates), so any learner's tables fit."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.solver.generic import (
    GameSolution,
    evaluate_policy,
    expected_visits,
    game_exploitability,
    level_structure,
)

__all__ = ["DECISIVE_GAP", "ON_PATH", "learned_policy", "learned_metrics"]

#: A state is on-path when a game between two optimal players (ties split evenly) is there at
#: least this often on average (the handout's caveat D: rare states).
ON_PATH = 1e-3
#: A state is decisive when its best action beats its best non-optimal one by this much (in
#: payoff units; for win/lose games a win probability, as the handout's caveat E).
DECISIVE_GAP = 0.02


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


def learned_metrics(sol: GameSolution, best: np.ndarray, value: np.ndarray | None = None
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
    exploitability."""
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
