"""Erin: plain Python, nested lists and random.choices (slow: small games only).

Learning
- WinCount and LoseCount are nested lists [[[0] * (K+1) for Y] for X].
- M is read as an int when it is whole (int(M)), else kept as a float.
- B = max(range(1, K+1), key=lambda J: f[J]): the LOWEST tied J.
- The action: random.Random(seed).choices(range(1, K+1), weights=p[1:])[0].
- J dice: sum(rng.randint(1, NSides) for _ in range(J)).
- The moves of a game are a list of (X, Y, J, player); after the game the player who won gets
  WinCount, the other LoseCount.
- Zero denominators (M = 0): p_B = 1, the others 0.

Printing ("rows"): a title line, then each row printed as a Python list (print(row)) with the
probabilities rounded with round(p, d); -1 and -1 where there is no data; lowest tied J.
"""

from __future__ import annotations

import random


def probabilities(win, lose, x, y, k, m):
    f = [0.0] * (k + 1)
    for j in range(1, k + 1):
        n = win[x][y][j] + lose[x][y][j]
        f[j] = win[x][y][j] / n if n else 0.5
    b = max(range(1, k + 1), key=lambda j: f[j])
    g = sum(f[j] for j in range(1, k + 1) if j != b)
    t = sum(win[x][y][j] + lose[x][y][j] for j in range(k + 1))
    p = [0.0] * (k + 1)
    p[b] = (t * f[b] + m) / (t * f[b] + k * m) if t * f[b] + k * m else 1.0
    for j in range(1, k + 1):
        if j != b:
            bottom = g * t + (k - 1) * m
            p[j] = (1 - p[b]) * (t * f[j] + m) / bottom if bottom else 0.0
    return p


def record(win, lose, moves, winner):
    for x, y, j, player in moves:
        if player == winner:
            win[x][y][j] += 1
        else:
            lose[x][y][j] += 1


def learn(n_sides, low, high, n_dice, m, games, rng):
    k = n_dice
    win = [[[0] * (k + 1) for _ in range(low)] for _ in range(low)]
    lose = [[[0] * (k + 1) for _ in range(low)] for _ in range(low)]
    for _ in range(games):
        score = [0, 0]
        player = 0
        moves = []
        while True:
            x, y = score[player], score[1 - player]
            p = probabilities(win, lose, x, y, k, m)
            j = rng.choices(range(1, k + 1), weights=p[1:])[0]
            moves.append((x, y, j, player))
            score[player] += sum(rng.randint(1, n_sides) for _ in range(j))
            if low <= score[player] <= high:
                record(win, lose, moves, player)
                break
            if score[player] > high:
                record(win, lose, moves, 1 - player)
                break
            player = 1 - player
    return win, lose


def read_m(m):
    return int(m) if float(m) == int(m) else float(m)


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    import numpy as np

    win, lose = learn(n_sides, low, high, n_dice, read_m(m), games, random.Random(seed))
    return np.array(win), np.array(lose)


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    import numpy as np

    rng = random.Random(seed)
    win, lose = learn(n_sides, low, high, n_dice, read_m(m), games, rng)
    d = student.decimals
    best = [[-1] * low for _ in range(low)]
    prob = [[-1] * low for _ in range(low)]
    for x in range(low):
        for y in range(low):
            for j in range(1, n_dice + 1):
                n = win[x][y][j] + lose[x][y][j]
                if n > 0 and win[x][y][j] / n > prob[x][y]:
                    best[x][y] = j
                    prob[x][y] = win[x][y][j] / n
    if output:
        print("Best number of dice:")
        for row in best:
            print(row)
        print("Winning probability:")
        for row in prob:
            print([round(p, d) for p in row])
    return np.array(best), np.array(prob, dtype=float)


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m):
    k = len(win_row) - 1
    win = [[[0] * (k + 1) for _ in range(4)] for _ in range(4)]
    lose = [[[0] * (k + 1) for _ in range(4)] for _ in range(4)]
    win[2][3] = list(win_row)
    lose[2][3] = list(lose_row)
    return probabilities(win, lose, 2, 3, k, m)


def counts_after(low, n_dice, moves, last_player_won):
    import numpy as np

    win = [[[0] * (n_dice + 1) for _ in range(low)] for _ in range(low)]
    lose = [[[0] * (n_dice + 1) for _ in range(low)] for _ in range(low)]
    last = (len(moves) - 1) % 2
    tagged = [(x, y, j, i % 2) for i, (x, y, j) in enumerate(moves)]
    record(win, lose, tagged, last if last_player_won else 1 - last)
    return np.array(win), np.array(lose)
