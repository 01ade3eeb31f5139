"""Hank: the program behind every bug student (and, with bug 0, a faithful student himself).

Learning (bug 0)
- WinCount / LoseCount: (LTarget, LTarget, NDice+1) int64 arrays.
- B: the lowest J with the highest f_J.
- Draw: weights p[1..K] normalised by their sum (random.choices style): u = rng.random() * sum,
  first J whose running sum exceeds u, K if none.
- J dice: rng.integers(1, NSides + 1, size=J).sum().
- The game log keeps (score of player 0, score of player 1, player to move, J) per move; after
  the game each move is turned into a state <mover's score, opponent's score> and counted.
- Zero denominators (M = 0): p_B = 1, the other J 0 (so M = 0 is a purely greedy player).
- It also remembers, per state, the last J it drew there and that J's probability.

The bugs (integer code `bug`; M itself is scaled in Python for greedy / m-tenth / m-tenfold):
1 pb-factor-misplaced: the (1 - p_B) factor is dropped: p_J = (T f_J + M) / (g T + (K-1) M) for
  J != B. The weights then sum to 1 + p_B; Hank's draw normalises them, so B is drawn with
  probability p_B / (1 + p_B) instead of p_B.
2 xy-swapped: the log is turned into states as (player 0's score, player 1's score) for every move,
  so the second player's moves are recorded as <opponent, own> (the choice itself uses the right
  state).
3 last-sampled: the learning is right, but the printed tables are the last J drawn in each state
  and the probability p_J it had when drawn (-1 / -1 where never visited).
4 raw-wincount: B, in learning and in the printed best, is the J with the most WinCount (lowest on
  ties), not the best ratio; the printed probability is that J's ratio (-1 if it has no data).
5 fj-zero: f_J = 0 instead of 0.5 when WinCount + LoseCount = 0.
6 integer-division: f_J = W // (W + L) (0 unless the J never lost), in learning and printing.

Printing: labelled grids ("Best number of dice to roll:" / "Probability of winning:"), 4
decimals, -1 / -1 where there is no data, lowest J on printed ties and in lost states.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BUG_CODES = {
    None: 0,
    "pb-factor-misplaced": 1,
    "xy-swapped": 2,
    "last-sampled": 3,
    "raw-wincount": 4,
    "fj-zero": 5,
    "integer-division": 6,
    "greedy": 0,
    "m-tenth": 0,
    "m-tenfold": 0,
}
M_FACTOR = {"greedy": 0.0, "m-tenth": 0.1, "m-tenfold": 10.0}


@njit(cache=True)
def weights(win, lose, x, y, m, bug):
    k = win.shape[2] - 1
    f = np.zeros(k + 1)
    t = 0
    for j in range(1, k + 1):
        n = win[x, y, j] + lose[x, y, j]
        t += n
        if n == 0:
            f[j] = 0.0 if bug == 5 else 0.5
        elif bug == 6:
            f[j] = win[x, y, j] // n
        else:
            f[j] = win[x, y, j] / n
    b = 1
    for j in range(2, k + 1):
        if bug == 4:
            if win[x, y, j] > win[x, y, b]:
                b = j
        elif f[j] > f[b]:
            b = j
    g = 0.0
    for j in range(1, k + 1):
        if j != b:
            g += f[j]
    w = np.zeros(k + 1)
    if t * f[b] + k * m > 0:
        w[b] = (t * f[b] + m) / (t * f[b] + k * m)
    else:
        w[b] = 1.0
    rest = g * t + (k - 1) * m
    for j in range(1, k + 1):
        if j != b and rest > 0:
            if bug == 1:
                w[j] = (t * f[j] + m) / rest
            else:
                w[j] = (1 - w[b]) * (t * f[j] + m) / rest
    return w


@njit(cache=True)
def record(win, lose, log, n, winner, bug):
    for i in range(n):
        turn = log[i, 2]
        if bug == 2:
            x, y = log[i, 0], log[i, 1]
        else:
            x, y = log[i, turn], log[i, 1 - turn]
        if turn == winner:
            win[x, y, log[i, 3]] += 1
        else:
            lose[x, y, log[i, 3]] += 1


@njit(cache=True)
def learn(n_sides, low, high, n_dice, m, games, bug, rng):
    win = np.zeros((low, low, n_dice + 1), np.int64)
    lose = np.zeros((low, low, n_dice + 1), np.int64)
    last_j = np.full((low, low), -1, np.int64)
    last_p = np.full((low, low), -1.0)
    log = np.zeros((2 * low + 2, 4), np.int64)
    score = np.zeros(2, np.int64)
    for _ in range(games):
        score[0] = 0
        score[1] = 0
        turn = 0
        n = 0
        while True:
            me, opp = score[turn], score[1 - turn]
            w = weights(win, lose, me, opp, m, bug)
            u = rng.random() * w.sum()
            j = n_dice
            acc = 0.0
            for jj in range(1, n_dice + 1):
                acc += w[jj]
                if u < acc:
                    j = jj
                    break
            last_j[me, opp] = j
            last_p[me, opp] = w[j]
            log[n, 0] = score[0]
            log[n, 1] = score[1]
            log[n, 2] = turn
            log[n, 3] = j
            n += 1
            score[turn] += rng.integers(1, n_sides + 1, size=j).sum()
            if score[turn] >= low:
                winner = turn
                if score[turn] > high:
                    winner = 1 - turn
                record(win, lose, log, n, winner, bug)
                break
            turn = 1 - turn
    return win, lose, last_j, last_p


# ----------------------------------------------------------------------------- output
def make_tables(win, lose, bug):
    size, k = win.shape[0], win.shape[2] - 1
    best = np.full((size, size), -1)
    prob = np.full((size, size), -1.0)
    for x in range(size):
        for y in range(size):
            for j in range(1, k + 1):
                n = win[x, y, j] + lose[x, y, j]
                if n == 0:
                    continue
                if bug == 4:
                    better = best[x, y] < 0 or win[x, y, j] > win[x, y, best[x, y]]
                    ratio = win[x, y, j] / n
                elif bug == 6:
                    ratio = float(win[x, y, j] // n)
                    better = ratio > prob[x, y]
                else:
                    ratio = win[x, y, j] / n
                    better = ratio > prob[x, y]
                if better:
                    best[x, y] = j
                    prob[x, y] = ratio
    return best, prob


def show(best, prob):
    print("Best number of dice to roll:")
    for row in best:
        print(" ".join(f"{v:3d}" for v in row))
    print("Probability of winning:")
    for row in prob:
        print(" ".join("     -1" if v == -1 else f"{v:7.4f}" for v in row))


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    bug = BUG_CODES[student.bug]
    m = float(m) * M_FACTOR.get(student.bug, 1.0)
    rng = np.random.default_rng(seed)
    win, lose, _, _ = learn(n_sides, low, high, n_dice, m, games, bug, rng)
    return win, lose


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    bug = BUG_CODES[student.bug]
    m = float(m) * M_FACTOR.get(student.bug, 1.0)
    rng = np.random.default_rng(seed)
    win, lose, last_j, last_p = learn(n_sides, low, high, n_dice, m, games, bug, rng)
    if bug == 3:
        best, prob = last_j, last_p
    else:
        best, prob = make_tables(win, lose, bug)
    if output:
        show(best, prob)
    return best, prob


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m, bug=0):
    """The distribution Hank actually draws from: his weights, normalised."""
    k = len(win_row) - 1
    win = np.zeros((4, 4, k + 1), np.int64)
    lose = np.zeros((4, 4, k + 1), np.int64)
    win[2, 3] = win_row
    lose[2, 3] = lose_row
    w = weights(win, lose, 2, 3, float(m), bug)
    return w / w.sum()


def counts_after(low, n_dice, moves, last_player_won, bug=0):
    win = np.zeros((low, low, n_dice + 1), np.int64)
    lose = np.zeros((low, low, n_dice + 1), np.int64)
    log = np.zeros((len(moves) + 2, 4), np.int64)
    for i, (x, y, j) in enumerate(moves):
        turn = i % 2
        log[i, turn], log[i, 1 - turn], log[i, 2], log[i, 3] = x, y, turn, j
    last = (len(moves) - 1) % 2
    record(win, lose, log, len(moves), last if last_player_won else 1 - last, bug)
    return win, lose
