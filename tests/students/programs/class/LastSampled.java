import java.util.Random;

/*
 * PA3 - Dice Blackjack learner.
 * Run: java LastSampled NSides LTarget UTarget NDice M NGAMES
 * BUG (last-sampled): the "best" table keeps, per state, the number of dice the learner
 * drew the last time it was in that state, and the probability it drew it with.
 */
public class LastSampled {
    static int nSides, lTarget, uTarget, nDice;
    static double m;
    static int[][][] winCount, loseCount;
    static int[][] lastDice;
    static double[][] lastProb;
    static Random random = new Random();

    static int chooseDice(int x, int y) {
        int k = nDice;
        double[] f = new double[k + 1];
        int t = 0;
        for (int j = 1; j <= k; j++) {
            int n = winCount[x][y][j] + loseCount[x][y][j];
            t += n;
            f[j] = n == 0 ? 0.5 : (double) winCount[x][y][j] / n;
        }
        int b = 1;
        for (int j = 2; j <= k; j++) {
            if (f[j] > f[b]) b = j;
        }
        double g = 0;
        for (int j = 1; j <= k; j++) {
            if (j != b) g += f[j];
        }
        double[] p = new double[k + 1];
        p[b] = (t * f[b] + m) / (t * f[b] + k * m);
        for (int j = 1; j <= k; j++) {
            if (j != b) p[j] = (1 - p[b]) * (t * f[j] + m) / (g * t + (k - 1) * m);
        }
        double r = random.nextDouble();
        double u = 0;
        int chosen = k;
        for (int j = 1; j < k; j++) {
            u += p[j];
            if (r < u) {
                chosen = j;
                break;
            }
        }
        lastDice[x][y] = chosen;
        lastProb[x][y] = p[chosen];
        return chosen;
    }

    public static void main(String[] args) {
        nSides = Integer.parseInt(args[0]);
        lTarget = Integer.parseInt(args[1]);
        uTarget = Integer.parseInt(args[2]);
        nDice = Integer.parseInt(args[3]);
        m = Double.parseDouble(args[4]);
        int nGames = Integer.parseInt(args[5]);
        winCount = new int[lTarget][lTarget][nDice + 1];
        loseCount = new int[lTarget][lTarget][nDice + 1];
        lastDice = new int[lTarget][lTarget];
        lastProb = new double[lTarget][lTarget];
        int[][] moves = new int[2 * uTarget + 2][4];
        for (int game = 0; game < nGames; game++) {
            int[] score = {0, 0};
            int count = 0, player = 0, winner;
            while (true) {
                int x = score[player], y = score[1 - player];
                int j = chooseDice(x, y);
                moves[count][0] = player;
                moves[count][1] = x;
                moves[count][2] = y;
                moves[count][3] = j;
                count++;
                for (int d = 0; d < j; d++) score[player] += 1 + random.nextInt(nSides);
                if (score[player] >= lTarget && score[player] <= uTarget) {
                    winner = player;
                    break;
                } else if (score[player] > uTarget) {
                    winner = 1 - player;
                    break;
                }
                player = 1 - player;
            }
            for (int i = 0; i < count; i++) {
                int[] mv = moves[i];
                if (mv[0] == winner) winCount[mv[1]][mv[2]][mv[3]]++;
                else loseCount[mv[1]][mv[2]][mv[3]]++;
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("Number of dice to roll\n");
        for (int x = 0; x < lTarget; x++) {
            for (int y = 0; y < lTarget; y++) {
                out.append(lastDice[x][y]).append(y + 1 < lTarget ? " " : "\n");
            }
        }
        out.append("\nProbability of winning\n");
        for (int x = 0; x < lTarget; x++) {
            for (int y = 0; y < lTarget; y++) {
                String v = lastDice[x][y] == 0 ? "-1" : String.format("%.4f", lastProb[x][y]);
                out.append(v).append(y + 1 < lTarget ? " " : "\n");
            }
        }
        System.out.print(out);
    }
}
