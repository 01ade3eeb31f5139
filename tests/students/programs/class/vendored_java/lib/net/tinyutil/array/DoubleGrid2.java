package net.tinyutil.array;

import java.util.Arrays;

/** A dense 2-D double array. */
public final class DoubleGrid2 {
    private final int rows, cols;
    private final double[] data;

    public DoubleGrid2(int rows, int cols) {
        this.rows = rows;
        this.cols = cols;
        this.data = new double[rows * cols];
    }

    public double get(int r, int c) { return data[r * cols + c]; }

    public void set(int r, int c, double v) { data[r * cols + c] = v; }

    public void fill(double v) { Arrays.fill(data, v); }

    public int rows() { return rows; }

    public int cols() { return cols; }
}
