package io.github.rocksfilter;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Library-wide functions: RocksDB's filter hashes and the native library's version.
 *
 * <p>This is the JNI backend's class (JDK 11 to 21, the jar's base); JDK 22+ loads the FFM one from
 * {@code META-INF/versions/22/}, which adds {@code MemorySegment} overloads. {@link #backend()} says
 * which is running.
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
        JniNative.load();
        return JniNative.hash64(key);
    }

    /** RocksDB's legacy Bloom hash ({@code BloomHash}), as an unsigned 32-bit value in an int. */
    public static int legacyHash32(byte[] key) {
        Objects.requireNonNull(key, "key");
        JniNative.load();
        return JniNative.legacyHash32(key);
    }

    /**
     * Loads the native library now (it is otherwise loaded on first use), so that an application
     * can fail fast at start-up.
     *
     * @throws UnsatisfiedLinkError if the library cannot be found or loaded; its message lists every
     *                              place looked at and what to do
     */
    public static void loadNativeLibrary() {
        JniNative.load();
    }

    /**
     * Which native library is in use and where it came from (see the FFM class's documentation).
     *
     * @throws UnsatisfiedLinkError as {@link #loadNativeLibrary()}
     */
    public static String nativeLibrary() {
        return JniNative.load();
    }

    /**
     * Which backend calls the native library: {@code "jni"} here (JDK 11 to 21, or a JDK 22+ that
     * does not read the jar's {@code META-INF/versions/22/}), {@code "ffm"} on JDK 22+.
     */
    public static String backend() {
        return "jni";
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
        JniNative.load();
        return JniNative.version();
    }

    /** The bytes from {@code key}'s position to its limit, copied (its position is unchanged). */
    static byte[] remaining(ByteBuffer key) {
        byte[] b = new byte[key.remaining()];
        key.duplicate().get(b);
        return b;
    }
}
