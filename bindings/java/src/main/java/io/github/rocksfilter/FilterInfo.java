package io.github.rocksfilter;

import java.util.Objects;

/**
 * Geometry of a loaded filter, mirroring {@code rocksfilter_filter_info_ex} (filled by
 * {@code rocksfilter_filter_get_info_ex}).
 *
 * <p>A value class (equal when every component is; {@code toString} as a record's), written
 * as a class rather than a record so that the same class serves JDK 11 (the JNI backend).
 */
public final class FilterInfo {
    private final Kind kind;
    private final long bytes;
    private final int numProbes;
    private final int numLines;
    private final int lineBytes;
    private final int numBlocks;
    private final int seed;
    private final int lowerNumColumns;
    private final int upperStartBlock;

    /** A value with these components (see the accessors). */
    public FilterInfo(Kind kind, long bytes, int numProbes, int numLines, int lineBytes, int numBlocks, int seed, int lowerNumColumns, int upperStartBlock) {
        this.kind = kind;
        this.bytes = bytes;
        this.numProbes = numProbes;
        this.numLines = numLines;
        this.lineBytes = lineBytes;
        this.numBlocks = numBlocks;
        this.seed = seed;
        this.lowerNumColumns = lowerNumColumns;
        this.upperStartBlock = upperStartBlock;
    }

    /** @return what the block holds */
    public Kind kind() {
        return kind;
    }

    /** @return whole block length in bytes, the filter's own 5-byte metadata trailer included */
    public long bytes() {
        return bytes;
    }

    /** @return Bloom kinds: probes per key; 0 for other kinds */
    public int numProbes() {
        return numProbes;
    }

    /** @return legacy Bloom: number of cache lines; 0 for other kinds */
    public int numLines() {
        return numLines;
    }

    /**
     * @return legacy Bloom: the cache-line size the block was written with; FastLocalBloom: 64; 0 for other kinds
     */
    public int lineBytes() {
        return lineBytes;
    }

    /** @return Ribbon: number of 128-slot blocks; 0 for other kinds */
    public int numBlocks() {
        return numBlocks;
    }

    /** @return Ribbon: the hash seed (0..255) the builder settled on */
    public int seed() {
        return seed;
    }

    /** @return Ribbon: solution columns per slot in blocks before {@code upperStartBlock} */
    public int lowerNumColumns() {
        return lowerNumColumns;
    }

    /** @return Ribbon: first block with {@code lowerNumColumns + 1} columns */
    public int upperStartBlock() {
        return upperStartBlock;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FilterInfo)) {
            return false;
        }
        FilterInfo x = (FilterInfo) o;
        return Objects.equals(kind, x.kind)
                && bytes == x.bytes
                && numProbes == x.numProbes
                && numLines == x.numLines
                && lineBytes == x.lineBytes
                && numBlocks == x.numBlocks
                && seed == x.seed
                && lowerNumColumns == x.lowerNumColumns
                && upperStartBlock == x.upperStartBlock;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, bytes, numProbes, numLines, lineBytes, numBlocks, seed, lowerNumColumns, upperStartBlock);
    }

    @Override
    public String toString() {
        return "FilterInfo[kind=" + kind
                + ", bytes=" + bytes
                + ", numProbes=" + numProbes
                + ", numLines=" + numLines
                + ", lineBytes=" + lineBytes
                + ", numBlocks=" + numBlocks
                + ", seed=" + seed
                + ", lowerNumColumns=" + lowerNumColumns
                + ", upperStartBlock=" + upperStartBlock + "]";
    }
}
