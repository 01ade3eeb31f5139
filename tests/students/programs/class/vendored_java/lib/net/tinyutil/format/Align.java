package net.tinyutil.format;

/** Column alignment. */
public enum Align {
    LEFT, RIGHT;

    public String pad(String s, int width) {
        if (s.length() >= width) return s;
        String blanks = " ".repeat(width - s.length());
        return this == LEFT ? s + blanks : blanks + s;
    }
}
