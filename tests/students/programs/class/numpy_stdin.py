# PA3 - dice blackjack learner
# input (one line on stdin): NDice NSides LTarget UTarget NGAMES M
import numpy as np

ndice, nsides, ltarget, utarget, ngames, M = input().split()
ndice, nsides, ltarget, utarget, ngames = (int(v) for v in (ndice, nsides, ltarget, utarget,
                                                            ngames))
M = float(M)

# WinCount[X,Y,J], LoseCount[X,Y,J]; J = 0 never used (see footnote 1)
WinCount = np.zeros((ltarget, ltarget, ndice + 1), dtype=int)
LoseCount = np.zeros((ltarget, ltarget, ndice + 1), dtype=int)
rng = np.random.default_rng()
K = ndice


def choose_dice(X, Y):
    wins = WinCount[X, Y, 1:]
    plays = wins + LoseCount[X, Y, 1:]
    f = np.full(K, 0.5)
    tried = plays > 0
    f[tried] = wins[tried] / plays[tried]
    B = int(np.argmax(f))  # index 0 means 1 die
    T = plays.sum()
    g = f.sum() - f[B]
    p = np.zeros(K)
    p[B] = (T * f[B] + M) / (T * f[B] + K * M)
    for J in range(K):
        if J != B:
            p[J] = (1 - p[B]) * (T * f[J] + M) / (g * T + (K - 1) * M)
    u = np.cumsum(p)
    x = rng.random()
    for i in range(K - 1):
        if x < u[i]:
            return i + 1
    return K


for _ in range(ngames):
    total = [0, 0]
    history = [[], []]  # (X, Y, J) for each player
    player = 0
    while True:
        X, Y = total[player], total[1 - player]
        J = choose_dice(X, Y)
        history[player].append((X, Y, J))
        total[player] += int(rng.integers(1, nsides + 1, size=J).sum())
        if total[player] >= ltarget:
            winner = player if total[player] <= utarget else 1 - player
            break
        player = 1 - player
    for X, Y, J in history[winner]:
        WinCount[X, Y, J] += 1
    for X, Y, J in history[1 - winner]:
        LoseCount[X, Y, J] += 1

plays = WinCount + LoseCount
with np.errstate(divide="ignore", invalid="ignore"):
    prob = np.where(plays > 0, WinCount / plays, -1.0)
prob[:, :, 0] = -1.0
best = np.argmax(prob, axis=2)
best_prob = np.max(prob, axis=2)
best[best_prob < 0] = 0

print("Number of dice to roll:")
print(best)
print("Probability of winning:")
print(best_prob)
