"""Float backward induction over anti-diagonals x + y with running window sums: O(1) per (state,
J) whatever n_sides. The numpy engine here and the compiled kernels give bit-identical P, best,
Q, optimal mask and gap."""

from __future__ import annotations

import time

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.solver.engines import charge, check_engine, choose_engine
from dicejack.solver.solution import TIE_TOLERANCE, Engine, Solution


def _tail(game: Game) -> np.ndarray:
    """E_j(s) for s = low..low+S: the chance that s plus j dice lands in [low, high]."""
    s_count = game.n_sides + 1
    cdf = game.sum_cdf_table
    width = cdf.shape[1]
    tail = np.zeros((s_count, game.n_dice + 1))
    for k in range(s_count):
        room = game.high - (game.low + k)  # largest total that still wins
        if room < 0:
            continue
        tail[k, :] = cdf[:, min(room, width - 1)]
    return tail


def solve_backward(game: Game, engine: Engine) -> Solution:
    if engine == "numpy":
        start = time.perf_counter()
        sol = _solve_backward_numpy(game)
        charge(start)
        return sol
    from dicejack.solver import kernels

    p, best = _solve_values_numba(game, with_best=False)  # best comes from Q below
    q = np.empty(game.table_shape)
    optimal = np.empty(game.table_shape, dtype=np.bool_)
    gap = np.empty(game.shape)
    kernels.backward_q(
        game.low,
        game.n_sides,
        game.n_dice,
        _tail(game),
        p,
        q,
        best,
        optimal,
        gap,
        TIE_TOLERANCE,
    )
    return Solution(game, q, p, best, optimal, gap, float(p[0, 0]), "backward", 1)


def solve_values(game: Game, engine: Engine | None = None) -> tuple[np.ndarray, np.ndarray]:
    """P and the lowest optimal J per state, without materialising Q (faster, far less memory).

    `engine`: as for :func:`solve`.
    """
    check_engine(engine)
    if (engine or choose_engine(game)) == "numpy":
        start = time.perf_counter()
        _, p, best = _backward_numpy(game)
        charge(start)
        return p, best
    return _solve_values_numba(game)


def _solve_values_numba(game: Game, with_best: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """P and the lowest optimal J (left empty when not `with_best`: the caller fills it)."""
    from dicejack.solver import kernels

    p = np.empty(game.shape)
    best = (np.zeros if with_best else np.empty)(game.shape, dtype=np.int64)
    kernels.backward_values(
        game.low, game.n_sides, game.n_dice, _tail(game), p, best, TIE_TOLERANCE, with_best
    )
    return p, best


def _backward_numpy(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Backward induction in numpy, vectorised along each anti-diagonal x + y.

    The float operations of ``kernels.backward_values`` (see its docstring), in the same order
    for every (state, J), so P, the lowest optimal J and Q come out bit-identical to the compiled
    kernels. Instead of a ring buffer, e[y, s, j] keeps E_j(s) of chain y for every score
    s = 0..low+S (rows s >= low: the fixed tail). Q(x, y, j) = e[y, x, j] for j >= 1.
    Returns (e, p, best).
    """
    low, s_, k = game.low, game.n_sides, game.n_dice
    inv = 1.0 / s_
    e = np.empty((low, low + s_ + 1, k + 1))
    e[:, low:, :] = _tail(game)[None, :, :]
    p = np.empty(game.shape)
    best = np.empty(game.shape, dtype=np.int64)
    for d in range(2 * low - 2, -1, -1):
        xs = np.arange(max(0, d - low + 1), min(d, low - 1) + 1)
        ys = d - xs
        nxt = e[ys, xs + 1]  # (n, K+1): E_j(x + 1) of chain y
        far = e[ys, xs + s_ + 1]  # E_j(x + S + 1)
        vals = nxt[:, 1:] + (nxt[:, :-1] - far[:, :-1]) * inv  # (n, K): E_j(x), j = 1..K
        e[ys, xs, 1:] = vals
        top = vals.max(axis=1)
        p[xs, ys] = top
        best[xs, ys] = (vals >= (top - TIE_TOLERANCE)[:, None]).argmax(axis=1) + 1
        e[xs, ys, 0] = 1.0 - top  # E_0 of chain x at score y: 1 - P(x, y)
    return e, p, best


def _solve_backward_numpy(game: Game) -> Solution:
    """The full Solution from :func:`_backward_numpy`: Q, the optimal mask and the gap exactly as
    ``kernels.backward_q`` computes them."""
    low = game.low
    e, p, best = _backward_numpy(game)
    q = np.ascontiguousarray(e[:, :low, :].transpose(1, 0, 2))
    q[:, :, 0] = 0.0
    qj = q[:, :, 1:]
    top = qj.max(axis=2)
    threshold = (top - TIE_TOLERANCE)[:, :, None]
    optimal = np.zeros(game.table_shape, dtype=np.bool_)
    optimal[:, :, 1:] = qj >= threshold
    second = np.where(qj < threshold, qj, -np.inf).max(axis=2)
    with np.errstate(invalid="ignore"):
        gap = np.where(second > -np.inf, top - second, np.nan)
    return Solution(game, q, p, best, optimal, gap, float(p[0, 0]), "backward", 1)
