package net.tinyutil.random;

/** SplitMix64 (Steele, Lea, Flood 2014). */
public final class SplitMix64 implements RandomSource {
    private long state;

    public SplitMix64(long seed) { this.state = seed; }

    public long nextLong() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public double nextDouble() { return (nextLong() >>> 11) * 0x1.0p-53; }
}
