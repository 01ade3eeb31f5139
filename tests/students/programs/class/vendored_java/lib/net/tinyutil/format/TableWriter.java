package net.tinyutil.format;

import java.io.PrintStream;

/** Writes a rows x cols table, cells separated by a separator, right-aligned. */
public final class TableWriter {
    private final PrintStream out;
    private String separator = " ";
    private int width = 0;
    private Align align = Align.RIGHT;

    public TableWriter(PrintStream out) { this.out = out; }

    public TableWriter separator(String s) { this.separator = s; return this; }

    public TableWriter width(int w) { this.width = w; return this; }

    public TableWriter align(Align a) { this.align = a; return this; }

    public void title(String text) { out.println(text); }

    public void write(int rows, int cols, Cell cell) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < rows; r++) {
            sb.setLength(0);
            for (int c = 0; c < cols; c++) {
                if (c > 0) sb.append(separator);
                sb.append(align.pad(cell.format(r, c), width));
            }
            out.println(sb);
        }
    }

    public void blank() { out.println(); }
}
