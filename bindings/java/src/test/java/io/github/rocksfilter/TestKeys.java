package io.github.rocksfilter;

import java.nio.charset.StandardCharsets;

/** Deterministic test keys. */
final class TestKeys {
    private TestKeys() {
    }

    /** Sorted (bytewise) keys of varying length (13..49 bytes): "key" + 10 digits of i*step + padding. */
    static byte[][] sorted(int n, int step) {
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = key((long) i * step);
        }
        return keys;
    }

    static byte[] key(long v) {
        return (String.format("key%010d", v) + "x".repeat((int) (v % 37))).getBytes(StandardCharsets.UTF_8);
    }

    /** {@code n} keys that are not in {@link #sorted(int, int)} with this step (numbers not multiples of step, in range). */
    static byte[][] absent(int n, int step) {
        byte[][] keys = new byte[n][];
        long v = 0;
        for (int i = 0; i < n; i++) {
            v++;
            if (v % step == 0) {
                v++;
            }
            keys[i] = key(v);
        }
        return keys;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
