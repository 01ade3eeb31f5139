/* The handout's counting learner as a tight C loop: the baseline of benchmarks/bench_learner_c.py.

   Written from the handout (docs/assignment.md): WinCount/LoseCount per (X, Y, J); f_J =
   W/(W+L), 0.5 when both are 0; B = the lowest J with the largest f_J; p_B = (T f_B + M)/(T f_B
   + K M), p_J = (1 - p_B)(T f_J + M)/(g T + (K-1) M); J = the first i with x < p_1 + ... + p_i;
   the roll's total drawn from the exact distribution of the sum of J dice with one more uniform;
   after each game every move of the winner adds 1 to WinCount, of the loser to LoseCount.
   The same bookkeeping as dicejack's compiled loop (an f cache updated with the counts, a guide
   table to start the search of the roll's total), so the two differ in the random numbers only:
   xoshiro256** here (about 1 ns a draw), numpy's PCG64 there.

   Usage: handout_loop SIDES LOW HIGH DICE M GAMES SEED
   Prints: games moves cpu_seconds checksum (the checksum: sum of WinCount, against dead-code
   elimination). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t s[4];

static inline uint64_t rotl(const uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next(void) {
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static inline double uniform(void) { return (double)(next() >> 11) * 0x1.0p-53; }

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s SIDES LOW HIGH DICE M GAMES SEED\n", argv[0]);
        return 2;
    }
    const int S = atoi(argv[1]), L = atoi(argv[2]), H = atoi(argv[3]), K = atoi(argv[4]);
    const double M = atof(argv[5]);
    const long long games = atoll(argv[6]);
    uint64_t seed = strtoull(argv[7], NULL, 10);
    for (int i = 0; i < 4; i++) s[i] = splitmix(&seed);
    const int K1 = K + 1, T = K * S + 1;
    /* cdf[j][t] = P(sum of j dice <= t), by convolution */
    double *pmf = calloc((size_t)K1 * T, sizeof(double)), *cdf = calloc((size_t)K1 * T, sizeof(double));
    pmf[0] = 1.0;
    for (int j = 1; j <= K; j++)
        for (int t = 0; t < T; t++) {
            double v = 0.0;
            for (int d = 1; d <= S && d <= t; d++) v += pmf[(j - 1) * T + t - d];
            pmf[j * T + t] = v / S;
        }
    for (int j = 0; j <= K; j++) {
        double c = 0.0;
        for (int t = 0; t < T; t++) { c += pmf[j * T + t]; cdf[j * T + t] = c; }
        cdf[j * T + T - 1] = 1.0;
    }
    const int G = 4 * T; /* guide: a start for the search of the first t with u < cdf[j][t] */
    int *guide = malloc(sizeof(int) * K1 * G);
    for (int j = 0; j <= K; j++)
        for (int g = 0; g < G; g++) {
            double level = (double)g / G;
            int t = 0;
            while (t < T - 1 && !(level < cdf[j * T + t])) t++;
            guide[j * G + g] = t;
        }
    const size_t cells = (size_t)L * L * K1;
    int64_t *win = calloc(cells, sizeof(int64_t)), *lose = calloc(cells, sizeof(int64_t));
    double *f = malloc(cells * sizeof(double)); /* f[x][y][0] = T, f[x][y][j] = f_j */
    for (size_t i = 0; i < cells; i++) f[i] = (i % K1 == 0) ? 0.0 : 0.5;
    int *xs = malloc(sizeof(int) * (2 * L + 2)), *ys = malloc(sizeof(int) * (2 * L + 2)),
        *js = malloc(sizeof(int) * (2 * L + 2));
    long long moves = 0;
    clock_t start = clock();
    for (long long game = 0; game < games; game++) {
        int a = 0, b = 0, n = 0;
        for (;;) {
            const double *fs = f + ((size_t)a * L + b) * K1;
            int best = 1;
            double fbest = fs[1];
            for (int j = 2; j <= K; j++)
                if (fs[j] > fbest) { fbest = fs[j]; best = j; }
            const double x = uniform();
            int jj = K;
            if (K > 1) {
                const double tt = fs[0], den_b = tt * fbest + K * M;
                double u = 0.0;
                if (den_b == 0.0) {
                    for (int i = 1; i < K; i++) { u += 1.0 / K; if (x < u) { jj = i; break; } }
                } else {
                    const double pb = (tt * fbest + M) / den_b;
                    double g = 0.0;
                    for (int j = 1; j <= K; j++) if (j != best) g += fs[j];
                    const double den = g * tt + (K - 1) * M;
                    const double q = den != 0.0 ? (1.0 - pb) / den : 0.0;
                    for (int i = 1; i < K; i++) {
                        u += (i == best) ? pb : q * (tt * fs[i] + M);
                        if (x < u) { jj = i; break; }
                    }
                }
            }
            const double r = uniform();
            const double *c = cdf + jj * T;
            int t = guide[jj * G + (int)(r * G)];
            while (t > jj && r < c[t - 1]) t--;
            while (!(r < c[t])) t++;
            xs[n] = a; ys[n] = b; js[n] = jj; n++;
            const int now = a + t;
            if (now >= L) {
                const int won = now <= H;
                for (int i = 0; i < n; i++) {
                    const size_t at = ((size_t)xs[i] * L + ys[i]) * K1;
                    if ((((n - 1 - i) & 1) == 0) == won) win[at + js[i]]++;
                    else lose[at + js[i]]++;
                    const int64_t w = win[at + js[i]];
                    f[at + js[i]] = (double)w / (double)(w + lose[at + js[i]]);
                    f[at] += 1.0;
                }
                break;
            }
            a = b;
            b = now;
        }
        moves += n;
    }
    const double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    int64_t check = 0;
    for (size_t i = 0; i < cells; i++) check += win[i];
    printf("%lld %lld %.6f %lld\n", games, moves, seconds, (long long)check);
    return 0;
}
