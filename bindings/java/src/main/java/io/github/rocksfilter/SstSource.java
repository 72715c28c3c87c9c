package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * {@code rocksfilter_sst_open_source} from Java: a {@link RangeReader} behind the source's
 * {@code read_at} (the channel readers and the failure handling both backends share are in {@link Readers}).
 *
 * <p>Each open makes its own upcall stub in a confined arena closed when the open returns (the
 * library calls {@code read_at} only inside the open, on the calling thread). Nothing thrown by the
 * reader may unwind into native code (the JVM would exit): the upcall catches it, returns a non-zero
 * code so that the open fails with {@link Status#IO_ERROR} and the library's message (which names
 * the offset and length), and the open then throws that exception with the reader's as its cause.
 */
final class SstSource {
    private SstSource() {
    }

    /** read_at's return value when the reader threw or left bytes unfilled (any non-zero is an I/O error). */
    static final int READ_FAILED = 1;

    private static final MethodHandle READ_AT;

    static {
        try {
            READ_AT = MethodHandles.lookup().findVirtual(Call.class, "readAt",
                    MethodType.methodType(int.class, MemorySegment.class, long.class, MemorySegment.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static final VarHandle STRUCT_SIZE = Native.member(Native.SST_SOURCE, "struct_size");
    private static final VarHandle SIZE = Native.member(Native.SST_SOURCE, "size");
    private static final VarHandle CTX = Native.member(Native.SST_SOURCE, "ctx");
    private static final VarHandle READ_AT_FIELD = Native.member(Native.SST_SOURCE, "read_at");

    /** One open's read_at: the reader, and the first thing it threw (or the unfilled range it left). */
    private static final class Call {
        private final RangeReader reader;
        private Throwable failure;

        Call(RangeReader reader) {
            this.reader = reader;
        }

        /** The upcall's target: never throws. */
        @SuppressWarnings("unused") // called through READ_AT
        int readAt(MemorySegment ctx, long offset, MemorySegment dst, long len) {
            try {
                if (failure != null) {
                    return READ_FAILED; // the library stops at the first failure; never ask the reader again
                }
                for (long done = 0; done < len; ) {
                    long n = Math.min(Readers.MAX_CALL, len - done);
                    // The buffer dies with this per-call arena: a reader that kept it cannot write
                    // into the library's memory later. Shared, so a reader may fill it from another
                    // thread while this one waits.
                    try (Arena call = Arena.ofShared()) {
                        ByteBuffer buf = MemorySegment.ofAddress(dst.address() + done).reinterpret(n, call, null)
                                .asByteBuffer();
                        reader.readFully(offset + done, buf);
                        failure = Readers.unfilled(offset + done, buf, n);
                        if (failure != null) {
                            return READ_FAILED;
                        }
                    }
                    done += n;
                }
                return 0;
            } catch (Throwable t) {
                failure = t;
                return READ_FAILED;
            }
        }
    }

    /** {@code rocksfilter_sst_open_source} reading through {@code reader}: the new native handle. */
    static MemorySegment open(RangeReader reader, long size, boolean verifyChecksums) {
        Objects.requireNonNull(reader, "reader");
        if (size < 0) {
            throw new IllegalArgumentException("size is " + size + ": a file's length cannot be negative");
        }
        Call call = new Call(reader);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(Native.SST_SOURCE);
            STRUCT_SIZE.set(src, 0L, Native.SST_SOURCE.byteSize());
            SIZE.set(src, 0L, size);
            CTX.set(src, 0L, MemorySegment.NULL); // the stub is bound to this open's Call
            READ_AT_FIELD.set(src, 0L, Native.upcall(READ_AT.bindTo(call), Native.READ_AT_FN, arena));
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_SOURCE.invokeExact(src, verifyChecksums ? 0 : Native.SST_SKIP_CHECKSUMS,
                    out, err);
            if (st == 0) {
                return out.get(ADDRESS, 0);
            }
            throw Readers.withCause(Native.exception(st, err.get(ADDRESS, 0)), call.failure);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
