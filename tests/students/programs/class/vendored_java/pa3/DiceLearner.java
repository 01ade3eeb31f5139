package pa3;

import java.io.IOException;
import java.io.PrintStream;

import net.tinyutil.array.DoubleGrid2;
import net.tinyutil.array.IntGrid2;
import net.tinyutil.array.IntGrid3;
import net.tinyutil.array.Ranges;
import net.tinyutil.format.Fixed;
import net.tinyutil.format.TableWriter;
import net.tinyutil.io.Out;
import net.tinyutil.io.Tokens;
import net.tinyutil.random.Die;
import net.tinyutil.random.Discrete;
import net.tinyutil.random.RandomSource;
import net.tinyutil.random.Seeds;
import net.tinyutil.random.Xoshiro256;
import net.tinyutil.stats.Ratio;
import net.tinyutil.util.Check;
import net.tinyutil.util.IntStack;

/**
 * Programming Assignment 3: learning to play dice blackjack by counting wins and losses.
 * Input on stdin: NSides LTarget UTarget NDice M NGAMES (the handout's order).
 * Uses the tinyutil library (lib/, vendored).
 */
public class DiceLearner {
    private final int sides, low, high, k;
    private final double m;
    private final IntGrid3 winCount, loseCount;
    private final RandomSource rng = new Xoshiro256(Seeds.fresh());
    private final Die die;

    DiceLearner(int sides, int low, int high, int k, double m) {
        this.sides = Check.atLeast("NSides", sides, 1);
        this.low = Check.atLeast("LTarget", low, 1);
        this.high = Check.atLeast("UTarget", high, low);
        this.k = Check.atLeast("NDice", k, 1);
        this.m = Check.nonNegative("M", m);
        this.winCount = new IntGrid3(low, low, k + 1);
        this.loseCount = new IntGrid3(low, low, k + 1);
        this.die = new Die(this.sides, rng);
    }

    /** The handout's choice of the number of dice in state (x, y). */
    int chooseDice(int x, int y) {
        double[] f = new double[k + 1];
        int t = 0;
        for (int j = 1; j <= k; j++) {
            t += winCount.get(x, y, j) + loseCount.get(x, y, j);
            f[j] = Ratio.of(winCount.get(x, y, j), loseCount.get(x, y, j), 0.5);
        }
        int b = Ranges.argmax(f, 1, k + 1);
        double g = Ranges.sum(f, 1, k + 1) - f[b];
        double[] p = new double[k + 1];
        p[b] = (t * f[b] + m) / (t * f[b] + k * m);
        for (int j = 1; j <= k; j++) {
            if (j != b) p[j] = (1 - p[b]) * (t * f[j] + m) / (g * t + (k - 1) * m);
        }
        return Discrete.sample(p, 1, k, rng);
    }

    void playOneGame() {
        int[] total = {0, 0};
        IntStack[] moves = {new IntStack(), new IntStack()};
        int player = 0;
        int winner;
        while (true) {
            int x = total[player], y = total[1 - player];
            int j = chooseDice(x, y);
            moves[player].push(x);
            moves[player].push(y);
            moves[player].push(j);
            total[player] += die.rollSum(j);
            if (total[player] >= low) {
                winner = total[player] <= high ? player : 1 - player;
                break;
            }
            player = 1 - player;
        }
        for (int who = 0; who < 2; who++) {
            IntStack s = moves[who];
            for (int i = 0; i < s.size(); i += 3) {
                if (who == winner) winCount.increment(s.get(i), s.get(i + 1), s.get(i + 2));
                else loseCount.increment(s.get(i), s.get(i + 1), s.get(i + 2));
            }
        }
    }

    void print(PrintStream out) {
        IntGrid2 best = new IntGrid2(low, low);
        DoubleGrid2 prob = new DoubleGrid2(low, low);
        prob.fill(-1);
        for (int x = 0; x < low; x++) {
            for (int y = 0; y < low; y++) {
                for (int j = 1; j <= k; j++) {
                    int n = winCount.get(x, y, j) + loseCount.get(x, y, j);
                    if (n > 0 && Ratio.of(winCount.get(x, y, j), loseCount.get(x, y, j), 0)
                            > prob.get(x, y)) {
                        prob.set(x, y, Ratio.of(winCount.get(x, y, j), loseCount.get(x, y, j), 0));
                        best.set(x, y, j);
                    }
                }
            }
        }
        TableWriter table = new TableWriter(out).width(2);
        table.title("Best number of dice to roll:");
        table.write(low, low, (r, c) -> Integer.toString(best.get(r, c)));
        table.blank();
        table.title("Probability of winning:");
        table.width(7).write(low, low, (r, c) -> Fixed.orMissing(prob.get(r, c), 4, "-1"));
        out.flush();
    }

    public static void main(String[] args) throws IOException {
        Tokens in = new Tokens(System.in);
        int sides = in.nextInt(), low = in.nextInt(), high = in.nextInt(), k = in.nextInt();
        double m = in.nextDouble();
        long games = in.nextLong();
        DiceLearner learner = new DiceLearner(sides, low, high, k, m);
        for (long g = 0; g < games; g++) learner.playOneGame();
        learner.print(Out.buffered());
    }
}
