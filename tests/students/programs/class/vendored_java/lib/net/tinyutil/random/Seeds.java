package net.tinyutil.random;

/** Seeds from the clock and the process. */
public final class Seeds {
    private Seeds() {}

    public static long fresh() {
        return System.nanoTime() ^ (System.currentTimeMillis() << 21)
            ^ ProcessHandle.current().pid() * 0x9E3779B97F4A7C15L;
    }
}
