"""The bundled learners in plain Python: the specification of every rule, and the reference
self-play loops that tests hold the compiled loops (:mod:`dicejack.learners.compiled_loops`) to.

Both implementations consume the same numpy Generator in the same order and evaluate the same
float64 expressions in the same order, so for a seed they give identical tables, counters and
generator state, however the games are chunked (all they carry between chunks is in the arrays,
the counters and the generator). Per move, in this order:

- the action: mc-epsilon and q-learning draw one uniform u (:func:`epsilon_greedy`); ucb draws
  nothing (:func:`ucb_choice`); thompson draws two Gamma variates per J when NDice > 1
  (:func:`thompson_choice`), nothing when NDice = 1;
- the roll: one uniform x, and the total is the first t with x < P(total of J dice <= t)
  (:func:`dicejack.games.handout_rules.roll_total`, the handout learner's rule).

Counting learners (mc-epsilon, ucb, thompson) keep the handout's WinCount/LoseCount tables and
update them as the handout does, when a game ends: every (X, Y, J) of the winner adds 1 to win,
every one of the loser to lose. q-learning updates Q(s, J) after every move (:func:`q_target`,
:func:`q_step`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dicejack.games.handout_rules import roll_total
from dicejack.learners.formulas import estimates

__all__ = [
    "epsilon_at",
    "epsilon_greedy",
    "lowest_argmax",
    "ucb_choice",
    "gamma_constants",
    "gamma_draw",
    "thompson_choice",
    "q_target",
    "q_step",
    "count_self_play",
    "q_self_play",
]

#: 1/3, as both implementations compute it.
THIRD = 1.0 / 3.0


# ------------------------------------------------------------------------------------- rules
def epsilon_at(games: int, epsilon: float, epsilon_min: float, epsilon_decay: float) -> float:
    """The exploration rate for the game after `games` games:
    max(epsilon_min, epsilon / (1 + games / epsilon_decay)) (epsilon_decay = inf: constant).

    It halves after epsilon_decay games and falls like 1/games (the usual GLIE schedule) until
    the floor epsilon_min, which keeps every J of a frequent state tried now and then.
    """
    e = epsilon / (1.0 + games / epsilon_decay)
    return epsilon_min if e < epsilon_min else e


def epsilon_greedy(u: float, eps: float, k: int, greedy: int) -> int:
    """The J that one uniform u picks: with u < eps a uniformly random J, floor(u / eps * K) + 1
    (u / eps is uniform on [0, 1) given u < eps), else the greedy J."""
    if u < eps:
        return 1 + min(int(u / eps * k), k - 1)
    return greedy


def lowest_argmax(values: Sequence[float], k: int) -> int:
    """The lowest J in 1..k with the largest values[J]."""
    best = 1
    top = values[1]
    for j in range(2, k + 1):
        if values[j] > top:
            top = values[j]
            best = j
    return best


def ucb_choice(wrow: Sequence[int], lrow: Sequence[int], k: int, c: float) -> int:
    """UCB1 in one state: the lowest untried J if any, else the lowest J with the largest
    f_J + c * sqrt(log(n) / n_J), where n_J = win + lose of J, n = sum of n_J and f_J =
    win/n_J."""
    for j in range(1, k + 1):
        if wrow[j] + lrow[j] == 0:
            return j
    f = estimates(wrow, lrow, k)[0]
    total = 0
    for j in range(1, k + 1):
        total += wrow[j] + lrow[j]
    lg = math.log(float(total))
    values = [0.0] * (k + 1)
    for j in range(1, k + 1):
        values[j] = f[j] + c * math.sqrt(lg / float(wrow[j] + lrow[j]))
    return lowest_argmax(values, k)


def gamma_constants(count: int) -> tuple[float, float]:
    """(d, c) of Marsaglia and Tsang's method for Gamma(1 + count): d = shape - 1/3,
    c = 1 / sqrt(9 d)."""
    d = (1.0 + count) - THIRD
    return d, 1.0 / math.sqrt(9.0 * d)


def gamma_draw(rng: Any, d: float, c: float) -> float:
    """A Gamma(d + 1/3) variate by Marsaglia and Tsang's method (shape >= 1), from the
    generator's standard normals and uniforms: repeat x normal, v = 1 + c x until v > 0; v = v^3;
    u uniform; accept d v when u < 1 - 0.0331 x^4 or log u < x^2/2 + d (1 - v + log v)."""
    while True:
        x = rng.standard_normal()
        v = 1.0 + c * x
        while v <= 0.0:
            x = rng.standard_normal()
            v = 1.0 + c * x
        v = v * v * v
        u = rng.random()
        xx = x * x
        if u < 1.0 - 0.0331 * xx * xx:
            return d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return d * v


def thompson_choice(rng: Any, wrow: Sequence[int], lrow: Sequence[int], k: int) -> int:
    """Thompson sampling in one state: for J = 1..K in turn draw g_w ~ Gamma(1 + win_J), then
    g_l ~ Gamma(1 + lose_J); b_J = g_w / (g_w + g_l) is a Beta(1 + win_J, 1 + lose_J) draw; the
    lowest J with the largest b_J. With K = 1 nothing is drawn."""
    if k == 1:
        return 1
    values = [0.0] * (k + 1)
    for j in range(1, k + 1):
        gw = gamma_draw(rng, *gamma_constants(wrow[j]))
        gl = gamma_draw(rng, *gamma_constants(lrow[j]))
        values[j] = gw / (gw + gl)
    return lowest_argmax(values, k)


def q_target(q: Sequence[Sequence[Sequence[float]]], y: int, new: int, low: int, high: int,
             k: int) -> float:
    """The Q-learning target of a move that took the mover from score x to `new` against an
    opponent with `y`: 1 on a win (low <= new <= high), 0 on a bust (new > high), else
    1 - max_J Q(<y, new>, J), the value to the mover of the opponent's next state."""
    if new > high:
        return 0.0
    if new >= low:
        return 1.0
    row = q[y][new]
    top = row[1]
    for j in range(2, k + 1):
        if row[j] > top:
            top = row[j]
    return 1.0 - top


