// Programming Assignment 3, written from the handout: the counting learner.
// Usage: java Learner NSides LTarget UTarget NDice M NGAMES
// (Canvas renamed this file student_1003_5003_Learner.java in its download.)
import java.util.Random;

public class Learner {
    static final Random RNG = new Random();

    static int choose(int[] win, int[] lose, int k, double m) {
        double[] f = new double[k + 1];
        int t = 0;
        for (int j = 1; j <= k; j++) {
            int n = win[j] + lose[j];
            t += n;
            f[j] = n > 0 ? (double) win[j] / n : 0.5;
        }
        int b = 1;
        for (int j = 2; j <= k; j++) if (f[j] > f[b]) b = j;
        double g = 0;
        for (int j = 1; j <= k; j++) if (j != b) g += f[j];
        double bottom = t * f[b] + k * m;
        double pb = bottom > 0 ? (t * f[b] + m) / bottom : 1.0;
        double rest = g * t + (k - 1) * m;
        double u = RNG.nextDouble(), total = 0;
        for (int j = 1; j < k; j++) {
            double p = j == b ? pb : (rest > 0 ? (1 - pb) * (t * f[j] + m) / rest : 0);
            total += p;
            if (u < total) return j;
        }
        return k;
    }

    public static void main(String[] args) {
        int sides = Integer.parseInt(args[0]), low = Integer.parseInt(args[1]);
        int high = Integer.parseInt(args[2]), k = Integer.parseInt(args[3]);
        double m = Double.parseDouble(args[4]);
        int games = Integer.parseInt(args[5]);
        int[][][] win = new int[low][low][k + 1], lose = new int[low][low][k + 1];
        int[][] moves = new int[2][3 * (high + 1)];
        for (int game = 0; game < games; game++) {
            int[] score = {0, 0};
            int[] count = {0, 0};
            int player = 0, winner;
            while (true) {
                int x = score[player], y = score[1 - player];
                int j = choose(win[x][y], lose[x][y], k, m);
                moves[player][count[player]++] = (x * low + y) * (k + 1) + j;
                for (int d = 0; d < j; d++) score[player] += 1 + RNG.nextInt(sides);
                if (score[player] >= low && score[player] <= high) { winner = player; break; }
                if (score[player] > high) { winner = 1 - player; break; }
                player = 1 - player;
            }
            for (int p = 0; p < 2; p++) {
                int[][][] table = p == winner ? win : lose;
                for (int i = 0; i < count[p]; i++) {
                    int code = moves[p][i], j = code % (k + 1), xy = code / (k + 1);
                    table[xy / low][xy % low][j]++;
                }
            }
        }
        StringBuilder best = new StringBuilder("Best number of dice:\n");
        StringBuilder prob = new StringBuilder("Probability of winning:\n");
        for (int x = 0; x < low; x++) {
            for (int y = 0; y < low; y++) {
                int b = 0;
                double p = -1;
                for (int j = 1; j <= k; j++) {
                    int n = win[x][y][j] + lose[x][y][j];
                    if (n > 0 && (double) win[x][y][j] / n > p) { p = (double) win[x][y][j] / n; b = j; }
                }
                String sep = y + 1 < low ? " " : "\n";
                best.append(b).append(sep);
                prob.append(p < 0 ? "-1" : String.format("%.4f", p)).append(sep);
            }
        }
        System.out.print(best + "\n" + prob);
    }
}
