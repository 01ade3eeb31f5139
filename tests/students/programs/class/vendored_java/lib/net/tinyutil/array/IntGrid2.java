package net.tinyutil.array;

/** A dense 2-D int array. */
public final class IntGrid2 {
    private final int rows, cols;
    private final int[] data;

    public IntGrid2(int rows, int cols) {
        this.rows = rows;
        this.cols = cols;
        this.data = new int[rows * cols];
    }

    public int get(int r, int c) { return data[r * cols + c]; }

    public void set(int r, int c, int v) { data[r * cols + c] = v; }

    public int rows() { return rows; }

    public int cols() { return cols; }
}