def q_step(old: float, target: float, count: int, alpha: float | None) -> float:
    """Q after one update: old + alpha (target - old), or with alpha None (the default step
    1/N(s, J), count = N after this move) old + (target - old) / count: the mean of all
    targets seen."""
    if alpha is None:
        return old + (target - old) / count
    return old + alpha * (target - old)


# ------------------------------------------------------------------------------ self-play loops
def _record(win: list, lose: list, moves: list[tuple[int, int, int]], mover_won: bool) -> None:
    """The handout's update: the last mover's moves (every second one from the end) count as
    won when it won, the others as lost."""
    n = len(moves)
    for i, (x, y, j) in enumerate(moves):
        if ((n - 1 - i) % 2 == 0) == mover_won:
            win[x][y][j] += 1
        else:
            lose[x][y][j] += 1


def count_self_play(
    rule: str, win: np.ndarray, lose: np.ndarray, counters: np.ndarray, cdf: np.ndarray,
    low: int, high: int, params: tuple[float, ...], games: int, rng: np.random.Generator,
) -> None:
    """Self-play `games` games of a counting learner, updating win, lose and counters
    ([games, moves]) in place. rule "mc-epsilon" (params epsilon, epsilon_min, epsilon_decay),
    "ucb" (params (c,)) or "thompson" (no params)."""
    k = win.shape[2] - 1
    wl, ll = win.tolist(), lose.tolist()
    rows = cdf.tolist()
    try:
        for _ in range(games):
            if rule == "mc-epsilon":
                eps = epsilon_at(int(counters[0]), *params)
            a = b = 0
            moves: list[tuple[int, int, int]] = []
            while True:
                wrow, lrow = wl[a][b], ll[a][b]
                if rule == "mc-epsilon":
                    u = rng.random()
                    j = epsilon_greedy(u, eps, k, estimates(wrow, lrow, k)[2])
                elif rule == "ucb":
                    j = ucb_choice(wrow, lrow, k, params[0])
                else:
                    j = thompson_choice(rng, wrow, lrow, k)
                t = roll_total(rows[j], rng.random())
                moves.append((a, b, j))
                new = a + t
                if new >= low:
                    _record(wl, ll, moves, new <= high)
                    break
                a, b = b, new
            counters[0] += 1
            counters[1] += len(moves)
    finally:
        win[...] = wl
        lose[...] = ll


def q_self_play(
    q: np.ndarray, visits: np.ndarray, counters: np.ndarray, cdf: np.ndarray, low: int,
    high: int, epsilon: float, epsilon_min: float, epsilon_decay: float, alpha: float | None,
    games: int, rng: np.random.Generator,
) -> None:
    """Self-play `games` games of tabular Q-learning, updating q (Q(s, J)), visits (N(s, J)) and
    counters ([games, moves]) in place. Per move: J by :func:`epsilon_greedy` (greedy: the lowest
    J with the largest Q, untried J at their initial value), the roll, then N += 1 and
    Q <- :func:`q_step` towards :func:`q_target`."""
    k = q.shape[2] - 1
    ql, nl = q.tolist(), visits.tolist()
    rows = cdf.tolist()
    try:
        for _ in range(games):
            eps = epsilon_at(int(counters[0]), epsilon, epsilon_min, epsilon_decay)
            a = b = 0
            n = 0
            while True:
                row = ql[a][b]
                u = rng.random()
                j = epsilon_greedy(u, eps, k, lowest_argmax(row, k))
                new = a + roll_total(rows[j], rng.random())
                target = q_target(ql, b, new, low, high, k)
                nl[a][b][j] += 1
                row[j] = q_step(row[j], target, nl[a][b][j], alpha)
                n += 1
                if new >= low:
                    break
                a, b = b, new
            counters[0] += 1
            counters[1] += n
    finally:
        q[...] = ql
        visits[...] = nl
