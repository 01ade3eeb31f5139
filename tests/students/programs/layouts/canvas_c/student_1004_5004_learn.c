/* Programming Assignment 3, written from the handout: the counting learner.
   Usage: ./learn NSides LTarget UTarget NDice M NGAMES
   (Canvas renamed this file student_1004_5004_learn.c in its download.) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "util.h"

int main(int argc, char **argv) {
    if (argc < 7) return 2;
    int sides = atoi(argv[1]), low = atoi(argv[2]), high = atoi(argv[3]), k = atoi(argv[4]);
    double m = atof(argv[5]);
    long games = atol(argv[6]);
    int cells = low * low * (k + 1), x, y, j;
    int *win = calloc(cells, sizeof *win), *lose = calloc(cells, sizeof *lose);
    int *moves[2] = {malloc(sizeof(int) * 3 * (high + 1)), malloc(sizeof(int) * 3 * (high + 1))};
    srand((unsigned) time(NULL));
    for (long game = 0; game < games; game++) {
        int score[2] = {0, 0}, count[2] = {0, 0}, player = 0, winner;
        for (;;) {
            int at = (score[player] * low + score[1 - player]) * (k + 1);
            j = choose(win + at, lose + at, k, m);
            moves[player][count[player]++] = at + j;
            for (int d = 0; d < j; d++) score[player] += roll(sides);
            if (score[player] >= low && score[player] <= high) { winner = player; break; }
            if (score[player] > high) { winner = 1 - player; break; }
            player = 1 - player;
        }
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < count[p]; i++) (p == winner ? win : lose)[moves[p][i]]++;
    }
    printf("Best number of dice:\n");
    for (x = 0; x < low; x++)
        for (y = 0; y < low; y++) {
            int b = 0, at = (x * low + y) * (k + 1);
            double p = -1;
            for (j = 1; j <= k; j++) {
                int n = win[at + j] + lose[at + j];
                if (n > 0 && (double) win[at + j] / n > p) { p = (double) win[at + j] / n; b = j; }
            }
            printf("%d%c", b, y + 1 < low ? ' ' : '\n');
        }
    printf("\nProbability of winning:\n");
    for (x = 0; x < low; x++)
        for (y = 0; y < low; y++) {
            int at = (x * low + y) * (k + 1);
            double p = -1;
            for (j = 1; j <= k; j++) {
                int n = win[at + j] + lose[at + j];
                if (n > 0 && (double) win[at + j] / n > p) p = (double) win[at + j] / n;
            }
            if (p < 0) printf("-1%c", y + 1 < low ? ' ' : '\n');
            else printf("%.4f%c", p, y + 1 < low ? ' ' : '\n');
        }
    return 0;
}
