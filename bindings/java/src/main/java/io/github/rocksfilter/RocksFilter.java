package io.github.rocksfilter;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Library-wide functions: RocksDB's filter hashes and the native library's version. */
public final class RocksFilter {
    private RocksFilter() {
    }

    /** The version of the C header these bindings were written against. */
    public static final String BINDING_VERSION = "0.1.0";

    /**
     * RocksDB's filter hash ({@code Hash64}/{@code GetSliceHash64}: the XXH3 preview frozen in
     * RocksDB). The empty key hashes to {@code 0x5342c3010fe1dd04L}.
     */
    public static long hash64(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return (long) Native.HASH64.invokeExact(MemorySegment.ofArray(key), (long) key.length);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@link #hash64(byte[])} of all bytes of {@code key} (heap or native segment). */
    public static long hash64(MemorySegment key) {
        Objects.requireNonNull(key, "key");
        try {
            return (long) Native.HASH64.invokeExact(key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Non-critical downcall variant of hash64 (benchmark comparison only). */
    static long hash64NonCritical(MemorySegment nativeKey) {
        try {
            return (long) Native.HASH64_NONCRITICAL.invokeExact(nativeKey, nativeKey.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** RocksDB's legacy Bloom hash ({@code BloomHash}), as an unsigned 32-bit value in an int. */
    public static int legacyHash32(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return (int) Native.LEGACY_HASH32.invokeExact(MemorySegment.ofArray(key), (long) key.length);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Loads the native library now (it is otherwise loaded on first use), so that an application
     * can fail fast at start-up with a plain {@link UnsatisfiedLinkError} saying where it looked.
     * Without this call a missing library surfaces at first use as an
     * {@link ExceptionInInitializerError} (later {@link NoClassDefFoundError}) caused by it.
     *
     * @throws UnsatisfiedLinkError if the library cannot be found or lacks a needed symbol
     */
    public static void loadNativeLibrary() {
        try {
            version();
        } catch (LinkageError e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof UnsatisfiedLinkError u) {
                    throw u;
                }
            }
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            UnsatisfiedLinkError u = new UnsatisfiedLinkError(String.valueOf(root.getMessage()));
            u.initCause(e);
            throw u;
        }
    }

    /** The loaded native library's version ("MAJOR.MINOR.PATCH"). */
    public static String version() {
        try {
            MemorySegment s = (MemorySegment) Native.VERSION.invokeExact();
            return s.getString(0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
