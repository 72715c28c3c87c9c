package io.github.rocksfilter;

import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.Optional;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public class Sst implements AutoCloseable {
    Sst() {
    }

    public static Sst open(Path path) {
        throw JdkCheck.unsupported();
    }

    public static Sst open(Path path, boolean verifyChecksums) {
        throw JdkCheck.unsupported();
    }

    public static Sst open(RangeReader reader, long size) {
        throw JdkCheck.unsupported();
    }

    public static Sst open(RangeReader reader, long size, boolean verifyChecksums) {
        throw JdkCheck.unsupported();
    }

    public static Sst open(SeekableByteChannel channel) {
        throw JdkCheck.unsupported();
    }

    public static Sst open(SeekableByteChannel channel, boolean verifyChecksums) {
        throw JdkCheck.unsupported();
    }

    public static Sst openBytes(byte[] file) {
        throw JdkCheck.unsupported();
    }

    public boolean mayMatch(byte[] key) {
        throw JdkCheck.unsupported();
    }

    public boolean[] mayMatchBatch(byte[][] keys) {
        throw JdkCheck.unsupported();
    }

    public boolean prefixMayMatch(byte[] prefix) {
        throw JdkCheck.unsupported();
    }

    public Optional<Filter> fullFilter() {
        throw JdkCheck.unsupported();
    }

    public SstFilterType filterType() {
        throw JdkCheck.unsupported();
    }

    public SstProperties properties() {
        throw JdkCheck.unsupported();
    }

    public Optional<byte[]> property(String name) {
        throw JdkCheck.unsupported();
    }

    public SstOpenStats openStats() {
        throw JdkCheck.unsupported();
    }

    public boolean isClosed() {
        throw JdkCheck.unsupported();
    }

    public void close() {
        throw JdkCheck.unsupported();
    }
}
