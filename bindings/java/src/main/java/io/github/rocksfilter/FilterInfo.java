package io.github.rocksfilter;

/**
 * Geometry of a loaded filter, mirroring {@code rocksfilter_filter_info_ex} (filled by
 * {@code rocksfilter_filter_get_info_ex}).
 *
 * @param kind            what the block holds
 * @param bytes           whole block length in bytes, the filter's own 5-byte metadata trailer included
 * @param numProbes       Bloom kinds: probes per key; 0 for other kinds
 * @param numLines        legacy Bloom: number of cache lines; 0 for other kinds
 * @param lineBytes       legacy Bloom: the cache-line size the block was written with; FastLocalBloom: 64;
 *                        0 for other kinds
 * @param numBlocks       Ribbon: number of 128-slot blocks; 0 for other kinds
 * @param seed            Ribbon: the hash seed (0..255) the builder settled on
 * @param lowerNumColumns Ribbon: solution columns per slot in blocks before {@code upperStartBlock}
 * @param upperStartBlock Ribbon: first block with {@code lowerNumColumns + 1} columns
 */
public record FilterInfo(
        Kind kind,
        long bytes,
        int numProbes,
        int numLines,
        int lineBytes,
        int numBlocks,
        int seed,
        int lowerNumColumns,
        int upperStartBlock) {
}
