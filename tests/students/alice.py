"""Alice: follows the handout line by line.

Learning
- WinCount and LoseCount are two (LTarget, LTarget, NDice+1) int64 arrays, column J = 0 unused.
- f_J, B, g, T, p_B, p_J exactly as written; B is the LOWEST J with the highest f_J (strict ">"
  while scanning J = 1..K).
- The action is drawn with the handout's cumulative loop over J = 0..K (p_0 = 0, "return k" at
  the end for round-off).
- J dice are rolled one by one: J calls of rng.integers(1, NSides + 1).
- The moves of a game are written to three arrays (X, Y, J) and the counts are updated when the
  game is over, as in the handout's Game 1 / Game 3 examples.
- Zero denominators (only possible when M = 0): p_B = 1 if T f_B + K M = 0, and the other J share
  1 - p_B equally if g T + (K - 1) M = 0.

Printing (three layouts, chosen by the registry)
- "labelled": two f-string grids under "Best number of dice" / "Probability of winning".
- "numpy": print(array) with the threshold lifted so nothing is summarised (rows wrap at numpy's
  75 characters); the tables are computed the numpy way, np.argmax over the whole row of ratios
  INCLUDING index 0, with 0 where the denominator is 0, so no-data and lost states print 0 / 0.
- "repr": print(repr(array)) of the best dice and of np.round(prob, d).
- reading "f-half" (a debatable reading, not in FAITHFUL): the printed best J is B exactly as in
  play (f_J = 0.5 for an untried J), with its estimate, -1 if B has no data.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit


@njit(cache=True)
def action_probabilities(win, lose, x, y, n_dice, m):
    """p[0..K] for state <x, y> (p[0] = 0), the handout's formulas."""
    k = n_dice
    f = np.zeros(k + 1)
    for j in range(1, k + 1):
        denom = win[x, y, j] + lose[x, y, j]
        if denom == 0:
            f[j] = 0.5
        else:
            f[j] = win[x, y, j] / denom
    b = 1
    for j in range(2, k + 1):
        if f[j] > f[b]:
            b = j
    g = 0.0
    for j in range(1, k + 1):
        if j != b:
            g += f[j]
    t = 0
    for j in range(0, k + 1):
        t += win[x, y, j] + lose[x, y, j]
    p = np.zeros(k + 1)
    top = t * f[b] + m
    bottom = t * f[b] + k * m
    if bottom > 0:
        p[b] = top / bottom
    else:
        p[b] = 1.0
    rest = g * t + (k - 1) * m
    for j in range(1, k + 1):
        if j != b:
            if rest > 0:
                p[j] = (1 - p[b]) * (t * f[j] + m) / rest
            else:
                p[j] = (1 - p[b]) / (k - 1)
    return p


@njit(cache=True)
def sample(p, rng):
    """The handout's sampling code, over 0..k."""
    k = len(p) - 1
    u = np.empty(k + 1)
    u[0] = p[0]
    for i in range(1, k + 1):
        u[i] = u[i - 1] + p[i]
    x = rng.random()
    for i in range(0, k):
        if x < u[i]:
            return i
    return k


@njit(cache=True)
def record_game(win, lose, xs, ys, js, n_moves, last_player_won):
    """Update the counts after a game of n_moves moves; the last mover won or lost."""
    for i in range(n_moves):
        same_player = (n_moves - 1 - i) % 2 == 0
        if same_player == last_player_won:
            win[xs[i], ys[i], js[i]] += 1
        else:
            lose[xs[i], ys[i], js[i]] += 1


@njit(cache=True)
def learn(n_sides, low, high, n_dice, m, games, rng):
    win = np.zeros((low, low, n_dice + 1), np.int64)
    lose = np.zeros((low, low, n_dice + 1), np.int64)
    xs = np.zeros(2 * low + 2, np.int64)
    ys = np.zeros(2 * low + 2, np.int64)
    js = np.zeros(2 * low + 2, np.int64)
    for _ in range(games):
        me = np.int64(0)  # typed: numba compiles one version of the helpers
        other = np.int64(0)
        n = 0
        while True:
            p = action_probabilities(win, lose, me, other, n_dice, m)
            j = sample(p, rng)
            xs[n] = me
            ys[n] = other
            js[n] = j
            n += 1
            total = 0
            for _d in range(j):
                total += rng.integers(1, n_sides + 1)
            me += total
            if me >= low:
                record_game(win, lose, xs, ys, js, n, me <= high)
                break
            me, other = other, me
    return win, lose


