package io.github.rocksfilter;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Ranged reads of one file, for {@link Sst#open(RangeReader, long)}: an object store's ranged GET
 * ({@code Range: bytes=offset-(offset+dst.remaining()-1)}), an engine's own file layer, a decrypting
 * or remote file.
 *
 * <p>An open asks for few ranges, all within the file's size, on the thread that called
 * {@code open} and only during that call: the last 64 KiB of the file (all of it when smaller:
 * footer, metaindex and properties), then at most one more range holding a full or partitioned
 * filter (so at most two reads for such files as RocksDB writes them; two or three for the
 * block-based filters of RocksDB before 7.0). {@link Sst#openStats()} reports the reads made. (A
 * range longer than 1 GiB, more than one {@link ByteBuffer} can address comfortably, comes as
 * consecutive calls of at most 1 GiB each.)
 *
 * <p><b>With a {@link Cache}</b> ({@link Sst#open(RangeReader, long, SstOptions)}), the handle keeps
 * the reader until it is closed and reads each filter block (a partition) when a query first needs
 * it: then from the querying threads, so from many threads at once, and the reader must be
 * thread-safe. A failure in such a read (throwing anything, or leaving bytes unfilled) never
 * reaches the caller: the query answers "may match" and the cache counts a read error.
 */
@FunctionalInterface
public interface RangeReader {
    /**
     * Fills {@code dst} with the file's bytes starting at {@code offset}: exactly
     * {@code dst.remaining()} bytes, from its position to its limit (a relative {@code put}, or a
     * channel's {@code read(dst, ...)} until nothing remains).
     *
     * <p>During an open on JDK 22+, {@code dst} is a direct buffer over memory the native library
     * keeps; it is valid only during this call (afterwards every access throws
     * {@link IllegalStateException}), so do not keep it or fill it asynchronously after returning.
     * Otherwise (the reads of queries through a cache, and every read on JDK 11 to 21) it is a
     * heap buffer that the library copies once this returns. Returning with bytes remaining fails
     * the read, as throwing does.
     *
     * @param offset where the range starts in the file (offset + dst.remaining() is at most its size)
     * @param dst    the buffer to fill, position 0, limit the range's length
     * @throws IOException when the bytes cannot be read; {@code open} then throws a
     *                     {@link RocksFilterException} ({@link Status#IO_ERROR}) whose cause is this
     *                     exception (any other exception is carried the same way); a query through
     *                     a cache answers "may match" instead
     */
    void readFully(long offset, ByteBuffer dst) throws IOException;
}
