#!/usr/bin/env python3
"""CS PA3: learn dice blackjack by self-play (WinCount / LoseCount tables).

usage: python3 wrong_m_flags.py --n_dice 2 --n_sides 6 --l_target 15 --u_target 17 \
           --M 100 --n_games 100000
BUG (wrong M): M is divided by ten where it is read.
"""
import argparse
import random

parser = argparse.ArgumentParser(description="PA3 dice learner")
parser.add_argument("--n_dice", type=int, default=2)
parser.add_argument("--n_sides", type=int, default=6)
parser.add_argument("--l_target", type=int, default=15)
parser.add_argument("--u_target", type=int, default=17)
parser.add_argument("--M", type=float, default=100.0, help="explore/exploit, in tens")
parser.add_argument("--n_games", type=int, default=100000)
args = parser.parse_args()

K = args.n_dice
SIDES = args.n_sides
LOW = args.l_target
HIGH = args.u_target
M = args.M / 10  # BUG: M is given "in tens" (a units slip)
GAMES = args.n_games

win_count = [[[0] * (K + 1) for _ in range(LOW)] for _ in range(LOW)]
lose_count = [[[0] * (K + 1) for _ in range(LOW)] for _ in range(LOW)]


def pick(x, y):
    wins, losses = win_count[x][y], lose_count[x][y]
    f = [0.5] * (K + 1)
    for j in range(1, K + 1):
        if wins[j] + losses[j]:
            f[j] = wins[j] / (wins[j] + losses[j])
    best = max(range(1, K + 1), key=lambda j: f[j])
    T = sum(wins) + sum(losses)
    g = sum(f[j] for j in range(1, K + 1) if j != best)
    probs = []
    p_best = (T * f[best] + M) / (T * f[best] + K * M)
    for j in range(1, K + 1):
        if j == best:
            probs.append(p_best)
        else:
            probs.append((1 - p_best) * (T * f[j] + M) / (g * T + (K - 1) * M))
    return random.choices(range(1, K + 1), weights=probs)[0]


def play():
    scores = [0, 0]
    trail = []
    turn = 0
    while True:
        x, y = scores[turn], scores[1 - turn]
        j = pick(x, y)
        trail.append((turn, x, y, j))
        scores[turn] += sum(random.randint(1, SIDES) for _ in range(j))
        if scores[turn] > HIGH:
            winner = 1 - turn
            break
        if scores[turn] >= LOW:
            winner = turn
            break
        turn = 1 - turn
    for who, x, y, j in trail:
        if who == winner:
            win_count[x][y][j] += 1
        else:
            lose_count[x][y][j] += 1


for _ in range(GAMES):
    play()

print("Optimal number of dice:")
for x in range(LOW):
    row = []
    for y in range(LOW):
        rates = [(win_count[x][y][j] / (win_count[x][y][j] + lose_count[x][y][j]), j)
                 for j in range(1, K + 1) if win_count[x][y][j] + lose_count[x][y][j]]
        row.append(str(max(rates)[1]) if rates else "0")
    print("\t".join(row))
print("Probability of winning:")
for x in range(LOW):
    row = []
    for y in range(LOW):
        rates = [win_count[x][y][j] / (win_count[x][y][j] + lose_count[x][y][j])
                 for j in range(1, K + 1) if win_count[x][y][j] + lose_count[x][y][j]]
        row.append(f"{max(rates):.3f}" if rates else "-1")
    print("\t".join(row))
