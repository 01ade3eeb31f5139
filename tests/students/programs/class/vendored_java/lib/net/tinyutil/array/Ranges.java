package net.tinyutil.array;

/** Small helpers over int and double ranges. */
public final class Ranges {
    private Ranges() {}

    public static double sum(double[] a, int from, int to) {
        double s = 0;
        for (int i = from; i < to; i++) s += a[i];
        return s;
    }

    public static int argmax(double[] a, int from, int to) {
        int best = from;
        for (int i = from + 1; i < to; i++) if (a[i] > a[best]) best = i;
        return best;
    }
}
