"""Dave: visits and wins, a precomputed dice distribution, progress reports.

Learning
- Dave keeps Visits[X, Y, J] and Wins[X, Y, J] (int64); LoseCount is Visits - Wins.
- B is the HIGHEST J among those tied for the highest f_J (">=" while scanning J = 1..K).
- The action is drawn by subtraction: u = rng.random(); for J = 1..K-1, return J if u < p_J,
  else u -= p_J; return K.
- The sum of J dice is drawn in one go from its exact distribution (a table of cumulative
  probabilities built once by convolution) with one uniform and np.searchsorted.
- Each game's path is kept in a (2 * LTarget + 2, 3) array; after the game Visits is incremented
  along the path and Wins for the moves of the winner (same parity as the last mover iff the last
  mover won).
- Training runs in ten chunks (the counts carried over) so that "prose" can print progress.
- Zero denominators (M = 0): p_B = 1 / K, the others share 1 - p_B equally.

Printing
- "twice": labelled grids printed twice ("Strategy" / "Probabilities"), the second copy
  double-spaced (a blank line after every row); a state without data prints NDice / -1, printed
  ties and lost states show the highest tied J.
- "prose": progress lines, a sentence with the parameters (M printed as an integer when whole),
  then labelled grids; a state without data prints a random J and -1; printed ties and lost
  states: a random tied J with data.
- "plain": two whitespace grids separated by a blank line, no headings; "n/a" in both where there
  is no data; lowest tied J.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def dice_cdf(n_sides, n_dice):
    """cdf[J, s] = P(sum of J dice <= s), s = 0 .. n_dice * n_sides."""
    top = n_dice * n_sides
    cdf = np.ones((n_dice + 1, top + 1))
    die = np.full(n_sides, 1.0 / n_sides)
    pmf = np.array([1.0])  # J = 0: the sum is 0
    for j in range(1, n_dice + 1):
        pmf = np.convolve(pmf, die)  # pmf[i] = P(sum = j + i)
        c = np.cumsum(pmf)
        cdf[j, :j] = 0.0
        cdf[j, j : j + len(c)] = c
        cdf[j, j + len(c) - 1 :] = 1.0
    return cdf


@njit(cache=True)
def policy(visits, wins, x, y, m):
    k = visits.shape[2] - 1
    f = np.full(k + 1, 0.5)
    t = 0
    for j in range(1, k + 1):
        t += visits[x, y, j]
        if visits[x, y, j] > 0:
            f[j] = wins[x, y, j] / visits[x, y, j]
    b = 1
    for j in range(1, k + 1):
        if f[j] >= f[b]:
            b = j
    g = 0.0
    for j in range(1, k + 1):
        if j != b:
            g += f[j]
    p = np.zeros(k + 1)
    if t * f[b] + k * m > 0:
        p[b] = (t * f[b] + m) / (t * f[b] + k * m)
    else:
        p[b] = 1.0 / k
    for j in range(1, k + 1):
        if j != b:
            if g * t + (k - 1) * m > 0:
                p[j] = (1 - p[b]) * (t * f[j] + m) / (g * t + (k - 1) * m)
            else:
                p[j] = (1 - p[b]) / (k - 1)
    return p


@njit(cache=True)
def after_game(visits, wins, path, n, last_won):
    for i in range(n):
        x, y, j = path[i, 0], path[i, 1], path[i, 2]
        visits[x, y, j] += 1
        if ((n - 1 - i) % 2 == 0) == last_won:
            wins[x, y, j] += 1


@njit(cache=True)
def train(visits, wins, cdf, low, high, m, games, rng):
    k = visits.shape[2] - 1
    path = np.zeros((2 * low + 2, 3), np.int64)
    for _ in range(games):
        x, y = np.int64(0), np.int64(0)
        n = 0
        while True:
            p = policy(visits, wins, x, y, m)
            u = rng.random()
            j = k
            for jj in range(1, k):
                if u < p[jj]:
                    j = jj
                    break
                u -= p[jj]
            path[n, 0] = x
            path[n, 1] = y
            path[n, 2] = j
            n += 1
            x += np.searchsorted(cdf[j], rng.random(), side="right")
            if x >= low:
                after_game(visits, wins, path, n, x <= high)
                break
            x, y = y, x


# ----------------------------------------------------------------------------- output
def make_tables(visits, wins, student, rng):
    size, k = visits.shape[0], visits.shape[2] - 1
    best = np.zeros((size, size), dtype=int)
    prob = np.full((size, size), -1.0)
    for x in range(size):
        for y in range(size):
            data = [j for j in range(1, k + 1) if visits[x, y, j] > 0]
            if not data:
                if student.no_data == "K/-1":
                    best[x, y] = k
                elif student.no_data == "random/-1":
                    best[x, y] = rng.integers(1, k + 1)
                continue  # "n/a": best 0, prob -1, printed as n/a
            rates = {j: wins[x, y, j] / visits[x, y, j] for j in data}
            top = max(rates.values())
            tied = [j for j in data if rates[j] == top]
            if student.printed_tie == "highest":
                best[x, y] = tied[-1]
            elif student.printed_tie == "random":
                best[x, y] = tied[rng.integers(len(tied))]
            else:
                best[x, y] = tied[0]
            prob[x, y] = top
    return best, prob


def grid(table, fmt, double=False):
    for row in table:
        print("  ".join(fmt(v) for v in row))
        if double:
            print()


def show(best, prob, student, n_sides, low, high, n_dice, m, games):
    d = student.decimals
    if student.layout == "twice":
        for double in (False, True):
            print("Strategy:")
            grid(best, lambda v: f"{v:2d}", double)
            print("Probabilities:")
            grid(prob, lambda v: f"{v:.{d}f}" if v >= 0 else "-1", double)
            print()
    elif student.layout == "prose":
        m_text = int(m) if float(m).is_integer() else m
        print(
            f"Learned from {games} games with NSides={n_sides}, LTarget={low}, "
            f"UTarget={high}, NDice={n_dice} and M={m_text}."
        )
        print("Optimal number of dice to roll in state <X,Y> (X = row, Y = column):")
        grid(best, lambda v: f"{v:d}")
        print("Estimated probability of winning with that many dice:")
        grid(prob, lambda v: f"{v:.{d}f}" if v >= 0 else "-1")
    elif student.layout == "plain":
        width = d + 2
        grid(best, lambda v: f"{v:>{width}d}" if v > 0 else f"{'n/a':>{width}}")
        print()
        grid(prob, lambda v: f"{v:.{d}f}" if v >= 0 else f"{'n/a':>{width}}")
    else:
        raise ValueError(student.layout)


def train_all(n_sides, low, high, n_dice, m, games, rng, progress=False):
    cdf = dice_cdf(n_sides, n_dice)
    visits = np.zeros((low, low, n_dice + 1), np.int64)
    wins = np.zeros((low, low, n_dice + 1), np.int64)
    chunks = 10
    done = 0
    for c in range(chunks):
        todo = games * (c + 1) // chunks - done
        train(visits, wins, cdf, low, high, float(m), todo, rng)
        done += todo
        if progress:
            print(f"... {done} games played")
    return visits, wins


def learn_counts(student, n_sides, low, high, n_dice, m, games, seed):
    rng = np.random.default_rng(seed)
    visits, wins = train_all(n_sides, low, high, n_dice, m, games, rng)
    return wins, visits - wins


def run(student, n_sides, low, high, n_dice, m, games, seed, output=True):
    rng = np.random.default_rng(seed)
    progress = output and student.layout == "prose"
    visits, wins = train_all(n_sides, low, high, n_dice, m, games, rng, progress)
    best, prob = make_tables(visits, wins, student, rng)
    if output:
        show(best, prob, student, n_sides, low, high, n_dice, m, games)
    return best, prob


# ----------------------------------------------------------------------------- test hooks
def probabilities_for(win_row, lose_row, m):
    k = len(win_row) - 1
    visits = np.zeros((4, 4, k + 1), np.int64)
    wins = np.zeros((4, 4, k + 1), np.int64)
    visits[2, 3] = np.add(win_row, lose_row)
    wins[2, 3] = win_row
    return policy(visits, wins, 2, 3, float(m))


def counts_after(low, n_dice, moves, last_player_won):
    visits = np.zeros((low, low, n_dice + 1), np.int64)
    wins = np.zeros((low, low, n_dice + 1), np.int64)
    path = np.zeros((len(moves) + 2, 3), np.int64)
    path[: len(moves)] = moves
    after_game(visits, wins, path, len(moves), bool(last_player_won))
    return wins, visits - wins
