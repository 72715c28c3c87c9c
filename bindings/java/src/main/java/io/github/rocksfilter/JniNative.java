package io.github.rocksfilter;

import java.io.File;

/**
 * The JNI entry points of the native library ({@code src/jni.rs} in the repository): the second
 * backend, for JDKs without the Foreign Function &amp; Memory API (11 to 21). Each method calls the
 * same C ABI function the FFM backend ({@link Native}) calls, so both give the same answers,
 * statuses and messages; a failed call throws {@link RocksFilterException}. Handles are the C ABI's
 * pointers as {@code long}s; the callers keep a handle live (open) during a call and free it once.
 *
 * <p>Package-private and written in Java 11 (no FFM type): the public classes do not use it yet
 * (issue 26, part 1: {@code JniBackendTest} checks it against the FFM backend on JDK 22+).
 */
final class JniNative {
    private JniNative() {
    }

    /** The library file loaded, after {@link #load()}. */
    private static volatile String loaded;

    /**
     * Loads the library with {@link System#load} from {@code -Drocksfilter.library.path} (the file or
     * its directory), else {@link System#loadLibrary}{@code ("rocksfilter")} from
     * {@code java.library.path}. Idempotent.
     */
    static synchronized String load() {
        if (loaded != null) {
            return loaded;
        }
        String prop = System.getProperty("rocksfilter.library.path");
        if (prop != null && !prop.isEmpty()) {
            File f = new File(prop);
            if (f.isDirectory()) {
                f = new File(f, System.mapLibraryName("rocksfilter"));
            }
            System.load(f.getAbsolutePath());
            loaded = f.getAbsolutePath();
        } else {
            System.loadLibrary("rocksfilter");
            loaded = "java.library.path";
        }
        return loaded;
    }

    /** Called from native code: the exception for a failed call, as the FFM backend builds it. */
    static RocksFilterException exception(int status, String message) {
        return RocksFilterException.of(status, message);
    }

    // ---- hashing, version ----
    static native String version();

    static native long hash64(byte[] key);

    static native int legacyHash32(byte[] key);

    // ---- builder ----
    static native long builderNew(int policy, double bitsPerKey);

    static native void builderAddKey(long builder, byte[] key);

    static native void builderAddHash(long builder, long hash);

    static native long builderNumEntries(long builder);

    /** The block (empty when no key was added); the builder is empty afterwards. */
    static native byte[] builderFinish(long builder);

    static native void builderFree(long builder);

    // ---- filter ----
    /** Loads a copy of {@code block}. */
    static native long filterLoad(byte[] block);

    static native boolean filterMayMatch(long filter, byte[] key);

    static native boolean filterMayMatchHash(long filter, long hash);

    /**
     * Key {@code i} is {@code buf[offsets[i] .. offsets[i + 1]]} for {@code i < n}; the result holds
     * one byte per key, 1 for "may match".
     */
    static native byte[] filterMayMatchPacked(long filter, byte[] buf, long[] offsets, int n);

    static native int filterKind(long filter);

    static native double filterEstimatedFpRate(long filter, long keys);

    /** A copy of the filter's block bytes. */
    static native byte[] filterBytes(long filter);

    static native void filterFree(long filter);

    // ---- sst ----
    /** {@code flags}: {@code rocksfilter_sst_open_opts}'s (1 = skip checksums). */
    static native long sstOpen(String path, int flags);

    static native boolean sstMayMatch(long sst, byte[] key);

    /** As {@link #filterMayMatchPacked}, over an SST file's filter. */
    static native byte[] sstMayMatchPacked(long sst, byte[] buf, long[] offsets, int n);

    static native boolean sstPrefixMayMatch(long sst, byte[] prefix);

    static native int sstFilterType(long sst);

    /** The full filter as a new filter handle (free it with {@link #filterFree}), or 0 if none. */
    static native long sstFullFilter(long sst);

    /** The raw bytes of table property {@code name}, or {@code null} when absent. */
    static native byte[] sstProperty(long sst, String name);

    /** {reads, bytesRead, bytesHeld} of the open. */
    static native long[] sstOpenStats(long sst);

    static native void sstFree(long sst);
}
