package io.github.rocksfilter;

import java.util.Objects;

/**
 * What opening an SST file read and what its handle keeps ({@link Sst#openStats()}, mirroring
 * {@code rocksfilter_sst_open_stats}).
 *
 * <p>A value class (equal when every component is; {@code toString} as a record's), written
 * as a class rather than a record so that the same class serves JDK 11 (the JNI backend).
 */
public final class SstOpenStats {
    private final long reads;
    private final long bytesRead;
    private final long bytesHeld;

    /** A value with these components (see the accessors). */
    public SstOpenStats(long reads, long bytesRead, long bytesHeld) {
        this.reads = reads;
        this.bytesRead = bytesRead;
        this.bytesHeld = bytesHeld;
    }

    /**
     * @return reads the open made: {@code pread} calls for {@link Sst#open(java.nio.file.Path)}, calls the library made for {@link Sst#open(RangeReader, long)} and {@link Sst#open(java.nio.channels.SeekableByteChannel)}; 0 for a file in native memory ({@code Segments.openMemory}) and for {@link Sst#openBytes} on the FFM backend
     */
    public long reads() {
        return reads;
    }

    /** @return bytes those reads returned */
    public long bytesRead() {
        return bytesRead;
    }

    /**
     * @return native bytes the handle owns for its queries (filter blocks, and the partition index of a partitioned filter, alignment included)
     */
    public long bytesHeld() {
        return bytesHeld;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SstOpenStats)) {
            return false;
        }
        SstOpenStats x = (SstOpenStats) o;
        return reads == x.reads
                && bytesRead == x.bytesRead
                && bytesHeld == x.bytesHeld;
    }

    @Override
    public int hashCode() {
        return Objects.hash(reads, bytesRead, bytesHeld);
    }

    @Override
    public String toString() {
        return "SstOpenStats[reads=" + reads
                + ", bytesRead=" + bytesRead
                + ", bytesHeld=" + bytesHeld + "]";
    }
}
