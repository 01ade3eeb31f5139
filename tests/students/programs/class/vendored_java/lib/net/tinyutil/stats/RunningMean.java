package net.tinyutil.stats;

/** A running mean (Welford), for quick checks of a simulation. */
public final class RunningMean {
    private long n;
    private double mean, m2;

    public void add(double x) {
        n++;
        double d = x - mean;
        mean += d / n;
        m2 += d * (x - mean);
    }

    public double mean() { return mean; }

    public double variance() { return n > 1 ? m2 / (n - 1) : 0; }

    public long count() { return n; }
}
