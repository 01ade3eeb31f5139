"""Ivy: faithful learning; her printing carries the slip named by `student.bug` (if any).

Learning (the same whatever the print rule)
- WinCount and LoseCount are two (LTarget, LTarget, NDice+1) int32 arrays, column J = 0 unused.
- f_J with numpy on the state's rows (0.5 where WinCount + LoseCount = 0); B = 1 + np.argmax over
  f_1..f_K, so the LOWEST J on ties; g = sum of f_1..f_K minus f_B; T, p_B, p_J as written.
- The action is drawn from the top down: u = rng.random(), running sums of p_K, p_{K-1}, ...,
  p_2; the first J with u < running sum is rolled, and J = 1 takes whatever is left (round-off).
- J dice are rolled as ONE integer among the NSides**J equally likely outcomes (rng.integers),
  read digit by digit in base NSides (die = digit + 1), in groups small enough for int64.
- A game is logged as flat cell codes (X * LTarget + Y) * (NDice + 1) + J; after the game move i
  (made by player i % 2) is decoded and counted as a win if that player won.
- Zero denominators (only with M = 0): p_B = 1 if T f_B + K M = 0, and p_J = 0 for J != B if
  g T + (K - 1) M = 0.

Printing
- The two tables are filled by two separate loops, each picking per state the J with the
  largest key among the J with data (lowest J on ties): the best-dice loop prints that J, the
  probability loop prints that J's WinCount / (WinCount + LoseCount); -1 / -1 without data.
- Keys (bug None): both loops by the ratio, so a lost state prints its lowest J with data, 0.0.
  The print slips (learning untouched):
  printed-by-wins: both loops keyed by WinCount;
  printed-by-plays: both loops keyed by WinCount + LoseCount (the J played most);
  printed-prob-of-most-played: the best-dice loop by the ratio, the probability loop by plays.
- Layout "labelled": "Best number of dice to roll:" / "Probability of winning:" grids, rows
  X = 0..LTarget-1, columns Y, probabilities with `decimals` places and a bare -1 without data.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BIG = 2**62  # the largest span of one integer draw of dice

# (key of the best-dice loop, key of the probability loop) per print rule
PRINT_KEYS = {
    None: ("ratio", "ratio"),
    "printed-by-wins": ("wins", "wins"),
    "printed-by-plays": ("plays", "plays"),
    "printed-prob-of-most-played": ("ratio", "plays"),
}


@njit(cache=True)
def chances(win, lose, x, y, m):
    """p over J = 0..K in state <x, y> (p[0] = 0)."""
    k = win.shape[2] - 1
    w = win[x, y].astype(np.float64)
    n = w + lose[x, y]
    t = n.sum()
    f = np.full(k + 1, 0.5)
    for j in range(k + 1):
        if n[j] > 0:
            f[j] = w[j] / n[j]
    b = 1 + np.argmax(f[1:])
    g = f[1:].sum() - f[b]
    p = np.zeros(k + 1)
    if t * f[b] + k * m > 0:
        p[b] = (t * f[b] + m) / (t * f[b] + k * m)
    else:
        p[b] = 1.0
    rest = g * t + (k - 1) * m
    if rest > 0:
        for j in range(1, k + 1):
            if j != b:
                p[j] = (1 - p[b]) * (t * f[j] + m) / rest
    return p


@njit(cache=True)
def draw(p, rng):
    """J from p by running sums from J = K downward; J = 1 gets the rest."""
    u = rng.random()
    running = 0.0
    for j in range(len(p) - 1, 1, -1):
        running += p[j]
        if u < running:
            return j
    return 1


@njit(cache=True)
def roll(j, n_sides, rng):
    """The sum of j dice: one outcome among NSides**j, read in base NSides."""
    total = j  # every digit is a die minus one
    left = j
    while left > 0:
        group = 0
        span = 1
        while group < left and span <= BIG // n_sides:
            span *= n_sides
            group += 1
        code = rng.integers(0, span)
        for _ in range(group):
            total += code % n_sides
            code //= n_sides
        left -= group
    return total


@njit(cache=True)
def tally(win, lose, log, n, winner):
    """Count a finished game: move i was made by player i % 2."""
    k1 = win.shape[2]
    size = win.shape[0]
    for i in range(n):
        cell = log[i] // k1
        j = log[i] % k1
        x = cell // size
        y = cell % size
        if i % 2 == winner:
            win[x, y, j] += 1
        else:
            lose[x, y, j] += 1


@njit(cache=True)
def learn(n_sides, low, high, n_dice, m, games, rng):
    win = np.zeros((low, low, n_dice + 1), np.int32)
    lose = np.zeros((low, low, n_dice + 1), np.int32)
    log = np.zeros(2 * low + 2, np.int64)
    score = np.zeros(2, np.int64)
    for _ in range(games):
        score[:] = 0
        turn = 0
        n = 0
        while True:
            x = score[turn]
            y = score[1 - turn]
            j = draw(chances(win, lose, x, y, m), rng)
            log[n] = (x * low + y) * (n_dice + 1) + j
            n += 1
            score[turn] += roll(j, n_sides, rng)
            if score[turn] >= low:
                winner = turn if score[turn] <= high else 1 - turn
                tally(win, lose, log, n, winner)
                break
            turn = 1 - turn
    return win, lose


# ----------------------------------------------------------------------------- output
def pick(win, lose, key):
    """Per state, the J (1..K) with the largest key among the J with data, lowest on ties;
    -1 where no J has data."""
    size, k1 = win.shape[0], win.shape[2]
    chosen = np.full((size, size), -1)
    for x in range(size):
        for y in range(size):
            top = None
            for j in range(1, k1):
                plays = int(win[x, y, j]) + int(lose[x, y, j])
                if plays == 0:
                    continue
                if key == "ratio":
                    value = win[x, y, j] / plays
                elif key == "wins":
                    value = int(win[x, y, j])
                else:
                    value = plays
                if top is None or value > top:
                    top = value
                    chosen[x, y] = j
    return chosen


def tables(win, lose, bug):
    best_key, prob_key = PRINT_KEYS[bug]
    best = pick(win, lose, best_key)  # loop 1: the best number of dice
    which = pick(win, lose, prob_key)  # loop 2: the probability of winning
    prob = np.full(best.shape, -1.0)
    for (x, y), j in np.ndenumerate(which):
        if j > 0:
            prob[x, y] = win[x, y, j] / (int(win[x, y, j]) + int(lose[x, y, j]))
    return best, prob


def show(best, prob, student):
    if student.layout != "labelled":
        raise ValueError(student.layout)
    d = student.decimals
    print("Best number of dice to roll:")
    for x in range(best.shape[0]):
        print("".join(f"{int(v):4d}" for v in best[x]))
    print("Probability of winning:")
    for x in range(prob.shape[0]):
        print("".join(f"{'-1':>{d + 4}s}" if v < 0 else f"{v:{d + 4}.{d}f}" for v in prob[x]))


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    return learn(n_sides, low, high, n_dice, float(m), games, np.random.default_rng(seed))


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    win, lose = learn_counts(student, n_sides, low, high, n_dice, m, games, seed)
    best, prob = tables(win, lose, student.bug)
    if output:
        show(best, prob, student)
    return best, prob


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m):
    """p over J = 0..K for one state given its WinCount / LoseCount rows (index 0 unused)."""
    k = len(win_row) - 1
    win = np.zeros((4, 4, k + 1), np.int32)
    lose = np.zeros((4, 4, k + 1), np.int32)
    win[2, 3] = win_row
    lose[2, 3] = lose_row
    return chances(win, lose, 2, 3, float(m))


def counts_after(low, n_dice, moves, last_player_won):
    """Ivy's tally fed one finished game: moves = [(X, Y, J), ...] in order."""
    win = np.zeros((low, low, n_dice + 1), np.int32)
    lose = np.zeros((low, low, n_dice + 1), np.int32)
    log = np.array([(x * low + y) * (n_dice + 1) + j for x, y, j in moves], np.int64)
    last = (len(moves) - 1) % 2
    tally(win, lose, log, len(moves), last if last_player_won else 1 - last)
    return win, lose
