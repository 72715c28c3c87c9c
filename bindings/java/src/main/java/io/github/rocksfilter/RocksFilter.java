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
     * can fail fast at start-up. Without this call a missing library surfaces at the first use of
     * the bindings as the same {@link UnsatisfiedLinkError} (thrown again by every later use).
     *
     * @throws UnsatisfiedLinkError if the library cannot be found or lacks a needed symbol; its
     *                              message lists every place looked at and what to do
     */
    public static void loadNativeLibrary() {
        Native.ensureLoaded();
    }

    /**
     * Which native library is in use and where it came from, e.g.
     * {@code "bundled linux-x86_64 copy (jar:file:/.../rocksfilter.jar!/native/linux-x86_64/librocksfilter.so, extracted to /tmp/librocksfilter-123.so)"}
     * or {@code "-Drocksfilter.library.path=/opt/lib (/opt/lib/librocksfilter.so)"}.
     *
     * @throws UnsatisfiedLinkError as {@link #loadNativeLibrary()}
     */
    public static String nativeLibrary() {
        return Native.source();
    }

    /**
     * Which backend calls the native library: {@code "ffm"} here (JDK 22+, the Foreign Function &amp;
     * Memory API), {@code "jni"} on JDK 11 to 21 (the jar's base classes, which a JDK 22+ also runs
     * when started with {@code -Djdk.util.jar.enableMultiRelease=false}).
     */
    public static String backend() {
        return "ffm";
    }

    /**
     * Prints the bindings' and the native library's versions and where the library came from
     * ({@code java -jar rocksfilter.jar}); exits with status 1 and the reason if it cannot be loaded.
     */
    public static void main(String[] args) {
        try {
            System.out.println("rocksfilter " + BINDING_VERSION + " (Java bindings), native library " + version()
                    + " from " + nativeLibrary());
        } catch (UnsatisfiedLinkError e) {
            System.err.println(e.getMessage());
            System.exit(1);
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
