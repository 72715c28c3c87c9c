package io.github.rocksfilter;

/**
 * What opening an SST file read and what its handle keeps ({@link Sst#openStats()}, mirroring
 * {@code rocksfilter_sst_open_stats}).
 *
 * @param reads     reads the open made: {@code pread} calls for {@link Sst#open(java.nio.file.Path)},
 *                  calls the library made for {@link Sst#open(RangeReader, long)} and
 *                  {@link Sst#open(java.nio.channels.SeekableByteChannel)}; 0 for
 *                  {@link Sst#openMemory} and {@link Sst#openBytes}
 * @param bytesRead bytes those reads returned
 * @param bytesHeld native bytes the handle owns for its queries (filter blocks, and the partition
 *                  index of a partitioned filter, alignment included)
 */
public record SstOpenStats(long reads, long bytesRead, long bytesHeld) {
}
