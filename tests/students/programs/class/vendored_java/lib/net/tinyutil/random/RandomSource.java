package net.tinyutil.random;

/** A source of uniform doubles in [0, 1). */
public interface RandomSource {
    double nextDouble();
}
