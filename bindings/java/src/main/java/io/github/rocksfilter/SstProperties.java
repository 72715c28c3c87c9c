package io.github.rocksfilter;

/**
 * Format and table properties of an SST file, mirroring {@code rocksfilter_sst_properties}.
 * Strings are {@code null} when the property is absent; numbers are 0 when absent.
 *
 * @param formatVersion     the footer's format_version (2 to 7)
 * @param checksumType      block checksum type: 0 none, 1 crc32c, 2 xxhash32, 3 xxhash64, 4 xxh3
 * @param filterType        the kind of filter the file holds
 * @param numPartitions     number of filter partitions (1 for a full filter, 0 without filter)
 * @param wholeKeyFiltering whether whole keys were added to the filter
 * @param hasPrefixFilter   whether {@link Sst#prefixMayMatch(byte[])} can answer from the filter
 * @param numEntries        rocksdb.num.entries
 * @param numFilterEntries  rocksdb.num.filter_entries
 * @param filterSize        bytes of filter (all partitions), as recorded by RocksDB
 * @param creationTime      rocksdb.creation.time
 * @param fileCreationTime  rocksdb.file.creation.time
 * @param filterPolicy      rocksdb.filter.policy, e.g. "bloomfilter" or "ribbonfilter"
 * @param comparator        rocksdb.comparator, e.g. "leveldb.BytewiseComparator"
 * @param prefixExtractor   rocksdb.prefix.extractor.name, e.g. "rocksdb.FixedPrefix.4"
 * @param filterBlockName   the metaindex name of the filter block, e.g. "fullfilter.rocksdb.BuiltinBloomFilter"
 */
public record SstProperties(
        int formatVersion,
        int checksumType,
        SstFilterType filterType,
        int numPartitions,
        boolean wholeKeyFiltering,
        boolean hasPrefixFilter,
        long numEntries,
        long numFilterEntries,
        long filterSize,
        long creationTime,
        long fileCreationTime,
        String filterPolicy,
        String comparator,
        String prefixExtractor,
        String filterBlockName) {
}
