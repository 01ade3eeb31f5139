package net.tinyutil.util;

/** Elapsed wall time. */
public final class Stopwatch {
    private final long start = System.nanoTime();

    public double seconds() { return (System.nanoTime() - start) / 1e9; }
}
