package net.tinyutil.io;

import java.io.IOException;

/** The input ended before a value was read. */
public class MissingInput extends IOException {
    public MissingInput(String message) { super(message); }
}
