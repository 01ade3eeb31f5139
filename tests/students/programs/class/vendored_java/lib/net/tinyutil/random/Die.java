package net.tinyutil.random;

/** A fair die numbered 1..sides. */
public final class Die {
    private final int sides;
    private final RandomSource rng;

    public Die(int sides, RandomSource rng) {
        if (sides < 1) throw new IllegalArgumentException("sides < 1");
        this.sides = sides;
        this.rng = rng;
    }

    public int roll() { return 1 + (int) (rng.nextDouble() * sides); }

    public int rollSum(int n) {
        int total = 0;
        for (int i = 0; i < n; i++) total += roll();
        return total;
    }
}
