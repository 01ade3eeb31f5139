/* The self-play loops of dicejack's protocol-game learners (learners/game_kernels.py) written
 * as plain C, the baseline of benchmarks/bench_game_learners.py: the same row arrays (read from
 * a file the benchmark writes), the same update in the same float operations, and numpy's PCG64
 * stream (PCG-XSL-RR 128/64, native 128-bit arithmetic), so that from the same generator state
 * both end with identical tables, which the benchmark checks before it compares speeds.
 *
 * Usage: game_loop LEARNER ARRAYS GAMES OUT  (LEARNER: q-learning or counting)
 * ARRAYS (little-endian, written by the benchmark): int64 n_states, n_rows, n_outcomes; then
 * row_start[n_states + 1], indptr[n_rows + 1], succ[n_outcomes] (int64), cum[n_outcomes],
 * sign[n_states], payoff[n_states] (float64), terminal[n_states] (uint8), player[n_states]
 * (int64); then the parameters float64 eps0, eps_min, decay, alpha, m, q_init; int64 cap; then
 * the generator: uint64 state_hi, state_lo, inc_hi, inc_lo.
 * Prints: moves and CPU seconds (clock()); writes to OUT the tables: float64 q[n_rows], then
 * int64 n[n_rows] (q-learning's updates; counting's wins), lose[n_rows], visits[n_states].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned __int128 u128;
static const u128 MULT = ((u128)2549297995355413924ULL << 64) | 4865540595714422341ULL;
static u128 state, inc;

static inline double next_double(void) {
    state = state * MULT + inc;
    uint64_t hi = (uint64_t)(state >> 64), lo = (uint64_t)state;
    uint64_t x = hi ^ lo;
    unsigned rot = (unsigned)(hi >> 58);
    uint64_t out = (x >> rot) | (x << ((64 - rot) & 63));
    return (double)(out >> 11) * (1.0 / 9007199254740992.0);
}

static void *take(FILE *f, size_t size, size_t count) {
    void *p = malloc(size * (count ? count : 1));
    if (!p || fread(p, size, count, f) != count) { fprintf(stderr, "short file\n"); exit(2); }
    return p;
}

static int64_t n_states, n_rows, n_outs, cap;
static int64_t *row_start, *indptr, *succ, *player;
static double *cum, *sign, *payoff, eps0, eps_min, decay, alpha, m, q_init;
static uint8_t *terminal;
static int64_t *visits;

static inline int64_t outcome(int64_t row, double u) {
    int64_t i = indptr[row];
    while (u >= cum[i]) i++;
    return succ[i];
}

static inline int64_t greedy(const double *q, int64_t lo, int64_t hi, double sgn) {
    int64_t best = lo;
    double top = sgn * q[lo];
    for (int64_t r = lo + 1; r < hi; r++) {
        double v = sgn * q[r];
        if (v > top) { best = r; top = v; }
    }
    return best;
}

static int64_t q_learning(double *q, int64_t *n, int64_t games) {
    int64_t total = 0;
    for (int64_t g = 0; g < games; g++) {
        double eps = eps0 / (1.0 + (double)g / decay);
        if (eps < eps_min) eps = eps_min;
        int64_t s = 0, moves = 0;
        while (!terminal[s] && moves < cap) {
            int64_t a = row_start[s], b = row_start[s + 1], r;
            double u = next_double();
            if (u < eps) {
                int64_t k = (int64_t)(u / eps * (double)(b - a));
                r = a + (k < b - a - 1 ? k : b - a - 1);
            } else {
                r = greedy(q, a, b, sign[s]);
            }
            int64_t nxt = outcome(r, next_double());
            visits[s]++;
            double target = terminal[nxt] ? payoff[nxt]
                : q[greedy(q, row_start[nxt], row_start[nxt + 1], sign[nxt])];
            n[r] += 1;
            double step = alpha == 0.0 ? 1.0 / (double)n[r] : alpha;
            q[r] += step * (target - q[r]);
            s = nxt;
            moves++;
        }
        total += moves;
    }
    return total;
}

static inline double f_of(const int64_t *w, const int64_t *l, int64_t r) {
    int64_t d = w[r] + l[r];
    return d > 0 ? (double)w[r] / (double)d : 0.5;
}

static inline int64_t counting_choice(const int64_t *w, const int64_t *l, int64_t lo,
                                      int64_t hi, double x) {
    int64_t k = hi - lo;
    if (k == 1) return lo;
    int64_t total = 0, best = 1;
    double fbest = -1.0;
    for (int64_t j = 1; j <= k; j++) {
        total += w[lo + j - 1] + l[lo + j - 1];
        double fj = f_of(w, l, lo + j - 1);
        if (fj > fbest) { fbest = fj; best = j; }
    }
    double tt = (double)total, tfb = tt * fbest, den_b = tfb + (double)k * m, u = 0.0;
    if (den_b == 0.0) {
        for (int64_t i = 1; i < k; i++) { u += 1.0 / (double)k; if (x < u) return lo + i - 1; }
        return hi - 1;
    }
    double pb = (tfb + m) / den_b, g = 0.0;
    for (int64_t j = 1; j <= k; j++) if (j != best) g += f_of(w, l, lo + j - 1);
    double den = g * tt + (double)(k - 1) * m;
    double q = den != 0.0 ? (1.0 - pb) / den : 0.0;
    for (int64_t i = 1; i < k; i++) {
        u += i == best ? pb : q * (tt * f_of(w, l, lo + i - 1) + m);
        if (x < u) return lo + i - 1;
    }
    return hi - 1;
}

static int64_t counting(int64_t *w, int64_t *l, int64_t games) {
    int64_t total = 0, room = 64;
    int64_t *made = malloc(sizeof(int64_t) * room), *movers = malloc(sizeof(int64_t) * room);
    for (int64_t g = 0; g < games; g++) {
        int64_t s = 0, moves = 0;
        while (!terminal[s] && moves < cap) {
            int64_t r = counting_choice(w, l, row_start[s], row_start[s + 1], next_double());
            if (moves == room) {
                room *= 2;
                made = realloc(made, sizeof(int64_t) * room);
                movers = realloc(movers, sizeof(int64_t) * room);
            }
            made[moves] = r;
            movers[moves] = player[s];
            visits[s]++;
            s = outcome(r, next_double());
            moves++;
        }
        if (terminal[s]) {
            int64_t winner = payoff[s] == 1.0 ? 0 : 1;
            for (int64_t i = 0; i < moves; i++) {
                if (movers[i] == winner) w[made[i]]++; else l[made[i]]++;
            }
        }
        total += moves;
    }
    free(made);
    free(movers);
    return total;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: game_loop LEARNER ARRAYS GAMES OUT\n"); return 2; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 2; }
    int64_t head[3];
    if (fread(head, sizeof head, 1, f) != 1) { fprintf(stderr, "short file\n"); return 2; }
    n_states = head[0]; n_rows = head[1]; n_outs = head[2];
    row_start = take(f, 8, n_states + 1); indptr = take(f, 8, n_rows + 1);
    succ = take(f, 8, n_outs); cum = take(f, 8, n_outs); sign = take(f, 8, n_states);
    payoff = take(f, 8, n_states); terminal = take(f, 1, n_states);
    player = take(f, 8, n_states);
    double *par = take(f, 8, 6);
    eps0 = par[0]; eps_min = par[1]; decay = par[2]; alpha = par[3]; m = par[4]; q_init = par[5];
    int64_t *capp = take(f, 8, 1);
    cap = *capp;
    uint64_t *gen = take(f, 8, 4);
    state = ((u128)gen[0] << 64) | gen[1];
    inc = ((u128)gen[2] << 64) | gen[3];
    fclose(f);
    int64_t games = atoll(argv[3]);
    double *q = malloc(sizeof(double) * n_rows);
    int64_t *n = calloc(n_rows, sizeof(int64_t)), *l = calloc(n_rows, sizeof(int64_t));
    for (int64_t r = 0; r < n_rows; r++) q[r] = q_init;
    visits = calloc(n_states, sizeof(int64_t));
    clock_t t0 = clock();
    int64_t moves = strcmp(argv[1], "counting") == 0 ? counting(n, l, games)
                                                     : q_learning(q, n, games);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("%lld %.6f\n", (long long)moves, secs);
    FILE *o = fopen(argv[4], "wb");
    if (!o) { perror(argv[4]); return 2; }
    fwrite(q, 8, n_rows, o);
    fwrite(n, 8, n_rows, o);
    fwrite(l, 8, n_rows, o);
    fwrite(visits, 8, n_states, o);
    fclose(o);
    return 0;
}
