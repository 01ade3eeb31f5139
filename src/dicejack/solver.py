"""The exact solution of the game: optimal policy and win probability for every state <x, y>.

Three independent ways to the same numbers, so each can check the others:

* ``solve(game)`` — backward induction over anti-diagonals x + y (the game is acyclic: every roll
  adds at least 1), with running window sums so that each (state, J) costs O(1) whatever n_sides.
  The default. Two engines do the same float operations in the same order, so they give
  bit-identical results: plain numpy, one vectorised step per anti-diagonal, for small games (no
  compiler, no numba import: the command line answers at once), and the numba kernels of
  :mod:`dicejack.kernels` for games above :data:`NUMPY_MAX_WORK` and for processes that have
  loaded numba anyway or made many calls (see :func:`choose_engine`).
* ``solve(game, method="value-iteration")`` — classic synchronous Bellman sweeps over all states
  from P = 0 until nothing changes, with direct sums over the dice-sum distributions (numpy).
* ``solve(game, exact=True)`` — the recursion in ``fractions.Fraction``; ties are exact.

Also exact evaluation of any pair of policies (``evaluate``) and the probability that a game
between two policies visits each state (``visit_probabilities``), by forward propagation; the
same two engines, bit-identical, chosen the same way.
"""

from __future__ import annotations

import functools
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Union

import numpy as np

from dicejack.game import CONTINUES, MOVER_WINS, DicejackError, Game

__all__ = [
    "TIE_TOLERANCE",
    "SolverError",
    "Solution",
    "solve",
    "solve_values",
    "policy_distribution",
    "optimal_distribution",
    "evaluate",
    "visit_probabilities",
    "choose_engine",
    "numpy_engine_seconds",
    "NUMPY_MAX_WORK",
    "NUMBA_STARTUP_SECONDS",
]

#: Two actions whose float win probabilities differ by at most this are both optimal.
TIE_TOLERANCE = 1e-12

#: Largest exact-rational problem, in (states x J x dice totals) Fraction operations.
EXACT_WORK_LIMIT = 3_000_000

#: Largest game, in states x n_dice x (n_dice * n_sides + 1) (the forward pass's work), that the
#: plain numpy engine runs by default (see :func:`choose_engine`). The numpy paths loop in Python
#: over the 2*low - 1 anti-diagonals and take 20 to 40 times the compiled kernels' time, but the
#: kernels' first call in a process waits about a second for numba to import and load its cache.
#: At this size a numpy solve took about 4 ms and a numpy evaluation about 12 ms where they were
#: measured (the handout's game, 5,850: 0.8 ms and 0.5 ms): far below that second.
NUMPY_MAX_WORK = 1_000_000
#: Roughly what the first use of the compiled kernels costs a process, in seconds: importing
#: numba and loading its cache. Once the numpy engine has run this long in one process, the
#: kernels are the better deal for the rest of it (see :func:`choose_engine`).
NUMBA_STARTUP_SECONDS = 1.0
#: Seconds this process has spent in the numpy engine so far.
_numpy_seconds = 0.0

Method = Literal["backward", "value-iteration"]
Engine = Literal["numpy", "numba"]
#: A policy: (low, low) ints J in 1..n_dice, a (low, low, n_dice+1) action distribution, or a
#: Solution (its optimal actions, ties split evenly).
Policy = Union[np.ndarray, "Solution"]


class SolverError(DicejackError):
    """The solver was asked for something it cannot do (bad method, game too large, bad policy)."""


@dataclass(frozen=True, eq=False)
class Solution:
    """The exact solution of a game.

    q[x, y, j]: win probability of the mover at <x, y> who rolls j dice then plays optimally
    (column 0 unused, 0). p = max_j q; best: lowest optimal J; optimal: boolean (low, low, K+1)
    mask of optimal J (ties within TIE_TOLERANCE, exact in rational mode); gap: p minus the best
    non-optimal q (NaN where every J is optimal); p00 = p[0, 0], the first player's chance.
    """

    game: Game
    q: np.ndarray
    p: np.ndarray
    best: np.ndarray
    optimal: np.ndarray
    gap: np.ndarray
    p00: float
    method: str
    sweeps: int
    exact: bool = False
    p00_exact: Fraction | None = None
    #: (low, low) object array of Fractions in rational mode, else None.
    p_exact: np.ndarray | None = None

    def optimal_sets(self) -> list[list[list[int]]]:
        """The optimal J of every state as nested lists, rows x, columns y."""
        low = self.game.low
        return [
            [np.flatnonzero(self.optimal[x, y]).tolist() for y in range(low)] for x in range(low)
        ]


