"""Programming Assignment 3, written from the handout: the counting learner.
Takes NDice NSides LTarget UTarget NGAMES M on the command line (the issue's program)."""
import random
import sys


def choose(win, lose, x, y, k, m):
    f = [0.5] * (k + 1)
    t = 0
    for j in range(1, k + 1):
        n = win[x][y][j] + lose[x][y][j]
        t += n
        if n > 0:
            f[j] = win[x][y][j] / n
    b = 1
    for j in range(2, k + 1):
        if f[j] > f[b]:
            b = j
    g = sum(f[j] for j in range(1, k + 1) if j != b)
    top = t * f[b] + m
    bottom = t * f[b] + k * m
    pb = top / bottom if bottom > 0 else 1.0
    p = [0.0] * (k + 1)
    p[b] = pb
    rest = g * t + (k - 1) * m
    for j in range(1, k + 1):
        if j != b:
            p[j] = (1 - pb) * (t * f[j] + m) / rest if rest > 0 else 0.0
    u = random.random()
    total = 0.0
    for j in range(1, k):
        total += p[j]
        if u < total:
            return j
    return k


def main():
    k, sides, low, high, games = (int(a) for a in sys.argv[1:6])
    m = float(sys.argv[6])
    win = [[[0] * (k + 1) for _ in range(low)] for _ in range(low)]
    lose = [[[0] * (k + 1) for _ in range(low)] for _ in range(low)]
    for _ in range(games):
        score = [0, 0]
        moves = ([], [])
        player = 0
        while True:
            x, y = score[player], score[1 - player]
            j = choose(win, lose, x, y, k, m)
            moves[player].append((x, y, j))
            score[player] += sum(random.randint(1, sides) for _ in range(j))
            if low <= score[player] <= high:
                winner = player
                break
            if score[player] > high:
                winner = 1 - player
                break
            player = 1 - player
        for x, y, j in moves[winner]:
            win[x][y][j] += 1
        for x, y, j in moves[1 - winner]:
            lose[x][y][j] += 1
    best = [[0] * low for _ in range(low)]
    prob = [[-1.0] * low for _ in range(low)]
    for x in range(low):
        for y in range(low):
            for j in range(1, k + 1):
                n = win[x][y][j] + lose[x][y][j]
                if n > 0 and win[x][y][j] / n > prob[x][y]:
                    prob[x][y] = win[x][y][j] / n
                    best[x][y] = j
    print("Best number of dice:")
    for row in best:
        print(" ".join(str(v) for v in row))
    print()
    print("Probability of winning:")
    for row in prob:
        print(" ".join("-1" if v < 0 else f"{v:.4f}" for v in row))



if __name__ == "__main__":
    main()
