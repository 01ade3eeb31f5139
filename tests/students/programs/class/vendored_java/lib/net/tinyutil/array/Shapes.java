package net.tinyutil.array;

/** Shape checks. */
public final class Shapes {
    private Shapes() {}

    public static void requirePositive(String name, int n) {
        if (n <= 0) throw new IllegalArgumentException(name + " must be positive, got " + n);
    }
}
