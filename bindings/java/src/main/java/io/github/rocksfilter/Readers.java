package io.github.rocksfilter;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What both backends do the same way around a {@link RangeReader}: a channel as a reader, its size,
 * the check that a read filled its buffer, and the reader's failure as the cause of the open's
 * exception. Java 11 code, shared by the FFM backend ({@code SstSource}) and the JNI backend
 * ({@link JniBackend}).
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
     * One open's reader, as both backends call it: the FFM backend's {@code read_at} upcall fills a
     * buffer over the library's memory ({@link #fill}), the JNI backend's reads into a new heap
     * buffer that the native side copies ({@link #read}, {@link JniNative#readAt}), so that a
     * reader that keeps the buffer cannot touch the library's memory.
     *
     * <p>During the open (on the opening thread) the first failure is kept, for the open's
     * exception, and no read is asked after it. A handle opened with a cache keeps the reader and
     * calls it from the querying threads afterwards: a failure then fails only that read (the
     * query answers "may match" and the cache counts it) and is not kept. The library tells when it
     * is done with the reader ({@link #released()}): before the open returns when the handle keeps
     * no reader, else when the handle is freed.
     */
    static final class Call {
        /** Every release of a reader, and the releases of a reader released already (a bug if not 0). */
        static final AtomicLong RELEASED = new AtomicLong();
        static final AtomicLong RELEASED_AGAIN = new AtomicLong();

        private final RangeReader reader;
        private final Thread opener = Thread.currentThread();
        /** Set on the opening thread when the open returned. */
        private boolean opened;
        private final AtomicBoolean released = new AtomicBoolean();
        /** What the reader threw during the open, or why its read was refused; {@code null} while all went well. */
        Throwable failure;

        Call(RangeReader reader) {
            this.reader = Objects.requireNonNull(reader, "reader");
        }

        /**
         * Whether a read now is one of the open's (the opening thread, before the open returned),
         * else a query's, through a handle that keeps the reader.
         */
        boolean inOpen() {
            return Thread.currentThread() == opener && !opened;
        }

        /** Called on the opening thread once the open returned: later reads are queries'. */
        void opened() {
            opened = true;
        }

        /**
         * Fills {@code buf} (position 0, limit the range's length) with the bytes at {@code offset};
         * false when the reader threw or left bytes unfilled (or, during the open, after a failure).
         */
        boolean fill(long offset, ByteBuffer buf) {
            boolean opening = inOpen();
            if (opening && failure != null) {
                return false; // the library stops at the open's first failure: never ask the reader again
            }
            Throwable failed;
            try {
                int n = buf.limit();
                reader.readFully(offset, buf);
                failed = unfilled(offset, buf, n);
            } catch (Throwable t) {
                failed = t;
            }
            if (failed != null && opening) {
                failure = failed;
            }
            return failed == null;
        }

        /** The {@code len} bytes at {@code offset} in a new array, or {@code null} on a failure (see {@link #fill}). */
        byte[] read(long offset, int len) {
            try {
                ByteBuffer buf = ByteBuffer.allocate(len);
                return fill(offset, buf) ? buf.array() : null;
            } catch (Throwable t) { // (allocating the buffer)
                if (inOpen()) {
                    failure = t;
                }
                return null;
            }
        }

        /** The library no longer needs the reader (called once per open). */
        void released() {
            RELEASED.incrementAndGet();
            if (released.getAndSet(true)) {
                RELEASED_AGAIN.incrementAndGet();
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
