package net.tinyutil.util;

/** Argument checks. */
public final class Check {
    private Check() {}

    public static int atLeast(String name, int v, int min) {
        if (v < min) throw new IllegalArgumentException(name + " must be at least " + min);
        return v;
    }

    public static double nonNegative(String name, double v) {
        if (v < 0 || Double.isNaN(v)) throw new IllegalArgumentException(name + " must be >= 0");
        return v;
    }
}
