package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * {@code rocksfilter_sst_open_source} and {@code rocksfilter_sst_open_source_ex} from Java: a
 * {@link RangeReader} behind the source's {@code read_at} (the reads and the failure handling both
 * backends share are in {@link Readers}).
 *
 * <p>Two upcall stubs serve every open, {@code read_at} and {@code release}, made once in the global
 * arena: an open registers its {@link Readers.Call} under a number, the source's {@code ctx}, and the
 * library's {@code release} unregisters it, once, when it is done with the reader — before the open
 * returns when the handle keeps no reader (no cache, or a failed open), else when the handle is
 * freed. A handle opened with a cache keeps the reader and calls {@code read_at} from whichever
 * threads query it, for its whole life, so the stubs must outlive every handle; made per open, they
 * would also take code-cache space (each stub is generated code) for every handle open at once.
 * The library never sees a Java object or a heap address, and Java keeps no pointer into the
 * library's memory: during an open {@code read_at}'s buffer is wrapped per call in an arena closed
 * when it returns; in a query the reader fills a heap buffer that is then copied
 * ({@link #readForQuery}).
 *
 * <p>Nothing thrown by the reader may unwind into native code (the JVM would exit): the upcall
 * catches it and returns a non-zero code. During the open that fails the open with
 * {@link Status#IO_ERROR} and the library's message (which names the offset and length), and the
 * open then throws that exception with the reader's as its cause; in a query it fails that read:
 * the query answers "may match" and the cache counts a read error.
 */
final class SstSource {
    private SstSource() {
    }

    /** read_at's return value when the reader threw or left bytes unfilled (any non-zero is an I/O error). */
    static final int READ_FAILED = 1;

    /** The readers the library holds, by the number passed as their source's ctx. */
    private static final Map<Long, Readers.Call> CALLS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);

    private static final VarHandle STRUCT_SIZE = Native.member(Native.SST_SOURCE, "struct_size");
    private static final VarHandle SIZE = Native.member(Native.SST_SOURCE, "size");
    private static final VarHandle CTX = Native.member(Native.SST_SOURCE, "ctx");
    private static final VarHandle READ_AT_FIELD = Native.member(Native.SST_SOURCE, "read_at");
    private static final VarHandle RELEASE_FIELD = Native.member(Native.SST_SOURCE, "release");
    private static final VarHandle O_STRUCT_SIZE = Native.member(Native.SST_OPTIONS, "struct_size");
    private static final VarHandle O_FLAGS = Native.member(Native.SST_OPTIONS, "flags");
    private static final VarHandle O_CACHE = Native.member(Native.SST_OPTIONS, "cache");

    /** The upcall stubs, made on first use (the global arena: never freed). */
    private static final class Stubs {
        static final MemorySegment READ_AT;
        static final MemorySegment RELEASE;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                READ_AT = Native.upcall(lookup.findStatic(SstSource.class, "readAt", MethodType.methodType(int.class,
                        MemorySegment.class, long.class, MemorySegment.class, long.class)), Native.READ_AT_FN, Arena.global());
                RELEASE = Native.upcall(lookup.findStatic(SstSource.class, "release", MethodType.methodType(void.class,
                        MemorySegment.class)), Native.RELEASE_FN, Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** The read_at upcall's target: never throws. */
    @SuppressWarnings({"unused", "restricted"}) // called through Stubs.READ_AT; reinterpret: read_at's len
    private static int readAt(MemorySegment ctx, long offset, MemorySegment dst, long len) {
        try {
            Readers.Call call = CALLS.get(ctx.address());
            if (call == null) {
                return READ_FAILED; // not expected: the library reads only before it releases
            }
            if (!call.inOpen()) {
                return readForQuery(call, offset, dst, len);
            }
            for (long done = 0; done < len; ) {
                long n = Math.min(Readers.MAX_CALL, len - done);
                // The buffer dies with this per-call arena: a reader that kept it cannot write
                // into the library's memory later. Shared, so a reader may fill it from another
                // thread while this one waits.
                try (Arena arena = Arena.ofShared()) {
                    ByteBuffer buf = MemorySegment.ofAddress(dst.address() + done).reinterpret(n, arena, null)
                            .asByteBuffer();
                    if (!call.fill(offset + done, buf)) {
                        return READ_FAILED;
                    }
                }
                done += n;
            }
            return 0;
        } catch (Throwable t) {
            return READ_FAILED;
        }
    }

    /**
     * A read of a kept reader in a query (a cache miss, on the querying thread): into a new heap
     * buffer that is then copied into {@code dst}, as the JNI backend reads. An arena over
     * {@code dst}, as the open's reads use, would have to be shared (a reader may fill the buffer
     * from another thread), and closing a shared arena is a handshake with every thread of the JVM:
     * measured at 15 to 20 us per read, several times a cached partition's read, and paid by every
     * querying thread at once. The copy of a filter block costs far less.
     */
    @SuppressWarnings("restricted") // reinterpret: read_at's len
    private static int readForQuery(Readers.Call call, long offset, MemorySegment dst, long len) {
        MemorySegment to = dst.reinterpret(len);
        for (long done = 0; done < len; ) {
            int n = (int) Math.min(Readers.MAX_CALL, len - done);
            byte[] bytes = call.read(offset + done, n);
            if (bytes == null) {
                return READ_FAILED;
            }
            MemorySegment.copy(bytes, 0, to, JAVA_BYTE, done, n);
            done += n;
        }
        return 0;
    }

    /** The release upcall's target: never throws. */
    @SuppressWarnings("unused") // called through Stubs.RELEASE
    private static void release(MemorySegment ctx) {
        try {
            Readers.Call call = CALLS.remove(ctx.address());
            if (call != null) {
                call.released();
            } else {
                Readers.Call.RELEASED_AGAIN.incrementAndGet(); // not expected: each ctx is released once
            }
        } catch (Throwable t) {
            // nothing may unwind into native code
        }
    }

    /**
     * {@code rocksfilter_sst_open_source} ({@code cache} and {@code ex} unused) or, with {@code ex},
     * {@code rocksfilter_sst_open_source_ex} with {@code flags} and {@code cache} ({@code null}: none)
     * reading through {@code reader}: the new native handle.
     */
    static MemorySegment open(RangeReader reader, long size, int flags, MemorySegment cache, boolean ex) {
        Objects.requireNonNull(reader, "reader");
        if (size < 0) {
            throw new IllegalArgumentException("size is " + size + ": a file's length cannot be negative");
        }
        Readers.Call call = new Readers.Call(reader);
        long id = NEXT.getAndIncrement();
        CALLS.put(id, call);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(Native.SST_SOURCE);
            STRUCT_SIZE.set(src, 0L, Native.SST_SOURCE.byteSize());
            SIZE.set(src, 0L, size);
            CTX.set(src, 0L, MemorySegment.ofAddress(id));
            READ_AT_FIELD.set(src, 0L, Stubs.READ_AT);
            RELEASE_FIELD.set(src, 0L, Stubs.RELEASE);
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st;
            if (ex) {
                MemorySegment opts = arena.allocate(Native.SST_OPTIONS);
                O_STRUCT_SIZE.set(opts, 0L, Native.SST_OPTIONS.byteSize());
                O_FLAGS.set(opts, 0L, flags);
                O_CACHE.set(opts, 0L, cache == null ? MemorySegment.NULL : cache);
                st = (int) Native.SST_OPEN_SOURCE_EX.invokeExact(src, opts, out, err);
            } else {
                st = (int) Native.SST_OPEN_SOURCE.invokeExact(src, flags, out, err);
            }
            call.opened();
            if (st == 0) {
                return out.get(ADDRESS, 0);
            }
            throw Readers.withCause(Native.exception(st, err.get(ADDRESS, 0)), call.failure);
        } catch (Throwable t) {
            // The library released the reader already (a failed open); unless the call never reached
            // it (a library lacking the symbol): then the reader is no longer needed either.
            CALLS.remove(id);
            throw Native.rethrow(t);
        }
    }
}
