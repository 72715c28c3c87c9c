package io.github.rocksfilter;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.util.Objects;

/**
 * What both backends do the same way around a {@link RangeReader}: a channel as a reader, its size,
 * the check that a read filled its buffer, and the reader's failure as the cause of the open's
 * exception. Java 11 code, shared by the FFM backend ({@link SstSource}) and the JNI backend.
 */
final class Readers {
    private Readers() {
    }

    /** Largest range handed to one {@link RangeReader#readFully} call: 1 GiB. */
    static final long MAX_CALL = 1L << 30;

    /**
     * The failure to record when {@code readFully(offset, buf)} returned with {@code buf} not
     * exactly filled ({@code n} bytes asked), or {@code null} when it was filled.
     */
    static EOFException unfilled(long offset, ByteBuffer buf, long n) {
        if (buf.limit() == n && !buf.hasRemaining()) {
            return null;
        }
        return new EOFException(String.format(
                "RangeReader.readFully(%d, dst) returned with dst's position at %d and limit at"
                        + " %d: it must fill all %d bytes (position == limit == %d)",
                offset, buf.position(), buf.limit(), n, n));
    }

    /**
     * One open's reader as the JNI backend calls it ({@link JniNative#readAt}): each range into a new
     * heap buffer that the native side copies, so a reader that keeps the buffer cannot touch the
     * library's memory. The first failure is kept, and no read is asked after it.
     */
    static final class Call {
        private final RangeReader reader;
        /** What the reader threw, or why its read was refused; {@code null} while all went well. */
        Throwable failure;

        Call(RangeReader reader) {
            this.reader = Objects.requireNonNull(reader, "reader");
        }

        /** The {@code len} bytes at {@code offset}, or {@code null} after a failure. */
        byte[] read(long offset, int len) {
            if (failure != null) {
                return null;
            }
            try {
                ByteBuffer buf = ByteBuffer.allocate(len);
                reader.readFully(offset, buf);
                failure = unfilled(offset, buf, len);
                return failure == null ? buf.array() : null;
            } catch (Throwable t) {
                failure = t;
                return null;
            }
        }
    }

    /**
     * The open's exception with the reader's failure attached: as the cause, or, for an
     * {@link Error} the reader threw, that error itself with the open's exception suppressed.
     */
    static Throwable withCause(RocksFilterException e, Throwable readerFailure) {
        if (readerFailure == null) {
            return e;
        }
        if (readerFailure instanceof Error) {
            readerFailure.addSuppressed(e);
            return readerFailure;
        }
        e.initCause(readerFailure);
        return e;
    }

    /** As {@link #withCause}, thrown. */
    static RuntimeException rethrowWithCause(RocksFilterException e, Throwable readerFailure) {
        Throwable t = withCause(e, readerFailure);
        if (t instanceof Error) {
            throw (Error) t;
        }
        return (RuntimeException) t;
    }

    /** {@code channel.size()}, an {@link IOException} as a {@link RocksFilterException}. */
    static long size(SeekableByteChannel channel) {
        try {
            return channel.size();
        } catch (IOException e) {
            RocksFilterException failed = new RocksFilterException(Status.IO_ERROR, "I/O error: size of the channel: " + e);
            failed.initCause(e);
            throw failed;
        }
    }

    /**
     * {@code channel} as a reader: positional reads for a {@link FileChannel}, else
     * {@code position(offset)} and {@code read}.
     */
    static RangeReader reader(SeekableByteChannel channel) {
        Objects.requireNonNull(channel, "channel");
        if (channel instanceof FileChannel) {
            FileChannel file = (FileChannel) channel;
            return (offset, dst) -> {
                long at = offset;
                while (dst.hasRemaining()) {
                    int n = file.read(dst, at);
                    if (n < 0) {
                        throw ended(at, offset, dst);
                    }
                    at += n;
                }
            };
        }
        return (offset, dst) -> {
            channel.position(offset);
            long at = offset;
            while (dst.hasRemaining()) {
                int n = channel.read(dst);
                if (n < 0) {
                    throw ended(at, offset, dst);
                }
                at += n;
            }
        };
    }

    private static EOFException ended(long at, long offset, ByteBuffer dst) {
        return new EOFException("the channel ends at offset " + at + ", " + dst.remaining()
                + " bytes short of the range of " + dst.limit() + " bytes at offset " + offset
                + " (was the file truncated?)");
    }
}