# ------------------------------------------------------------------------------------ solve
def solve(
    game: Game, method: Method = "backward", exact: bool = False, engine: Engine | None = None
) -> Solution:
    """Solve `game` exactly. See the module docstring for the methods.

    `engine` ("numpy" or "numba") forces the engine of float backward induction; by default
    :func:`choose_engine` picks it. The result is the same, bit for bit.
    """
    if not isinstance(game, Game):
        raise SolverError(f"solve() needs a Game, got {type(game).__name__}")
    if method not in ("backward", "value-iteration"):
        raise SolverError(f"unknown method {method!r}; use 'backward' or 'value-iteration'")
    _check_engine(engine)
    if exact:
        if method != "backward":
            raise SolverError("exact rational solving uses backward induction; drop --method")
        return _solve_exact(game)
    if method == "value-iteration":
        return _solve_value_iteration(game)
    return _solve_backward(game, engine or choose_engine(game))


def _check_engine(engine: object) -> None:
    if engine not in (None, "numpy", "numba"):
        raise SolverError(f"unknown engine {engine!r}; use 'numpy' or 'numba'")


def numpy_engine_seconds() -> float:
    """Seconds this process has spent in the numpy engine so far (see :func:`choose_engine`)."""
    return _numpy_seconds


def choose_engine(game: Game) -> Engine:
    """Which engine runs `game`'s backward induction and forward propagation by default.

    "numpy" for games up to :data:`NUMPY_MAX_WORK`, so that small work never waits for numba;
    "numba" for larger games, and for every game once the process has loaded the compiled
    kernels anyway (the learner loads them) or has spent :data:`NUMBA_STARTUP_SECONDS` in the
    numpy engine (many evaluations, as report and grade make, then pay numba's start-up once
    rather than the numpy engine's per-call overhead again and again: at most about twice the
    better choice's time, whatever the number of calls). Both engines give bit-identical results
    (the tests hold them to it): the choice is only about speed.
    """
    work = game.states * game.n_dice * (game.n_dice * game.n_sides + 1)
    if (
        work > NUMPY_MAX_WORK
        or "dicejack.kernels" in sys.modules
        or _numpy_seconds >= NUMBA_STARTUP_SECONDS
    ):
        return "numba"
    return "numpy"


def _charge(start: float) -> None:
    """Add the time since `start` (time.perf_counter) to the numpy engine's account."""
    global _numpy_seconds
    _numpy_seconds += time.perf_counter() - start


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


def _solve_backward(game: Game, engine: Engine) -> Solution:
    if engine == "numpy":
        start = time.perf_counter()
        sol = _solve_backward_numpy(game)
        _charge(start)
        return sol
    from dicejack import kernels

    p, best = _solve_values_numba(game)
    q = np.empty(game.table_shape)
    optimal = np.empty(game.table_shape, dtype=np.bool_)
    gap = np.empty(game.shape)
    kernels.backward_q(
        game.low,
        game.n_sides,
        game.n_dice,
        _tail(game),
        np.ascontiguousarray(p.T),
        q,
        optimal,
        gap,
        TIE_TOLERANCE,
    )
    return Solution(game, q, p, best, optimal, gap, float(p[0, 0]), "backward", 1)


def solve_values(game: Game, engine: Engine | None = None) -> tuple[np.ndarray, np.ndarray]:
    """P and the lowest optimal J per state, without materialising Q (faster, far less memory).

    `engine`: as for :func:`solve`.
    """
    _check_engine(engine)
    if (engine or choose_engine(game)) == "numpy":
        start = time.perf_counter()
        _, p, best = _backward_numpy(game)
        _charge(start)
        return p, best
    return _solve_values_numba(game)


