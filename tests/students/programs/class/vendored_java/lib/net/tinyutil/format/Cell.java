package net.tinyutil.format;

/** How one value of a table is written. */
public interface Cell {
    String format(int row, int col);
}
