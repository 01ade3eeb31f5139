package net.tinyutil.io;

import java.io.BufferedOutputStream;
import java.io.PrintStream;

/** A buffered standard output (flush at the end). */
public final class Out {
    private Out() {}

    public static PrintStream buffered() {
        return new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false);
    }
}
