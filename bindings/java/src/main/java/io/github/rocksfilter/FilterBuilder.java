package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Builds a RocksDB filter block byte for byte as RocksDB writes it ({@code rocksfilter_builder}).
 *
 * <pre>{@code
 * try (FilterBuilder b = new FilterBuilder(Policy.BLOOM, 10.0)) {
 *     b.add("key".getBytes(UTF_8));
 *     byte[] block = b.finish();
 * }
 * }</pre>
 *
 * <p><b>Threads:</b> a builder is not thread-safe: use it from one thread at a time (it may be
 * handed between threads with the usual happens-before, e.g. through an executor).
 * {@link #close()} is idempotent and safe to call from any thread, but must not race with another
 * method running on the same builder. A leaked builder is freed by a {@link Cleaner}.
 */
public final class FilterBuilder implements AutoCloseable {
    private final NativeRef ref;
    private final Cleaner.Cleanable cleanable;
    private final Policy policy;

    /**
     * Creates a builder.
     *
     * @param policy     which filter to write
     * @param bitsPerKey sanitised as RocksDB does: below 0.5 or NaN fails with
     *                   {@link Status#INVALID_ARGUMENT}; below 1 becomes 1; 100 and above becomes 100;
     *                   rounded to thousandths of a bit
     * @throws RocksFilterException with {@link Status#INVALID_ARGUMENT} for unusable bits per key
     */
    public FilterBuilder(Policy policy, double bitsPerKey) {
        this(Objects.requireNonNull(policy, "policy"), create(policy, bitsPerKey));
    }

    /**
     * Creates a builder sized by {@code options}: RocksDB's bits/key, or a target FP rate, or a byte
     * budget, and for Ribbon the chance that a seed fails to solve (see {@link BuilderOptions}). With
     * only a policy and bits/key it writes what {@link #FilterBuilder(Policy, double)} writes.
     *
     * @throws RocksFilterException with {@link Status#INVALID_ARGUMENT} for options the library
     *                              refuses (the message says which)
     */
    public FilterBuilder(BuilderOptions options) {
        this(Objects.requireNonNull(options, "options").policy(), create(options));
    }

    private FilterBuilder(Policy policy, MemorySegment handle) {
        this.policy = policy;
        this.ref = new NativeRef(handle, Native.BUILDER_FREE, "FilterBuilder");
        this.cleanable = NativeRef.CLEANER.register(this, ref);
    }

    private static MemorySegment create(Policy policy, double bitsPerKey) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.BUILDER_NEW.invokeExact(policy.code(), bitsPerKey, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static MemorySegment create(BuilderOptions o) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(Native.BUILDER_OPTIONS); // zeroed
            OPT_STRUCT_SIZE.set(s, 0L, (int) Native.BUILDER_OPTIONS.byteSize());
            OPT_POLICY.set(s, 0L, o.policy().code());
            OPT_BITS_PER_KEY.set(s, 0L, o.bitsPerKey());
            OPT_FP_RATE.set(s, 0L, o.fpRate());
            OPT_MAX_BYTES.set(s, 0L, o.maxBytes());
            OPT_RIBBON_FAILURE.set(s, 0L, o.ribbonFailureOneIn());
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.BUILDER_NEW_WITH_OPTIONS.invokeExact(s, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static final VarHandle OPT_STRUCT_SIZE = Native.member(Native.BUILDER_OPTIONS, "struct_size");
    private static final VarHandle OPT_POLICY = Native.member(Native.BUILDER_OPTIONS, "policy");
    private static final VarHandle OPT_BITS_PER_KEY = Native.member(Native.BUILDER_OPTIONS, "bits_per_key");
    private static final VarHandle OPT_FP_RATE = Native.member(Native.BUILDER_OPTIONS, "fp_rate");
    private static final VarHandle OPT_MAX_BYTES = Native.member(Native.BUILDER_OPTIONS, "max_bytes");
    private static final VarHandle OPT_RIBBON_FAILURE = Native.member(Native.BUILDER_OPTIONS, "ribbon_failure_one_in");

    /** The policy this builder writes. */
    public Policy policy() {
        return policy;
    }

    /**
     * Adds a key. The bytes are hashed at once and not retained. An adjacent duplicate collapses
     * into one entry, as in RocksDB.
     */
    public FilterBuilder add(byte[] key) {
        Objects.requireNonNull(key, "key");
        return addSegment(MemorySegment.ofArray(key));
    }

    /** Adds the key between the buffer's position and limit (the position is not moved). */
    public FilterBuilder add(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        return addSegment(MemorySegment.ofBuffer(key));
    }

    /**
     * Adds the key held in {@code key} (all of its {@link MemorySegment#byteSize()} bytes). Heap or
     * native segments are accepted; a native segment's arena must be accessible from this thread.
     */
    public FilterBuilder add(MemorySegment key) {
        Objects.requireNonNull(key, "key");
        return addSegment(key);
    }

    private FilterBuilder addSegment(MemorySegment key) {
        MemorySegment b = ref.get();
        try {
            Native.BUILDER_ADD_KEY.invokeExact(b, key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /**
     * Adds a key and an alternate form of it (typically its prefix) with RocksDB's
     * {@code AddKeyAndAlt} de-duplication.
     */
    public FilterBuilder addKeyAndAlt(byte[] key, byte[] alt) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(alt, "alt");
        MemorySegment b = ref.get();
        try {
            Native.BUILDER_ADD_KEY_AND_ALT.invokeExact(b, MemorySegment.ofArray(key), (long) key.length,
                    MemorySegment.ofArray(alt), (long) alt.length);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /**
     * Adds a key by its {@link RocksFilter#hash64(byte[])}, exactly as {@link #add(byte[])} would.
     * Not possible for {@link Policy#LEGACY_BLOOM} (a different hash): there the next
     * {@link #finish()} fails with {@link Status#INVALID_ARGUMENT}.
     */
    public FilterBuilder addHash(long hash) {
        MemorySegment b = ref.get();
        try {
            Native.BUILDER_ADD_HASH.invokeExact(b, hash);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /** Entries added since the last finish, after collapsing adjacent duplicates. */
    public long numEntries() {
        MemorySegment b = ref.get();
        try {
            return (long) Native.BUILDER_NUM_ENTRIES.invokeExact(b);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Writes the filter block for the added keys and empties the builder so it can be reused.
     *
     * @return the block; empty (length 0) when no key was added: RocksDB's always-false filter
     * @throws RocksFilterException e.g. {@link Status#INVALID_ARGUMENT} after {@link #addHash(long)}
     *                              on a legacy Bloom builder (the builder is emptied too)
     */
    public byte[] finish() {
        MemorySegment b = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment outData = arena.allocate(ADDRESS);
            MemorySegment outLen = arena.allocate(JAVA_LONG);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.BUILDER_FINISH.invokeExact(b, outData, outLen, err);
            Native.check(st, err);
            long len = outLen.get(JAVA_LONG, 0);
            MemorySegment data = outData.get(ADDRESS, 0);
            if (len == 0 || MemorySegment.NULL.equals(data)) {
                Native.BYTES_FREE.invokeExact(data, len);
                return new byte[0];
            }
            try {
                return data.reinterpret(len).toArray(JAVA_BYTE);
            } finally {
                Native.BYTES_FREE.invokeExact(data, len);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Frees the native builder. Idempotent; safe from any thread. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
