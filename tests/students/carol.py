"""Carol: float counts and a random.choices-style draw.

Learning
- WinCount and LoseCount are np.zeros((LTarget, LTarget, NDice+1)) arrays of FLOATS (numpy's
  default dtype), incremented by 1.0.
- B: np.argmax(f[1:]) + 1 (lowest tied J) with tie code 0, or uniformly random among the tied J
  (the tied J collected in an array, one picked with rng.integers) with tie code 1.
- The action is drawn like random.choices(range(1, K+1), weights=p[1:]): u = rng.random() *
  sum(weights), then the first J whose running sum exceeds u (K if none, for round-off).
- J dice: J calls of rng.integers(1, NSides + 1).
- The moves of a game are stored in an (n, 3) array; after the game Carol walks it BACKWARDS
  from the last move, flipping won/lost at every step.
- Zero denominators (M = 0): p_B = 1, the others 0.

Printing
- "tsv": two TAB-separated tables, each under a title, with an "X\\Y" corner cell and a header
  row of column numbers, probabilities with d decimals. Tables made with np.argmax over J =
  1..K of the ratios with 0 where the denominator is 0: a state without data prints 1 / 0.0
  (J = 1, the first index), and a lost state its lowest J, data or not, with 0.0.
- "pylist": print(best.tolist()) and print(prob.tolist()), full float repr; best is a float
  array (nan where there is no data), prob nan where there is no data.
- "centred": one combined table, every cell centred in a fixed width: "d:p" with d decimals,
  a bare "-" where there is no data; printed ties and lost states: a random tied J with data.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def choose_b(f, tie, rng):
    k = len(f) - 1
    if tie == 0:
        return np.argmax(f[1:]) + 1
    top = f[1:].max()
    tied = np.empty(k, np.int64)
    n = 0
    for j in range(1, k + 1):
        if f[j] == top:
            tied[n] = j
            n += 1
    return tied[rng.integers(0, n)]


@njit(cache=True)
def weights(wins, losses, x, y, m, tie, rng):
    k = wins.shape[2] - 1
    f = np.zeros(k + 1)
    for j in range(1, k + 1):
        n = wins[x, y, j] + losses[x, y, j]
        f[j] = wins[x, y, j] / n if n > 0 else 0.5
    b = choose_b(f, tie, rng)
    t = wins[x, y].sum() + losses[x, y].sum()
    g = 0.0
    for j in range(1, k + 1):
        if j != b:
            g += f[j]
    w = np.zeros(k + 1)
    denom = t * f[b] + k * m
    w[b] = (t * f[b] + m) / denom if denom > 0 else 1.0
    denom2 = g * t + (k - 1) * m
    for j in range(1, k + 1):
        if j != b and denom2 > 0:
            w[j] = (1.0 - w[b]) * (t * f[j] + m) / denom2
    return w


@njit(cache=True)
def choices(w, rng):
    """random.choices(range(1, K+1), weights=w[1:])[0]"""
    k = len(w) - 1
    u = rng.random() * w[1:].sum()
    acc = 0.0
    for j in range(1, k + 1):
        acc += w[j]
        if u < acc:
            return j
    return k


@njit(cache=True)
def update(wins, losses, moves, n, last_won):
    won = last_won
    for i in range(n - 1, -1, -1):
        x, y, j = moves[i, 0], moves[i, 1], moves[i, 2]
        if won:
            wins[x, y, j] += 1.0
        else:
            losses[x, y, j] += 1.0
        won = not won


@njit(cache=True)
def train(n_sides, low, high, n_dice, m, games, tie, rng):
    wins = np.zeros((low, low, n_dice + 1))
    losses = np.zeros((low, low, n_dice + 1))
    moves = np.zeros((2 * low + 2, 3), np.int64)
    for _ in range(games):
        a, b = np.int64(0), np.int64(0)  # a is the player to move
        n = 0
        while True:
            j = choices(weights(wins, losses, a, b, m, tie, rng), rng)
            moves[n, 0] = a
            moves[n, 1] = b
            moves[n, 2] = j
            n += 1
            for _d in range(j):
                a += rng.integers(1, n_sides + 1)
            if a >= low:
                won = a <= high
                update(wins, losses, moves, n, won)
                break
            a, b = b, a
    return wins, losses


# ----------------------------------------------------------------------------- output
def make_tables(wins, losses, student, rng):
    n = wins + losses
    ratio = np.zeros(wins.shape)
    ratio[n > 0] = wins[n > 0] / n[n > 0]
    if student.layout == "tsv":
        best = np.argmax(ratio[:, :, 1:], axis=2) + 1
        prob = np.max(ratio[:, :, 1:], axis=2)
        return best, prob
    size, k = wins.shape[0], wins.shape[2] - 1
    best = np.full((size, size), np.nan)
    prob = np.full((size, size), np.nan)
    for x in range(size):
        for y in range(size):
            seen = [j for j in range(1, k + 1) if n[x, y, j] > 0]
            if not seen:
                continue
            top = max(ratio[x, y, j] for j in seen)
            tied = [j for j in seen if ratio[x, y, j] == top]
            if student.printed_tie == "random":
                best[x, y] = tied[rng.integers(len(tied))]
            else:
                best[x, y] = tied[0]
            prob[x, y] = top
    return best, prob


def show(best, prob, student):
    size = best.shape[0]
    d = student.decimals
    if student.layout == "tsv":
        header = "X\\Y\t" + "\t".join(str(y) for y in range(size))
        print("Best move (number of dice)")
        print(header)
        for x in range(size):
            print(str(x) + "\t" + "\t".join(str(v) for v in best[x]))
        print()
        print("Win probability")
        print(header)
        for x in range(size):
            print(str(x) + "\t" + "\t".join(f"{v:.{d}f}" for v in prob[x]))
    elif student.layout == "pylist":
        print(best.tolist())
        print(prob.tolist())
    elif student.layout == "centred":
        width = d + 5
        print(" " * 4 + "".join(f"{y:^{width}}" for y in range(size)))
        for x in range(size):
            cells = []
            for y in range(size):
                if np.isnan(best[x, y]):
                    cells.append(f"{'-':^{width}}")
                else:
                    cells.append(f"{int(best[x, y])}:{prob[x, y]:.{d}f}".center(width))
            print(f"{x:>3} " + "".join(cells))
    else:
        raise ValueError(student.layout)


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    tie = 1 if student.tie == "random" else 0
    rng = np.random.default_rng(seed)
    wins, losses = train(n_sides, low, high, n_dice, float(m), games, tie, rng)
    return wins.astype(np.int64), losses.astype(np.int64)


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    rng = np.random.default_rng(seed)
    tie = 1 if student.tie == "random" else 0
    wins, losses = train(n_sides, low, high, n_dice, float(m), games, tie, rng)
    best, prob = make_tables(wins, losses, student, rng)
    if output:
        show(best, prob, student)
    return best, prob


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m, tie=0, seed=0):
    k = len(win_row) - 1
    wins = np.zeros((4, 4, k + 1))
    losses = np.zeros((4, 4, k + 1))
    wins[2, 3] = win_row
    losses[2, 3] = lose_row
    w = weights(wins, losses, 2, 3, float(m), tie, np.random.default_rng(seed))
    return w / w.sum()


def counts_after(low, n_dice, moves, last_player_won):
    wins = np.zeros((low, low, n_dice + 1))
    losses = np.zeros((low, low, n_dice + 1))
    arr = np.zeros((len(moves) + 2, 3), np.int64)
    arr[: len(moves)] = moves
    update(wins, losses, arr, len(moves), bool(last_player_won))
    return wins.astype(np.int64), losses.astype(np.int64)
