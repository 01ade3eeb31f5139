package net.tinyutil.io;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

/** Whitespace-separated tokens from a stream, across lines. */
public final class Tokens {
    private final BufferedReader in;
    private StringTokenizer line;

    public Tokens(InputStream stream) { this.in = new BufferedReader(new InputStreamReader(stream)); }

    public String next() throws IOException {
        while (line == null || !line.hasMoreTokens()) {
            String s = in.readLine();
            if (s == null) throw new MissingInput("expected more input");
            line = new StringTokenizer(s);
        }
        return line.nextToken();
    }

    public int nextInt() throws IOException { return Integer.parseInt(next()); }

    public long nextLong() throws IOException { return Long.parseLong(next()); }

    public double nextDouble() throws IOException { return Double.parseDouble(next()); }
}
