package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public final class RocksFilter {
    public static final String BINDING_VERSION = "0.1.0";

    private RocksFilter() {
    }

    public static long hash64(byte[] key) {
        throw JdkCheck.unsupported();
    }

    public static int legacyHash32(byte[] key) {
        throw JdkCheck.unsupported();
    }

    public static void loadNativeLibrary() {
        throw JdkCheck.unsupported();
    }

    public static String nativeLibrary() {
        throw JdkCheck.unsupported();
    }

    public static String version() {
        throw JdkCheck.unsupported();
    }

    /** {@code java -jar rocksfilter.jar} on an old JDK: prints why it cannot run and exits with status 1. */
    public static void main(String[] args) {
        System.err.println(JdkCheck.message());
        System.exit(1);
    }
}
