package net.tinyutil.util;

/** The library's version. */
public final class Version {
    public static final String VERSION = "0.4.1";

    private Version() {}
}
