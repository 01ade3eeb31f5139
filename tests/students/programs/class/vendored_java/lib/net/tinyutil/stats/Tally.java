package net.tinyutil.stats;

/** Counts of wins and losses. */
public final class Tally {
    private int wins, losses;

    public void win() { wins++; }

    public void lose() { losses++; }

    public int wins() { return wins; }

    public int losses() { return losses; }

    public int total() { return wins + losses; }

    public double fraction(double whenEmpty) { return Ratio.of(wins, losses, whenEmpty); }
}
