// Programming Assignment 3, written from the handout: the counting learner.
// Reads one line from standard input: NDice NSides LTarget UTarget M NGAMES.
// BUG (print-only slip): the best J printed is the J with the most wins (beside
// its own estimate), not the J with the best estimate.
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Scanner;

public class Learner {
    static int k, sides, low, high;
    static double m;
    static int[][][] win, lose;
    static Random rng = new Random();

    static int choose(int x, int y) {
        double[] f = new double[k + 1];
        int t = 0;
        for (int j = 1; j <= k; j++) {
            int n = win[x][y][j] + lose[x][y][j];
            t += n;
            f[j] = n > 0 ? (double) win[x][y][j] / n : 0.5;
        }
        int b = 1;
        for (int j = 2; j <= k; j++) if (f[j] > f[b]) b = j;
        double g = 0;
        for (int j = 1; j <= k; j++) if (j != b) g += f[j];
        double bottom = t * f[b] + k * m;
        double pb = bottom > 0 ? (t * f[b] + m) / bottom : 1.0;
        double[] p = new double[k + 1];
        p[b] = pb;
        double rest = g * t + (k - 1) * m;
        for (int j = 1; j <= k; j++)
            if (j != b) p[j] = rest > 0 ? (1 - pb) * (t * f[j] + m) / rest : 0.0;
        double u = rng.nextDouble(), sum = 0;
        for (int j = 1; j < k; j++) {
            sum += p[j];
            if (u < sum) return j;
        }
        return k;
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        k = in.nextInt();
        sides = in.nextInt();
        low = in.nextInt();
        high = in.nextInt();
        m = in.nextDouble();
        int games = in.nextInt();
        win = new int[low][low][k + 1];
        lose = new int[low][low][k + 1];
        for (int game = 0; game < games; game++) {
            int[] score = new int[2];
            List<List<int[]>> moves = new ArrayList<>();
            moves.add(new ArrayList<>());
            moves.add(new ArrayList<>());
            int player = 0, winner;
            while (true) {
                int x = score[player], y = score[1 - player];
                int j = choose(x, y);
                moves.get(player).add(new int[] {x, y, j});
                for (int d = 0; d < j; d++) score[player] += 1 + rng.nextInt(sides);
                if (score[player] >= low && score[player] <= high) { winner = player; break; }
                if (score[player] > high) { winner = 1 - player; break; }
                player = 1 - player;
            }
            for (int[] mv : moves.get(winner)) win[mv[0]][mv[1]][mv[2]]++;
            for (int[] mv : moves.get(1 - winner)) lose[mv[0]][mv[1]][mv[2]]++;
        }
        StringBuilder dice = new StringBuilder("Best number of dice:\n");
        StringBuilder prob = new StringBuilder("Probability of winning:\n");
        for (int x = 0; x < low; x++) {
            for (int y = 0; y < low; y++) {
                int best = 0;
                double p = -1;
                int most = -1;
                for (int j = 1; j <= k; j++) {
                    int n = win[x][y][j] + lose[x][y][j];
                    if (n > 0 && win[x][y][j] > most) {
                        most = win[x][y][j];
                        best = j;
                        p = (double) win[x][y][j] / n;
                    }
                }
                dice.append(y > 0 ? " " : "").append(best);
                prob.append(y > 0 ? " " : "").append(p < 0 ? "-1" : String.format("%.4f", p));
            }
            dice.append("\n");
            prob.append("\n");
        }
        System.out.print(dice + "\n" + prob);
    }
}
