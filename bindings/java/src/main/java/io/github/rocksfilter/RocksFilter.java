package io.github.rocksfilter;

import java.util.Objects;

/**
 * Library-wide functions: RocksDB's filter hashes and the native library's version.
 *
 * <p>On JDK 22+ the FFM-only {@code Segments} class adds {@code Segments.hash64(MemorySegment)}.
 */
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
        return Backends.BACKEND.hash64(key);
    }

    /** RocksDB's legacy Bloom hash ({@code BloomHash}), as an unsigned 32-bit value in an int. */
    public static int legacyHash32(byte[] key) {
        Objects.requireNonNull(key, "key");
        return Backends.BACKEND.legacyHash32(key);
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
        Backends.BACKEND.load();
    }

    /**
     * Which native library is in use and where it came from, e.g.
     * {@code "bundled linux-x86_64 copy (jar:file:/.../rocksfilter.jar!/native/linux-x86_64/librocksfilter.so, extracted to /tmp/librocksfilter-123.so)"}
     * or {@code "-Drocksfilter.library.path=/opt/lib (/opt/lib/librocksfilter.so)"}.
     *
     * @throws UnsatisfiedLinkError as {@link #loadNativeLibrary()}
     */
    public static String nativeLibrary() {
        return Backends.BACKEND.load();
    }

    /**
     * Which backend calls the native library: {@code "ffm"} (the Foreign Function &amp; Memory API)
     * on JDK 22+, {@code "jni"} on JDK 11 to 21 and on a JDK 22+ started with
     * {@code -Djdk.util.jar.enableMultiRelease=false} (which reads only the jar's base classes, not
     * the FFM ones in its {@code META-INF/versions/22/}).
     */
    public static String backend() {
        return Backends.BACKEND.name();
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
        return Backends.BACKEND.version();
    }
}
