"""Bob: one 4-d count table and numpy idioms.

Learning
- The counts are ONE int64 array counts[X, Y, J, r] of shape (LTarget, LTarget, NDice+1, 2),
  r = 0 for WinCount and r = 1 for LoseCount.
- B is drawn UNIFORMLY AT RANDOM among the J tied for the highest f_J (rng.integers over the
  number of ties), so p depends on the generator when there is a tie (e.g. an unvisited state).
- The action is drawn with np.searchsorted(np.cumsum(p), u, side="right") (clamped to K).
- A die is int(rng.random() * NSides) + 1.
- Each player's moves are kept in their own history (2, LTarget+1, 3); at the end the winner's
  history gets WinCount, the loser's LoseCount.
- Zero denominators (M = 0): p_B = 1 / K, and the others share 1 - p_B equally.

Printing
- "csv": csv.writer(sys.stdout) (so lines end in "\\r\\n"): LTarget rows of dice, an empty row,
  LTarget rows of probabilities rounded with round(p, d); a state without data is 0 in both
  (the int 0), or a random J and 0.0 with no_data "random/0.0"; printed ties and lost states:
  the lowest (or a random) tied J with data.
- "combined": one table; a header row of column numbers, then rows "X  d:p d:p ...", cells
  left-justified to a fixed width, a state without data is a bare "n/a" (or "--"); printed ties
  and the J of a lost state: lowest or random among the tied J with data.
"""

from __future__ import annotations

import csv
import sys

import numpy as np
from numba import njit


@njit(cache=True)
def probs(counts, x, y, m, rng):
    k = counts.shape[2] - 1
    f = np.empty(k + 1)
    f[0] = 0.0
    t = 0.0
    for j in range(0, k + 1):
        w = counts[x, y, j, 0]
        lo = counts[x, y, j, 1]
        t += w + lo
        if j > 0:
            f[j] = w / (w + lo) if w + lo > 0 else 0.5
    top = f[1:].max()
    n_ties = 0
    for j in range(1, k + 1):
        if f[j] == top:
            n_ties += 1
    pick = rng.integers(0, n_ties) if n_ties > 1 else 0
    b = 0
    for j in range(1, k + 1):
        if f[j] == top:
            if pick == 0:
                b = j
                break
            pick -= 1
    g = f[1:].sum() - f[b]
    p = np.zeros(k + 1)
    if t * f[b] + k * m > 0:
        p[b] = (t * f[b] + m) / (t * f[b] + k * m)
    else:
        p[b] = 1.0 / k
    for j in range(1, k + 1):
        if j == b:
            continue
        if g * t + (k - 1) * m > 0:
            p[j] = (1 - p[b]) * (t * f[j] + m) / (g * t + (k - 1) * m)
        else:
            p[j] = (1 - p[b]) / (k - 1)
    return p


@njit(cache=True)
def record(counts, hist, n_moves, winner):
    for player in range(2):
        r = 0 if player == winner else 1
        for i in range(n_moves[player]):
            counts[hist[player, i, 0], hist[player, i, 1], hist[player, i, 2], r] += 1


@njit(cache=True)
def play(n_sides, low, high, n_dice, m, games, rng):
    counts = np.zeros((low, low, n_dice + 1, 2), np.int64)
    hist = np.zeros((2, low + 1, 3), np.int64)
    n_moves = np.zeros(2, np.int64)
    score = np.zeros(2, np.int64)
    for _ in range(games):
        score[:] = 0
        n_moves[:] = 0
        turn = 0
        while True:
            me = score[turn]
            opp = score[1 - turn]
            p = probs(counts, me, opp, m, rng)
            j = np.searchsorted(np.cumsum(p), rng.random(), side="right")
            if j > n_dice:
                j = n_dice
            hist[turn, n_moves[turn], 0] = me
            hist[turn, n_moves[turn], 1] = opp
            hist[turn, n_moves[turn], 2] = j
            n_moves[turn] += 1
            for _d in range(j):
                score[turn] += int(rng.random() * n_sides) + 1
            if score[turn] >= low:
                winner = turn if score[turn] <= high else 1 - turn
                record(counts, hist, n_moves, winner)
                break
            turn = 1 - turn
    return counts


# ----------------------------------------------------------------------------- output
def make_tables(counts, student, rng):
    wins = counts[:, :, :, 0]
    plays = counts[:, :, :, 0] + counts[:, :, :, 1]
    size, k = wins.shape[0], wins.shape[2] - 1
    best = np.zeros((size, size), dtype=int)
    prob = np.zeros((size, size))
    for x in range(size):
        for y in range(size):
            ratios = {j: wins[x, y, j] / plays[x, y, j] for j in range(1, k + 1) if plays[x, y, j]}
            if not ratios:
                if student.layout == "combined":
                    best[x, y], prob[x, y] = -1, -1.0  # printed as n/a (or --)
                elif student.no_data == "random/0.0":
                    best[x, y] = rng.integers(1, k + 1)
                continue  # csv: 0 / 0 (or a random J / 0.0)
            top = max(ratios.values())
            tied = [j for j, r in ratios.items() if r == top]
            if student.printed_tie == "random":
                best[x, y] = tied[rng.integers(len(tied))]
            else:
                best[x, y] = tied[0]
            prob[x, y] = top
    return best, prob


def show(best, prob, student):
    d = student.decimals
    size = best.shape[0]
    if student.layout == "csv":
        out = csv.writer(sys.stdout)
        for x in range(size):
            out.writerow([int(best[x, y]) for y in range(size)])
        out.writerow([])
        for x in range(size):
            out.writerow([round(float(prob[x, y]), d) if best[x, y] else 0 for y in range(size)])
    elif student.layout == "combined":
        width = 4 + d + 2
        print("    " + "".join(str(y).ljust(width) for y in range(size)))
        for x in range(size):
            cells = []
            for y in range(size):
                if best[x, y] < 0:
                    cells.append(student.no_data.ljust(width))
                else:
                    cells.append(f"{best[x, y]}:{prob[x, y]:.{d}f}".ljust(width))
            print(str(x).rjust(2) + "  " + "".join(cells).rstrip())
    else:
        raise ValueError(student.layout)


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    counts = play(n_sides, low, high, n_dice, float(m), games, np.random.default_rng(seed))
    return counts[:, :, :, 0].copy(), counts[:, :, :, 1].copy()


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    rng = np.random.default_rng(seed)
    counts = play(n_sides, low, high, n_dice, float(m), games, rng)
    best, prob = make_tables(counts, student, rng)
    if output:
        show(best, prob, student)
    return best, prob


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m, seed=0):
    k = len(win_row) - 1
    counts = np.zeros((4, 4, k + 1, 2), np.int64)
    counts[2, 3, :, 0] = win_row
    counts[2, 3, :, 1] = lose_row
    return probs(counts, 2, 3, float(m), np.random.default_rng(seed))


def counts_after(low, n_dice, moves, last_player_won):
    counts = np.zeros((low, low, n_dice + 1, 2), np.int64)
    hist = np.zeros((2, low + 1, 3), np.int64)
    n_moves = np.zeros(2, np.int64)
    for i, (x, y, j) in enumerate(moves):
        player = i % 2
        hist[player, n_moves[player]] = (x, y, j)
        n_moves[player] += 1
    last = (len(moves) - 1) % 2
    record(counts, hist, n_moves, last if last_player_won else 1 - last)
    return counts[:, :, :, 0].copy(), counts[:, :, :, 1].copy()