# ----------------------------------------------------------------------------- output
def best_tables(win, lose):
    """Alice's loops: best J among the J with data (lowest on ties), its ratio; -1 / -1 where
    nothing has data."""
    size = win.shape[0]
    k = win.shape[2] - 1
    best = np.full((size, size), -1, dtype=int)
    prob = np.full((size, size), -1.0)
    for x in range(size):
        for y in range(size):
            for j in range(1, k + 1):
                n = win[x, y, j] + lose[x, y, j]
                if n > 0:
                    r = win[x, y, j] / n
                    if r > prob[x, y]:
                        prob[x, y] = r
                        best[x, y] = j
    return best, prob


def numpy_tables(win, lose):
    """The numpy way: argmax over the whole row, index 0 included (0 where all is 0)."""
    total = win + lose
    ratio = np.divide(win, total, out=np.zeros(win.shape), where=total > 0)
    best = np.argmax(ratio, axis=2)
    prob = np.max(ratio, axis=2)
    return best, prob


def f_half_tables(win, lose):
    """The other reading of "the correct number of dice": B exactly as in play (f_J = 0.5 for
    an untried J, lowest on ties), beside its estimate (-1 if that J has no data)."""
    size = win.shape[0]
    k = win.shape[2] - 1
    best = np.zeros((size, size), dtype=int)
    prob = np.full((size, size), -1.0)
    for x in range(size):
        for y in range(size):
            f = [0.5 if win[x, y, j] + lose[x, y, j] == 0
                 else win[x, y, j] / (win[x, y, j] + lose[x, y, j]) for j in range(k + 1)]
            b = max(range(1, k + 1), key=lambda j: f[j])
            best[x, y] = b
            if win[x, y, b] + lose[x, y, b] > 0:
                prob[x, y] = f[b]
    return best, prob


def tables(win, lose, student, rng):
    if student.layout == "numpy":
        return numpy_tables(win, lose)
    if student.reading == "f-half":
        return f_half_tables(win, lose)
    return best_tables(win, lose)


def show(best, prob, student):
    d = student.decimals
    if student.layout == "labelled":
        print("Best number of dice")
        for row in best:
            print(" ".join(f"{v:2d}" for v in row))
        print()
        print("Probability of winning")
        for row in prob:
            print(" ".join(f"{v:7.{d}f}" for v in row))
    elif student.layout == "numpy":
        with np.printoptions(threshold=sys.maxsize):
            print(best)
            print()
            print(prob)
    elif student.layout == "repr":
        with np.printoptions(threshold=sys.maxsize):
            print(repr(best))
            print(repr(np.round(prob, d)))
    else:
        raise ValueError(student.layout)


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    return learn(n_sides, low, high, n_dice, float(m), games, np.random.default_rng(seed))


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    rng = np.random.default_rng(seed)
    win, lose = learn(n_sides, low, high, n_dice, float(m), games, rng)
    best, prob = tables(win, lose, student, rng)
    if output:
        show(best, prob, student)
    return best, prob


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m):
    """p over J = 0..K for one state given its WinCount / LoseCount rows (index 0 unused)."""
    k = len(win_row) - 1
    win = np.zeros((4, 4, k + 1), np.int64)
    lose = np.zeros((4, 4, k + 1), np.int64)
    win[2, 3] = win_row
    lose[2, 3] = lose_row
    return action_probabilities(win, lose, 2, 3, k, float(m))


def counts_after(low, n_dice, moves, last_player_won):
    """Alice's record_game fed one finished game: moves = [(X, Y, J), ...] in order."""
    win = np.zeros((low, low, n_dice + 1), np.int64)
    lose = np.zeros((low, low, n_dice + 1), np.int64)
    xs = np.array([mv[0] for mv in moves] + [0] * 4, np.int64)
    ys = np.array([mv[1] for mv in moves] + [0] * 4, np.int64)
    js = np.array([mv[2] for mv in moves] + [0] * 4, np.int64)
    record_game(win, lose, xs, ys, js, len(moves), bool(last_player_won))
    return win, lose
