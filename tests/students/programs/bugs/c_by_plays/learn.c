/* Programming Assignment 3, written from the handout: the counting learner.
   Reads input.txt: NSides, LTarget, UTarget, NDice, M, NGAMES, one a line.
   BUG (print-only slip): the best J printed is the most played J (beside its own estimate). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int K, SIDES, LOW, HIGH;
static double M;
static int *WIN, *LOSE;

#define AT(a, x, y, j) (a)[((x) * LOW + (y)) * (K + 1) + (j)]

static double uniform(void) { return rand() / ((double)RAND_MAX + 1.0); }

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

int main(void) {
    FILE *in = fopen("input.txt", "r");
    long games, game;
    int x, y, j, d;
    if (!in || fscanf(in, "%d %d %d %d %lf %ld", &SIDES, &LOW, &HIGH, &K, &M, &games) != 6) {
        fprintf(stderr, "cannot read input.txt\n");
        return 1;
    }
    if (K < 1 || K > 60 || LOW < 1 || HIGH < LOW || SIDES < 1) {
        fprintf(stderr, "bad settings\n");
        return 1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    srand((unsigned)now.tv_nsec ^ (unsigned)now.tv_sec);
    WIN = calloc((size_t)LOW * LOW * (K + 1), sizeof(int));
    LOSE = calloc((size_t)LOW * LOW * (K + 1), sizeof(int));
    int *mx = malloc(sizeof(int) * 4 * (HIGH + 2)), *my = mx + HIGH + 2, *mj = my + HIGH + 2,
        *who = mj + HIGH + 2;
    for (game = 0; game < games; game++) {
        int score[2] = {0, 0}, player = 0, winner, count = 0, i;
        for (;;) {
            x = score[player];
            y = score[1 - player];
            j = choose(x, y);
            mx[count] = x; my[count] = y; mj[count] = j; who[count] = player; count++;
            for (d = 0; d < j; d++) score[player] += 1 + rand() % SIDES;
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
            int best = 0, most = 0;
            for (j = 1; j <= K; j++) {
                int n = AT(WIN, x, y, j) + AT(LOSE, x, y, j);
                if (n > most) { most = n; best = j; }
            }
            printf(y ? " %d" : "%d", best);
        }
        printf("\n");
    }
    printf("\nProbability of winning:\n");
    for (x = 0; x < LOW; x++) {
        for (y = 0; y < LOW; y++) {
            double p = -1;
            int most = 0;
            for (j = 1; j <= K; j++) {
                int n = AT(WIN, x, y, j) + AT(LOSE, x, y, j);
                if (n > most) { most = n; p = (double)AT(WIN, x, y, j) / n; }
            }
            if (p < 0) printf(y ? " -1" : "-1");
            else printf(y ? " %.4f" : "%.4f", p);
        }
        printf("\n");
    }
    return 0;
}
