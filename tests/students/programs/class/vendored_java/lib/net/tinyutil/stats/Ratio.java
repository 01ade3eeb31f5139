package net.tinyutil.stats;

/** a / (a + b), or a default when both are 0. */
public final class Ratio {
    private Ratio() {}

    public static double of(int a, int b, double whenEmpty) {
        int n = a + b;
        return n == 0 ? whenEmpty : (double) a / n;
    }
}
