/* PA3 dice blackjack learner.
 * Reads input.txt: NSides LTarget UTarget NDice M NGAMES (whitespace separated).
 * BUG (integer division): f_J = WinCount / (WinCount + LoseCount) is computed on ints. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXL 64
#define MAXK 16

int WinCount[MAXL][MAXL][MAXK + 1];
int LoseCount[MAXL][MAXL][MAXK + 1];

int NSides, LTarget, UTarget, NDice;
double M;

double frac(int x, int y, int j) {
    int n = WinCount[x][y][j] + LoseCount[x][y][j];
    if (n == 0) return 0.5;
    return WinCount[x][y][j] / n;
}

int choose(int x, int y) {
    int K = NDice, B = 1, T = 0, j;
    double f[MAXK + 1], p[MAXK + 1], g = 0, r, u;
    for (j = 1; j <= K; j++) {
        f[j] = frac(x, y, j);
        T += WinCount[x][y][j] + LoseCount[x][y][j];
        if (f[j] > f[B]) B = j;
    }
    for (j = 1; j <= K; j++)
        if (j != B) g += f[j];
    p[B] = (T * f[B] + M) / (T * f[B] + K * M);
    for (j = 1; j <= K; j++)
        if (j != B) p[j] = (1 - p[B]) * (T * f[j] + M) / (g * T + (K - 1) * M);
    r = (double) rand() / ((double) RAND_MAX + 1);
    u = 0;
    for (j = 1; j < K; j++) {
        u += p[j];
        if (r < u) return j;
    }
    return K;
}

int main(void) {
    long NGAMES, game;
    FILE *in = fopen("input.txt", "r");
    if (!in || fscanf(in, "%d %d %d %d %lf %ld", &NSides, &LTarget, &UTarget, &NDice, &M,
                      &NGAMES) != 6) {
        fprintf(stderr, "cannot read input.txt\n");
        return 1;
    }
    fclose(in);
    if (LTarget > MAXL || NDice > MAXK) {
        fprintf(stderr, "too big\n");
        return 1;
    }
    srand(time(NULL) ^ (clock() << 8));
    for (game = 0; game < NGAMES; game++) {
        int sx[2 * MAXL], sy[2 * MAXL], sj[2 * MAXL], who[2 * MAXL];
        int score[2] = {0, 0}, n = 0, p = 0, winner, i, d;
        for (;;) {
            int j = choose(score[p], score[1 - p]);
            sx[n] = score[p];
            sy[n] = score[1 - p];
            sj[n] = j;
            who[n] = p;
            n++;
            for (d = 0; d < j; d++) score[p] += rand() % NSides + 1;
            if (score[p] >= LTarget) {
                winner = score[p] <= UTarget ? p : 1 - p;
                break;
            }
            p = 1 - p;
        }
        for (i = 0; i < n; i++) {
            if (who[i] == winner) WinCount[sx[i]][sy[i]][sj[i]]++;
            else LoseCount[sx[i]][sy[i]][sj[i]]++;
        }
    }
    int x, y, j;
    printf("Best move:\n");
    for (x = 0; x < LTarget; x++) {
        for (y = 0; y < LTarget; y++) {
            int best = 0;
            double bf = -1;
            for (j = 1; j <= NDice; j++)
                if (WinCount[x][y][j] + LoseCount[x][y][j] > 0 && frac(x, y, j) > bf) {
                    bf = frac(x, y, j);
                    best = j;
                }
            printf("%3d", best);
        }
        printf("\n");
    }
    printf("Win probability:\n");
    for (x = 0; x < LTarget; x++) {
        for (y = 0; y < LTarget; y++) {
            double bf = -1;
            for (j = 1; j <= NDice; j++)
                if (WinCount[x][y][j] + LoseCount[x][y][j] > 0 && frac(x, y, j) > bf)
                    bf = frac(x, y, j);
            printf(" %7.4f", bf);
        }
        printf("\n");
    }
    return 0;
}
