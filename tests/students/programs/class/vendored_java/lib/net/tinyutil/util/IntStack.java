package net.tinyutil.util;

import java.util.Arrays;

/** A growable stack of ints. */
public final class IntStack {
    private int[] items = new int[16];
    private int size;

    public void push(int v) {
        if (size == items.length) items = Arrays.copyOf(items, size * 2);
        items[size++] = v;
    }

    public int get(int i) { return items[i]; }

    public int size() { return size; }

    public void clear() { size = 0; }
}
