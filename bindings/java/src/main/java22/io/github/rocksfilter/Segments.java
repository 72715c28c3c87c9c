package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * The calls on {@link MemorySegment}s, JDK 22+ only (the FFM backend): keys, filter blocks and SST
 * files in native memory (or heap segments), read in place without a copy. Everything else is in
 * {@link Filter}, {@link FilterBuilder}, {@link Sst} and {@link RocksFilter}, which every JDK from 11
 * runs; this class exists only in the jar's {@code META-INF/versions/22/}, as
 * {@code java.lang.foreign} does not exist before JDK 22.
 *
 * <pre>{@code
 * try (Arena arena = Arena.ofConfined()) {
 *     MemorySegment key = arena.allocateFrom(ValueLayout.JAVA_BYTE, "apple".getBytes(UTF_8));
 *     boolean maybe = Segments.mayMatch(filter, key);
 * }
 * }</pre>
 *
 * <p>Every method throws {@link IllegalStateException} if the JVM runs the JNI backend, which it
 * does only with this class on the class path outside the jar.
 */
public final class Segments {
    private Segments() {
    }

    private static FfmBackend ffm() {
        if (Backends.BACKEND instanceof FfmBackend ffm) {
            return ffm;
        }
        throw new IllegalStateException("rocksfilter: the MemorySegment calls need the FFM backend; this JVM runs the "
                + Backends.BACKEND.name() + " one");
    }

    /**
     * Loads a filter block <em>without copying it</em>. The native filter reads {@code block}
     * directly, so the caller must keep the segment's memory alive and unmodified until the filter
     * is closed: do not close its arena before closing the filter. (The filter keeps a reference to
     * the segment, so memory of an {@link Arena#ofAuto() automatic} arena stays alive as long as the
     * filter is reachable.) A confined arena's segment may be used, but its memory must still outlive
     * the filter.
     *
     * @param block a native segment holding exactly the block
     * @throws IllegalArgumentException if {@code block} is a heap segment (heap memory can move)
     * @throws IllegalStateException    if the segment's arena is closed
     * @throws RocksFilterException     as {@link Filter#load(byte[])}
     */
    public static Filter loadBorrowed(MemorySegment block) {
        Objects.requireNonNull(block, "block");
        if (!block.isNative()) {
            throw new IllegalArgumentException("loadBorrowed needs a native segment; use Filter.load(byte[]) for heap data");
        }
        if (!block.scope().isAlive()) {
            throw new IllegalStateException("the segment's arena is already closed");
        }
        return new Filter(ffm().filterLoadBorrowed(block), block);
    }

    /** {@link Filter#mayMatch(byte[])} of the key held in {@code key} (all its bytes; heap or native). */
    public static boolean mayMatch(Filter filter, MemorySegment key) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(key, "key");
        try {
            return ffm().filterMayMatch(filter.handle(), key);
        } finally {
            Reference.reachabilityFence(filter);
        }
    }

    /**
     * {@link FilterBuilder#add(byte[])} of the key held in {@code key} (all of its
     * {@link MemorySegment#byteSize()} bytes). Heap or native segments are accepted; a native
     * segment's arena must be accessible from this thread.
     *
     * @return {@code builder}
     */
    public static FilterBuilder add(FilterBuilder builder, MemorySegment key) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(key, "key");
        try {
            ffm().builderAdd(builder.handle(), key);
        } finally {
            Reference.reachabilityFence(builder);
        }
        return builder;
    }

    /**
     * Reads an SST file held in native memory <em>without copying</em> it. The segment's memory must
     * stay alive and unmodified until the handle and every {@link Sst#fullFilter()} obtained from it
     * are closed (both keep a reference to the segment, which keeps an
     * {@link Arena#ofAuto() automatic} arena's memory alive).
     *
     * @throws IllegalArgumentException if {@code file} is a heap segment (use {@link Sst#openBytes})
     * @throws RocksFilterException     as {@link Sst#open(java.nio.file.Path)}
     */
    public static Sst openMemory(MemorySegment file) {
        return openMemory(file, true);
    }

    /** As {@link #openMemory(MemorySegment)}; {@code verifyChecksums=false} skips block checksums. */
    public static Sst openMemory(MemorySegment file, boolean verifyChecksums) {
        Objects.requireNonNull(file, "file");
        if (!file.isNative()) {
            throw new IllegalArgumentException("openMemory needs a native segment; use Sst.openBytes(byte[]) for heap data");
        }
        return new Sst(ffm().sstOpenMemory(file, Sst.flags(verifyChecksums)), file, false);
    }

    /** {@link Sst#mayMatch(byte[])} of the key held in {@code key} (all its bytes; heap or native). */
    public static boolean mayMatch(Sst sst, MemorySegment key) {
        Objects.requireNonNull(sst, "sst");
        Objects.requireNonNull(key, "key");
        try {
            return ffm().sstMayMatch(sst.handle(), key, sst.reads());
        } finally {
            Reference.reachabilityFence(sst);
        }
    }

    /** {@link RocksFilter#hash64(byte[])} of all bytes of {@code key} (heap or native). */
    public static long hash64(MemorySegment key) {
        Objects.requireNonNull(key, "key");
        return ffm().hash64(key);
    }
}
