package io.github.rocksfilter;

import java.util.Objects;

/**
 * Format and table properties of an SST file, mirroring {@code rocksfilter_sst_properties}.
 * Strings are {@code null} when the property is absent; numbers are 0 when absent.
 *
 * <p>A value class (equal when every component is; {@code toString} as a record's), written
 * as a class rather than a record so that the same class serves JDK 11 (the JNI backend).
 */
public final class SstProperties {
    private final int formatVersion;
    private final int checksumType;
    private final SstFilterType filterType;
    private final int numPartitions;
    private final boolean wholeKeyFiltering;
    private final boolean hasPrefixFilter;
    private final long numEntries;
    private final long numFilterEntries;
    private final long filterSize;
    private final long creationTime;
    private final long fileCreationTime;
    private final String filterPolicy;
    private final String comparator;
    private final String prefixExtractor;
    private final String filterBlockName;

    /** A value with these components (see the accessors). */
    public SstProperties(int formatVersion, int checksumType, SstFilterType filterType, int numPartitions, boolean wholeKeyFiltering, boolean hasPrefixFilter, long numEntries, long numFilterEntries, long filterSize, long creationTime, long fileCreationTime, String filterPolicy, String comparator, String prefixExtractor, String filterBlockName) {
        this.formatVersion = formatVersion;
        this.checksumType = checksumType;
        this.filterType = filterType;
        this.numPartitions = numPartitions;
        this.wholeKeyFiltering = wholeKeyFiltering;
        this.hasPrefixFilter = hasPrefixFilter;
        this.numEntries = numEntries;
        this.numFilterEntries = numFilterEntries;
        this.filterSize = filterSize;
        this.creationTime = creationTime;
        this.fileCreationTime = fileCreationTime;
        this.filterPolicy = filterPolicy;
        this.comparator = comparator;
        this.prefixExtractor = prefixExtractor;
        this.filterBlockName = filterBlockName;
    }

    /** @return the footer's format_version (2 to 7) */
    public int formatVersion() {
        return formatVersion;
    }

    /** @return block checksum type: 0 none, 1 crc32c, 2 xxhash32, 3 xxhash64, 4 xxh3 */
    public int checksumType() {
        return checksumType;
    }

    /** @return the kind of filter the file holds */
    public SstFilterType filterType() {
        return filterType;
    }

    /** @return number of filter partitions (1 for a full filter, 0 without filter) */
    public int numPartitions() {
        return numPartitions;
    }

    /** @return whether whole keys were added to the filter */
    public boolean wholeKeyFiltering() {
        return wholeKeyFiltering;
    }

    /** @return whether {@link Sst#prefixMayMatch(byte[])} can answer from the filter */
    public boolean hasPrefixFilter() {
        return hasPrefixFilter;
    }

    /** @return rocksdb.num.entries */
    public long numEntries() {
        return numEntries;
    }

    /** @return rocksdb.num.filter_entries */
    public long numFilterEntries() {
        return numFilterEntries;
    }

    /** @return bytes of filter (all partitions), as recorded by RocksDB */
    public long filterSize() {
        return filterSize;
    }

    /** @return rocksdb.creation.time */
    public long creationTime() {
        return creationTime;
    }

    /** @return rocksdb.file.creation.time */
    public long fileCreationTime() {
        return fileCreationTime;
    }

    /** @return rocksdb.filter.policy, e.g. "bloomfilter" or "ribbonfilter" */
    public String filterPolicy() {
        return filterPolicy;
    }

    /** @return rocksdb.comparator, e.g. "leveldb.BytewiseComparator" */
    public String comparator() {
        return comparator;
    }

    /** @return rocksdb.prefix.extractor.name, e.g. "rocksdb.FixedPrefix.4" */
    public String prefixExtractor() {
        return prefixExtractor;
    }

    /**
     * @return the metaindex name of the filter block, e.g. "fullfilter.rocksdb.BuiltinBloomFilter"
     */
    public String filterBlockName() {
        return filterBlockName;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SstProperties)) {
            return false;
        }
        SstProperties x = (SstProperties) o;
        return formatVersion == x.formatVersion
                && checksumType == x.checksumType
                && Objects.equals(filterType, x.filterType)
                && numPartitions == x.numPartitions
                && wholeKeyFiltering == x.wholeKeyFiltering
                && hasPrefixFilter == x.hasPrefixFilter
                && numEntries == x.numEntries
                && numFilterEntries == x.numFilterEntries
                && filterSize == x.filterSize
                && creationTime == x.creationTime
                && fileCreationTime == x.fileCreationTime
                && Objects.equals(filterPolicy, x.filterPolicy)
                && Objects.equals(comparator, x.comparator)
                && Objects.equals(prefixExtractor, x.prefixExtractor)
                && Objects.equals(filterBlockName, x.filterBlockName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(formatVersion, checksumType, filterType, numPartitions, wholeKeyFiltering, hasPrefixFilter, numEntries, numFilterEntries, filterSize, creationTime, fileCreationTime, filterPolicy, comparator, prefixExtractor, filterBlockName);
    }

    @Override
    public String toString() {
        return "SstProperties[formatVersion=" + formatVersion
                + ", checksumType=" + checksumType
                + ", filterType=" + filterType
                + ", numPartitions=" + numPartitions
                + ", wholeKeyFiltering=" + wholeKeyFiltering
                + ", hasPrefixFilter=" + hasPrefixFilter
                + ", numEntries=" + numEntries
                + ", numFilterEntries=" + numFilterEntries
                + ", filterSize=" + filterSize
                + ", creationTime=" + creationTime
                + ", fileCreationTime=" + fileCreationTime
                + ", filterPolicy=" + filterPolicy
                + ", comparator=" + comparator
                + ", prefixExtractor=" + prefixExtractor
                + ", filterBlockName=" + filterBlockName + "]";
    }
}
