package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.LongConsumer;

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
 * <p>On JDK 22+, {@code Segments.add(FilterBuilder, MemorySegment)} adds a key held in a segment.
 *
 * <p><b>Threads:</b> a builder is not thread-safe: use it from one thread at a time (it may be
 * handed between threads with the usual happens-before, e.g. through an executor).
 * {@link #close()} is idempotent and safe to call from any thread, but must not race with another
 * method running on the same builder. A leaked builder is freed by a {@link Cleaner}.
 */
public final class FilterBuilder implements AutoCloseable {
    private static final LongConsumer FREE = Backends.BACKEND::builderFree;

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
        this(Objects.requireNonNull(policy, "policy"), Backends.BACKEND.builderNew(policy.code(), bitsPerKey));
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
        this(Objects.requireNonNull(options, "options").policy(), Backends.BACKEND.builderNew(options));
    }

    private FilterBuilder(Policy policy, long handle) {
        this.policy = policy;
        this.ref = new NativeRef(handle, FREE, "FilterBuilder");
        this.cleanable = NativeRef.CLEANER.register(this, ref);
    }

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
        try {
            Backends.BACKEND.builderAdd(ref.get(), key);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /**
     * Adds the key between the buffer's position and limit (the position is not moved). (The FFM
     * backend reads the buffer in place; the JNI backend copies the key.)
     */
    public FilterBuilder add(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        try {
            Backends.BACKEND.builderAdd(ref.get(), key);
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
        try {
            Backends.BACKEND.builderAddKeyAndAlt(ref.get(), key, alt);
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
        try {
            Backends.BACKEND.builderAddHash(ref.get(), hash);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /** Entries added since the last finish, after collapsing adjacent duplicates. */
    public long numEntries() {
        try {
            return Backends.BACKEND.builderNumEntries(ref.get());
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
        try {
            return Backends.BACKEND.builderFinish(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The live native handle ({@link IllegalStateException} once closed), for {@code Segments}. The
     * caller keeps this builder reachable while it uses the handle.
     */
    long handle() {
        return ref.get();
    }

    /** Frees the native builder. Idempotent; safe from any thread. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
