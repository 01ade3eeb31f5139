package net.tinyutil.random;

/** Sampling an index 0..k from probabilities p[0..k], by cumulative sums. */
public final class Discrete {
    private Discrete() {}

    public static int sample(double[] p, int from, int to, RandomSource rng) {
        double x = rng.nextDouble();
        double u = 0;
        for (int i = from; i < to; i++) {
            u += p[i];
            if (x < u) return i;
        }
        return to; // round-off: the last one
    }
}
