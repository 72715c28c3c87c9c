package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native memory for the arguments of one normal downcall (the queries of an {@link Sst} that may
 * read while it answers, which cannot take heap segments): the calling thread's scratch segment,
 * reused from call to call, or a confined arena of its own when the scratch is in use (a
 * {@link RangeReader} called back inside a query may query another handle on the same thread) or
 * when more than {@link #MAX_KEPT} bytes are asked. Close it after the call.
 */
final class NativeScratch implements AutoCloseable {
    /** Scratch segments up to this size are kept for the thread's next call. */
    static final long MAX_KEPT = 1 << 20;

    /** The thread's scratch: its segment (an automatic arena's, freed once the thread is gone) and whether it is lent. */
    private static final class Slot {
        MemorySegment segment = MemorySegment.NULL;
        boolean lent;
    }

    private static final ThreadLocal<Slot> SLOT = ThreadLocal.withInitial(Slot::new);

    /** At least the bytes asked, 8-byte aligned. */
    final MemorySegment memory;
    private final Slot slot;
    private final Arena arena;

    private NativeScratch(MemorySegment memory, Slot slot, Arena arena) {
        this.memory = memory;
        this.slot = slot;
        this.arena = arena;
    }

    /** Native memory of at least {@code bytes} bytes (8-byte aligned, not zeroed) until {@link #close()}. */
    static NativeScratch of(long bytes) {
        Slot slot = SLOT.get();
        if (slot.lent || bytes > MAX_KEPT) {
            Arena arena = Arena.ofConfined();
            return new NativeScratch(arena.allocate(Math.max(8, bytes), 8), null, arena);
        }
        if (slot.segment.byteSize() < bytes) {
            slot.segment = Arena.ofAuto().allocate(Math.min(MAX_KEPT, Math.max(256, Math.max(bytes, slot.segment.byteSize() * 2))), 8);
        }
        slot.lent = true;
        return new NativeScratch(slot.segment, slot, null);
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        } else {
            slot.lent = false;
        }
    }
}
