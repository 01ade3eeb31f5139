package net.tinyutil.random;

/** xoshiro256** (Blackman, Vigna), seeded through SplitMix64. */
public final class Xoshiro256 implements RandomSource {
    private final long[] s = new long[4];

    public Xoshiro256(long seed) {
        SplitMix64 sm = new SplitMix64(seed);
        for (int i = 0; i < 4; i++) s[i] = sm.nextLong();
    }

    public long nextLong() {
        long result = Long.rotateLeft(s[1] * 5, 7) * 9;
        long t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = Long.rotateLeft(s[3], 45);
        return result;
    }

    @Override
    public double nextDouble() { return (nextLong() >>> 11) * 0x1.0p-53; }
}