def _solve_values_numba(game: Game) -> tuple[np.ndarray, np.ndarray]:
    from dicejack import kernels

    p = np.empty(game.shape)
    best = np.zeros(game.shape, dtype=np.int64)
    kernels.backward_values(
        game.low, game.n_sides, game.n_dice, _tail(game), p, best, TIE_TOLERANCE
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


def _terminal_values(game: Game, extra: int) -> np.ndarray:
    """Mover's result for final scores low..low+extra-1: 1 inside [low, high], 0 above."""
    scores = range(game.low, game.low + extra)
    return np.array([float(game.outcome(s) == MOVER_WINS) for s in scores])


def _summarise(
    game: Game, q: np.ndarray, method: str, sweeps: int
) -> Solution:
    """P, best, optimal mask and gap from a float Q table."""
    p = q[:, :, 1:].max(axis=2)
    optimal = np.zeros(q.shape, dtype=bool)
    optimal[:, :, 1:] = q[:, :, 1:] >= p[:, :, None] - TIE_TOLERANCE
    best = optimal.argmax(axis=2).astype(np.int64)
    others = np.where(optimal[:, :, 1:], -np.inf, q[:, :, 1:]).max(axis=2)
    gap = np.where(np.isfinite(others), p - others, np.nan)
    return Solution(game, q, p, best, optimal, gap, float(p[0, 0]), method, sweeps)


def _solve_value_iteration(game: Game, max_sweeps: int | None = None) -> Solution:
    """Synchronous value iteration from P = 0 until Q stops changing (exactly).

    The game graph is acyclic with depth at most 2*low - 1 moves, so sweeps settle after at most
    2*low sweeps plus the one that sees no change; the cap is a guard and raises if reached.
    """
    low, k = game.low, game.n_dice
    probs = game.sum_probability_table
    width = probs.shape[1]  # totals 0..K*S
    cap = max_sweeps if max_sweeps is not None else 2 * low + 2
    if game.states * k * width > 50_000_000:
        raise SolverError(
            "value iteration is for small games (states * n_dice * (n_dice*n_sides+1) <= 5e7); "
            "use the default backward method"
        )
    beyond = _terminal_values(game, width)
    q = np.zeros(game.table_shape)
    p = np.zeros((low, low))
    for sweep in range(1, cap + 1):
        # g[s, y]: value to a mover who reached score s with opponent y (s = 0..low-1+K*S).
        g = np.empty((low + width - 1, low))
        g[:low, :] = 1.0 - p.T  # g[s, y] = 1 - P(y, s)
        g[low:, :] = beyond[: width - 1, None]
        new_q = np.zeros_like(q)
        for j in range(1, k + 1):
            for t in range(j, j * game.n_sides + 1):
                new_q[:, :, j] += probs[j, t] * g[t : t + low, :]
        if np.array_equal(new_q, q):
            return _summarise(game, new_q, "value-iteration", sweep)
        q = new_q
        p = q[:, :, 1:].max(axis=2)
    raise SolverError(f"value iteration did not converge in {cap} sweeps")


def _solve_exact(game: Game) -> Solution:
    """Backward induction in exact rationals, by direct sums over the dice distributions."""
    low, k, s = game.low, game.n_dice, game.n_sides
    work = game.states * k * (k * s)
    if work > EXACT_WORK_LIMIT:
        raise SolverError(
            f"game too large for exact rationals: about {work:,} Fraction operations "
            f"(limit {EXACT_WORK_LIMIT:,}); drop --exact"
        )
    dists = [
        [(t, f) for t, f in enumerate(game.sum_fractions(j)) if f] for j in range(k + 1)
    ]
    zero, one = Fraction(0), Fraction(1)
    p_ex = np.empty((low, low), dtype=object)
    q_ex = np.empty(game.table_shape, dtype=object)
    q_ex[...] = zero

    def after(score: int, opponent: int) -> Fraction:
        result = game.outcome(score)
        if result == CONTINUES:
            return one - p_ex[opponent, score]
        return one if result == MOVER_WINS else zero

    for d in range(2 * low - 2, -1, -1):
        for x in range(max(0, d - low + 1), min(d, low - 1) + 1):
            y = d - x
            for j in range(1, k + 1):
                q_ex[x, y, j] = sum((f * after(x + t, y) for t, f in dists[j]), zero)
            p_ex[x, y] = max(q_ex[x, y, 1:])
    optimal = np.zeros(game.table_shape, dtype=bool)
    gap = np.full((low, low), np.nan)
    for x in range(low):
        for y in range(low):
            top = p_ex[x, y]
            rest = [q_ex[x, y, j] for j in range(1, k + 1) if q_ex[x, y, j] != top]
            for j in range(1, k + 1):
                optimal[x, y, j] = q_ex[x, y, j] == top
            if rest:
                gap[x, y] = float(top - max(rest))
    q = np.vectorize(float, otypes=[float])(q_ex)
    p = np.vectorize(float, otypes=[float])(p_ex)
    best = optimal.argmax(axis=2).astype(np.int64)
    p00 = p_ex[0, 0]
    return Solution(
        game, q, p, best, optimal, gap, float(p00), "backward", 1,
        exact=True, p00_exact=p00, p_exact=p_ex,
    )


# ------------------------------------------------------------------------- policy evaluation
def optimal_distribution(sol: Solution) -> np.ndarray:
    """The optimal policy as an action distribution, ties split evenly."""
    mask = sol.optimal.astype(float)
    return mask / mask.sum(axis=2, keepdims=True)


def policy_distribution(game: Game, policy: Policy) -> np.ndarray:
    """Any accepted policy form as a validated (low, low, K+1) action distribution.

    Integer tables must hold J in 1..n_dice everywhere (a policy must say what to do in every
    state, even unreachable ones); distributions must be non-negative, sum to 1 over J = 1..K,
    and put nothing on J = 0.
    """
    if isinstance(policy, Solution):
        if policy.game != game:
            raise SolverError("the Solution is for a different game")
        return optimal_distribution(policy)
    arr = np.asarray(policy)
    low, k = game.low, game.n_dice
    if arr.shape == (low, low):
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise SolverError("a policy table must hold whole numbers of dice")
            arr = arr.astype(np.int64)
        if arr.min() < 1 or arr.max() > k:
            bad = np.argwhere((arr < 1) | (arr > k))[0]
            raise SolverError(
                f"policy has {arr[tuple(bad)]} dice at <{bad[0]},{bad[1]}>; must be 1..{k}"
            )
        dist = np.zeros(game.table_shape)
        np.put_along_axis(dist, arr[:, :, None], 1.0, axis=2)
        return dist
    if arr.shape == game.table_shape:
        dist = np.asarray(arr, dtype=float)
        if (
            not np.all(np.isfinite(dist))
            or dist.min() < 0
            or np.any(dist[:, :, 0] != 0)
            or not np.allclose(dist.sum(axis=2), 1.0, atol=1e-9)
        ):
            raise SolverError(
                "an action distribution must be non-negative, 0 for J=0, and sum to 1 per state"
            )
        return dist
    raise SolverError(
        f"a policy must have shape {(low, low)} (dice per state) or {game.table_shape} "
        f"(action distribution), got {arr.shape}"
    )


def _propagate(
    game: Game, a: Policy, b: Policy, engine: Engine | None
) -> tuple[np.ndarray, np.ndarray, float]:
    _check_engine(engine)
    pa = np.ascontiguousarray(policy_distribution(game, a))
    pb = np.ascontiguousarray(policy_distribution(game, b))
    if (engine or choose_engine(game)) == "numpy":
        start = time.perf_counter()
        result = _forward_numpy(game, pa, pb)
        _charge(start)
        return result
    from dicejack import kernels

    mass_a = np.empty((game.low, game.low))
    mass_b = np.empty((game.low, game.low))
    a_wins = kernels.forward_visits(
        game.low, game.high, game.n_dice, np.ascontiguousarray(game.sum_probability_table),
        pa, pb, mass_a, mass_b,
    )
    return mass_a, mass_b, float(a_wins)


@functools.lru_cache(maxsize=8)
def _forward_plan(
    game: Game,
) -> tuple[list[tuple[np.ndarray, ...]], np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Index arrays for :func:`_forward_numpy`, per game: for each anti-diagonal d (ascending)
    the flat indices of its states (x ascending) and, for each (state, total t) whose new score
    x + t stays below low, the state's position in the diagonal, P(j dice total t) for j = 1..K
    (K, m) and the flat index of the target state <y, x + t>. Also every state's flat index in
    that order, and the win-probability terms: for each, its (state, mover, J) entry and its
    P(J dice total t)."""
    low, high = game.low, game.high
    probs = game.sum_probability_table[1:]  # (K, T)
    t = np.arange(probs.shape[1])
    diagonals = []
    order = []
    for d in range(0, 2 * low - 1):
        xs = np.arange(max(0, d - low + 1), min(d, low - 1) + 1)
        ys = d - xs
        s = xs[:, None] + t[None, :]  # the mover's new score, (n, T)
        pos, tt = np.nonzero(s < low)  # row-major: state, then total ascending
        src = xs * low + ys
        diagonals.append((src, pos, probs[:, tt], ys[pos] * low + s[pos, tt]))
        order.append(src)
    src_all = np.concatenate(order)
    # The kernel's win-probability terms, in its order (state, mover, J, total): A's where A's
    # new score lands in [low, high], B's where B's passes high; zero probabilities left out.
    s_all = (src_all // low)[:, None] + t[None, :]
    ends = np.stack([(s_all >= low) & (s_all <= high), s_all > high], axis=1)  # (states, 2, T)
    full = ends[:, :, None, :] & (probs > 0)[None, None, :, :]  # (states, 2, K, T)
    flat = np.flatnonzero(full)
    k_t = probs.size
    return diagonals, src_all, (flat // t.size, probs.ravel()[flat % k_t])


def _forward_numpy(
    game: Game, pa: np.ndarray, pb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """``kernels.forward_visits`` in numpy, one anti-diagonal at a time; bit-identical.

    Every state of a diagonal sends its mass to later diagonals only, and within one diagonal
    each target state receives from a single source, so adding J = 1..K in turn gives every
    mass the kernel's sums in the kernel's order, each term (mass * w) * P(total) as the kernel
    multiplies. The win probability is the kernel's running sum too: its terms in the kernel's
    order (diagonal, x, mover, J, total) summed sequentially by ``np.cumsum``; the terms the
    kernel skips are zeros here, and adding a zero is exact.
    """
    low, k = game.low, game.n_dice
    diagonals, src_all, ends = _forward_plan(game)
    wa = pa.reshape(low * low, k + 1)[:, 1:]
    wb = pb.reshape(low * low, k + 1)[:, 1:]
    mass_a = np.zeros(low * low)
    mass_b = np.zeros(low * low)
    mass_a[0] = 1.0
    for src, pos, pt, target in diagonals:
        if not target.size:
            continue
        mwa = mass_a[src][:, None] * wa[src]  # (n, K)
        mwb = mass_b[src][:, None] * wb[src]
        ca = mwa[pos].T * pt  # (K, m)
        cb = mwb[pos].T * pt
        to_b = mass_b[target]
        to_a = mass_a[target]
        for j in range(k):
            to_b = to_b + ca[j]
            to_a = to_a + cb[j]
        mass_b[target] = to_b
        mass_a[target] = to_a
    mwa = mass_a[src_all][:, None] * wa[src_all]  # (states, K) in the kernel's order
    mwb = mass_b[src_all][:, None] * wb[src_all]
    entry, pt = ends
    terms = np.stack([mwa, mwb], axis=1).ravel()[entry] * pt
    a_wins = float(np.cumsum(terms)[-1]) if terms.size else 0.0
    return mass_a.reshape(low, low), mass_b.reshape(low, low), a_wins


def evaluate(
    game: Game, first: Policy, second: Policy, engine: Engine | None = None
) -> float:
    """Exact probability that policy `first`, moving first from <0,0>, beats policy `second`.

    `engine`: as for :func:`solve`.
    """
    return _propagate(game, first, second, engine)[2]


def visit_probabilities(
    game: Game, a: Policy, b: Policy | None = None, engine: Engine | None = None
) -> np.ndarray:
    """(low, low) probability that a game of `a` (moving first) against `b` visits each state.

    `b` defaults to `a`. Pass a Solution for optimal play with ties split evenly. `engine`: as
    for :func:`solve`.
    """
    mass_a, mass_b, _ = _propagate(game, a, a if b is None else b, engine)
    return mass_a + mass_b


