package net.tinyutil.format;

import java.util.Locale;

/** Fixed-point numbers, with a marker for missing values. */
public final class Fixed {
    private Fixed() {}

    public static String of(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    public static String orMissing(double v, int decimals, String missing) {
        return v < 0 ? missing : of(v, decimals);
    }
}
