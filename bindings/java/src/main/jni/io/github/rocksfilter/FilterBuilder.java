package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

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
 * <p><b>Threads:</b> a builder is not thread-safe: use it from one thread at a time. {@link #close()}
 * is idempotent and safe to call from any thread, but must not race with another method running on
 * the same builder. A leaked builder is freed by a {@link Cleaner}.
 *
 * <p>This is the JNI backend's class (JDK 11 to 21); JDK 22+ loads the FFM one, which adds
 * {@code add(MemorySegment)}.
 */
public final class FilterBuilder implements AutoCloseable {
    private final JniRef ref;
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

    /** A builder with every option of {@link BuilderOptions}. */
    public FilterBuilder(BuilderOptions options) {
        this(Objects.requireNonNull(options, "options").policy(), create(options));
    }

    private FilterBuilder(Policy policy, long handle) {
        this.policy = policy;
        this.ref = new JniRef(handle, JniNative::builderFree, "FilterBuilder");
        this.cleanable = JniRef.CLEANER.register(this, ref);
    }

    private static long create(Policy policy, double bitsPerKey) {
        JniNative.load();
        return JniNative.builderNew(policy.code(), bitsPerKey);
    }

    private static long create(BuilderOptions o) {
        JniNative.load();
        return JniNative.builderNewWithOptions(o.policy().code(), o.bitsPerKey(), o.fpRate(), o.maxBytes(),
                o.ribbonFailureOneIn());
    }

    /** The policy this builder writes. */
    public Policy policy() {
        return policy;
    }

    /** Adds a key (duplicates in a row are added once, as RocksDB does). */
    public FilterBuilder add(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            JniNative.builderAddKey(ref.get(), key);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /** Adds the bytes from {@code key}'s position to its limit (copied; its position is unchanged). */
    public FilterBuilder add(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        return add(RocksFilter.remaining(key));
    }

    /**
     * Adds a key and its alternative (a prefix), as RocksDB's {@code AddKeyAndAlt}: the
     * de-duplication of each follows RocksDB's.
     */
    public FilterBuilder addKeyAndAlt(byte[] key, byte[] alt) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(alt, "alt");
        try {
            JniNative.builderAddKeyAndAlt(ref.get(), key, alt);
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
            JniNative.builderAddHash(ref.get(), hash);
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /** Entries added since the last {@link #finish()}. */
    public long numEntries() {
        try {
            return JniNative.builderNumEntries(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The filter block (empty when no key was added); the builder is empty afterwards and may be
     * reused.
     */
    public byte[] finish() {
        try {
            return JniNative.builderFinish(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Frees the native builder. Idempotent. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
