// Programming Assignment 3, written from the handout: the counting learner (C++).
// Usage: ./learn NDice NSides LTarget UTarget M NGAMES
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

static int K, SIDES, LOW, HIGH;
static double M;
static int *WIN, *LOSE;

#define AT(a, x, y, j) (a)[((x) * LOW + (y)) * (K + 1) + (j)]

static std::mt19937_64 rng{std::random_device{}()};
static double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
static int die() { return std::uniform_int_distribution<int>(1, SIDES)(rng); }

static int choose(int x, int y) {
    double f[64] = {0}, p[64] = {0}, g = 0, sum = 0, u, bottom, rest, pb;
    int t = 0, b = 1, j;
    for (j = 1; j <= K; j++) {
        int n = AT(WIN, x, y, j) + AT(LOSE, x, y, j);
        t += n;
        f[j] = n > 0 ? (double)AT(WIN, x, y, j) / n : 0.5;
    }
    for (j = 2; j <= K; j++) if (f[j] > f[b]) b = j;
    for (j = 1; j <= K; j++) if (j != b) g += f[j];
    bottom = t * f[b] + K * M;
    pb = bottom > 0 ? (t * f[b] + M) / bottom : 1.0;
    rest = g * t + (K - 1) * M;
    for (j = 1; j <= K; j++) p[j] = j == b ? pb : (rest > 0 ? (1 - pb) * (t * f[j] + M) / rest : 0.0);
    u = uniform();
    for (j = 1; j < K; j++) {
        sum += p[j];
        if (u < sum) return j;
    }
    return K;
}

int main(int argc, char **argv) {
    long games, game;
    int x, y, j, d;
    if (argc != 7) {
        std::fprintf(stderr, "usage: learn NDice NSides LTarget UTarget M NGAMES\n");
        return 1;
    }
    K = std::atoi(argv[1]);
    SIDES = std::atoi(argv[2]);
    LOW = std::atoi(argv[3]);
    HIGH = std::atoi(argv[4]);
    M = std::atof(argv[5]);
    games = std::atol(argv[6]);
    if (K < 1 || K > 60 || LOW < 1 || HIGH < LOW || SIDES < 1) {
        fprintf(stderr, "bad settings\n");
        return 1;
    }
    WIN = (int *)calloc((size_t)LOW * LOW * (K + 1), sizeof(int));
    LOSE = (int *)calloc((size_t)LOW * LOW * (K + 1), sizeof(int));
    int *mx = (int *)malloc(sizeof(int) * 4 * (HIGH + 2)), *my = mx + HIGH + 2, *mj = my + HIGH + 2,
        *who = mj + HIGH + 2;
    for (game = 0; game < games; game++) {
        int score[2] = {0, 0}, player = 0, winner, count = 0, i;
        for (;;) {
            x = score[player];
            y = score[1 - player];
            j = choose(x, y);
            mx[count] = x; my[count] = y; mj[count] = j; who[count] = player; count++;
            for (d = 0; d < j; d++) score[player] += die();
            if (score[player] >= LOW && score[player] <= HIGH) { winner = player; break; }
            if (score[player] > HIGH) { winner = 1 - player; break; }
            player = 1 - player;
        }
        for (i = 0; i < count; i++) {
            if (who[i] == winner) AT(WIN, mx[i], my[i], mj[i])++;
            else AT(LOSE, mx[i], my[i], mj[i])++;
        }
    }
    printf("Best number of dice:\n");
    for (x = 0; x < LOW; x++) {
        for (y = 0; y < LOW; y++) {
            int best = 0;
            double p = -1;
            for (j = 1; j <= K; j++) {
                int n = AT(WIN, x, y, j) + AT(LOSE, x, y, j);
                if (n > 0 && (double)AT(WIN, x, y, j) / n > p) { p = (double)AT(WIN, x, y, j) / n; best = j; }
            }
            printf(y ? " %d" : "%d", best);
        }
        printf("\n");
    }
    printf("\nProbability of winning:\n");
    for (x = 0; x < LOW; x++) {
        for (y = 0; y < LOW; y++) {
            double p = -1;
            for (j = 1; j <= K; j++) {
                int n = AT(WIN, x, y, j) + AT(LOSE, x, y, j);
                if (n > 0 && (double)AT(WIN, x, y, j) / n > p) p = (double)AT(WIN, x, y, j) / n;
            }
            if (p < 0) printf(y ? " -1" : "-1");
            else printf(y ? " %.4f" : "%.4f", p);
        }
        printf("\n");
    }
    return 0;
}
