package net.tinyutil.array;

/** A dense 3-D int array in one block. */
public final class IntGrid3 {
    private final int n0, n1, n2;
    private final int[] data;

    public IntGrid3(int n0, int n1, int n2) {
        this.n0 = n0;
        this.n1 = n1;
        this.n2 = n2;
        this.data = new int[n0 * n1 * n2];
    }

    private int at(int i, int j, int k) { return (i * n1 + j) * n2 + k; }

    public int get(int i, int j, int k) { return data[at(i, j, k)]; }

    public void set(int i, int j, int k, int v) { data[at(i, j, k)] = v; }

    public void increment(int i, int j, int k) { data[at(i, j, k)]++; }

    public int size(int axis) { return axis == 0 ? n0 : axis == 1 ? n1 : n2; }
}
