/* Programming Assignment 3: the learner's helpers (Canvas renamed this header
   student_1004_5004_util.h in its download; learn.c includes "util.h"). */
#ifndef UTIL_H
#define UTIL_H
#include <stdlib.h>

static double uniform(void) { return rand() / (RAND_MAX + 1.0); }
static int roll(int sides) { return 1 + (int) (uniform() * sides); }

/* The handout's action choice: the best J by winning fraction gets the larger share. */
static int choose(const int *win, const int *lose, int k, double m) {
    double f[64] = {0}, g = 0, total = 0, u;
    int t = 0, b = 1, j;
    for (j = 1; j <= k; j++) {
        int n = win[j] + lose[j];
        t += n;
        f[j] = n > 0 ? (double) win[j] / n : 0.5;
    }
    for (j = 2; j <= k; j++) if (f[j] > f[b]) b = j;
    for (j = 1; j <= k; j++) if (j != b) g += f[j];
    double bottom = t * f[b] + k * m, rest = g * t + (k - 1) * m;
    double pb = bottom > 0 ? (t * f[b] + m) / bottom : 1.0;
    u = uniform();
    for (j = 1; j < k; j++) {
        total += j == b ? pb : (rest > 0 ? (1 - pb) * (t * f[j] + m) / rest : 0);
        if (u < total) return j;
    }
    return k;
}
#endif
