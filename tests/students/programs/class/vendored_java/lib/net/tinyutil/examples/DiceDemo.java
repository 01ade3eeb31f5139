package net.tinyutil.examples;

import net.tinyutil.random.Die;
import net.tinyutil.random.Xoshiro256;
import net.tinyutil.stats.RunningMean;

/** Rolls a die many times and prints the mean (the library's own example). */
public final class DiceDemo {
    public static void main(String[] args) {
        Die die = new Die(6, new Xoshiro256(42));
        RunningMean mean = new RunningMean();
        for (int i = 0; i < 100000; i++) mean.add(die.roll());
        System.out.println("mean " + mean.mean());
    }
}
