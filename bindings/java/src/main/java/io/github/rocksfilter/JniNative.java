package io.github.rocksfilter;

/**
 * The JNI entry points of the native library ({@code src/jni.rs} in the repository), which
 * {@link JniBackend} calls: the backend of JDKs without the Foreign Function &amp; Memory API (11 to
 * 21). Each method calls the same C ABI function the FFM backend ({@code FfmBackend}) calls, so
 * both give the same answers, statuses and messages; a failed call throws
 * {@link RocksFilterException}. Handles are the C ABI's pointers as {@code long}s; the callers keep
 * a handle live (open) during a call and free it once.
 *
 * <p>{@code JniBackendTest} checks this class against the FFM backend call by call, in one JVM.
 */
final class JniNative {
    private JniNative() {
    }

    /** Where the library came from (see {@link NativeLoader}), or {@code null} if it did not load. */
    private static final String SOURCE;
    /** Why the library did not load, or {@code null}. */
    private static final UnsatisfiedLinkError FAILURE;

    static {
        String source = null;
        UnsatisfiedLinkError failure = null;
        try {
            source = NativeLoader.load(new NativeLoader.Opener<Boolean>() {
                @Override
                public Boolean open(java.nio.file.Path file) {
                    System.load(file.toAbsolutePath().toString());
                    return Boolean.TRUE;
                }

                @Override
                public Boolean openSystem(String fileName) {
                    System.loadLibrary("rocksfilter");
                    return Boolean.TRUE;
                }
            }).source;
            // A library that loads but is not this one (or is older than these bindings) lacks the
            // entry points: say so now rather than at the first call.
            try {
                version();
            } catch (UnsatisfiedLinkError e) {
                UnsatisfiedLinkError lacking = new UnsatisfiedLinkError("rocksfilter: the native library loaded from "
                        + source + " lacks the JNI entry points of these bindings (Java_io_github_rocksfilter_JniNative_*,"
                        + " first missing: " + e.getMessage() + "): it is older than these bindings (0.1.0 with the JNI"
                        + " backend) or not librocksfilter. Use the library this jar bundles, or a build of the same"
                        + " rocksfilter release.");
                lacking.initCause(e);
                failure = lacking;
                source = null;
            }
        } catch (UnsatisfiedLinkError e) {
            failure = e;
        }
        SOURCE = source;
        FAILURE = failure;
    }

    /**
     * Where the library came from; throws a fresh {@link UnsatisfiedLinkError} (the full
     * explanation, its cause kept) on every call while it could not be loaded, as the FFM backend
     * does.
     */
    static String load() {
        if (FAILURE != null) {
            UnsatisfiedLinkError e = new UnsatisfiedLinkError(FAILURE.getMessage());
            e.initCause(FAILURE.getCause());
            throw e;
        }
        return SOURCE;
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
     * Key {@code i} is {@code buf[offsets[first + i] .. offsets[first + i + 1]]} for {@code i < n};
     * fills {@code results[0 .. n)} with one byte per key, 1 for "may match".
     */
    static native void filterMayMatchPacked(long filter, byte[] buf, long[] offsets, int first, int n,
            byte[] results);

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
    static native void sstMayMatchPacked(long sst, byte[] buf, long[] offsets, int first, int n, byte[] results);

    static native boolean sstPrefixMayMatch(long sst, byte[] prefix);

    static native int sstFilterType(long sst);

    /** The full filter as a new filter handle (free it with {@link #filterFree}), or 0 if none. */
    static native long sstFullFilter(long sst);

    /** The raw bytes of table property {@code name}, or {@code null} when absent. */
    static native byte[] sstProperty(long sst, String name);

    /** {reads, bytesRead, bytesHeld} of the open. */
    static native long[] sstOpenStats(long sst);

    static native void sstFree(long sst);

    // ---- builders with options, filter geometry, opens of arrays and readers ----
    static native long builderNewWithOptions(int policy, double bitsPerKey, double fpRate, long maxBytes,
            int ribbonFailureOneIn);

    static native void builderAddKeyAndAlt(long builder, byte[] key, byte[] alt);

    /** {kind, bytes, numProbes, numLines, lineBytes, numBlocks, seed, lowerNumColumns, upperStartBlock}. */
    static native long[] filterInfo(long filter);

    /** Opens the SST file held in {@code file}; the handle copies what it queries and keeps no reference. */
    static native long sstOpenBytes(byte[] file, int flags);

    /**
     * Opens an SST file of {@code size} bytes through {@code call} (a {@link Readers.Call}): the
     * native side calls {@link #readAt} for each range, during this call and on this thread.
     */
    static native long sstOpenReader(Object call, long size, int flags);

    /**
     * Called from native code during {@link #sstOpenReader} and {@link #sstOpenReaderEx} (and, for a
     * handle opened with a cache, during its queries): the range's bytes, or null on failure.
     */
    static byte[] readAt(Object call, long offset, int len) {
        return ((Readers.Call) call).read(offset, len);
    }

    /**
     * The library no longer needs {@code call} (a {@link Readers.Call}): called from native code,
     * once per {@link #sstOpenReaderEx}, before it returns when the handle keeps no reader, else when
     * the handle is freed.
     */
    static void released(Object call) {
        ((Readers.Call) call).released();
    }

    // ---- filter cache, opens with options ----
    /**
     * {@code rocksfilter_cache_new}, or {@code _new_with_open_files} when {@code maxOpenFiles >= 0};
     * {@code capacity} is not negative.
     */
    static native long cacheNew(long capacity, long maxOpenFiles);

    static native void cacheFree(long cache);

    static native long cacheBytesHeld(long cache);

    /** {capacity, bytesHeld, entries, hits, misses, reads, bytesRead, readErrors, badBlocks, evictions, uncached, openFiles}. */
    static native long[] cacheStats(long cache);

    /** {@code rocksfilter_sst_open_ex}: {@code flags} as {@link SstOptions#flags()}, {@code cache} 0 for none. */
    static native long sstOpenEx(String path, int flags, long cache);

    /**
     * {@code rocksfilter_sst_open_source_ex} through {@code call} (a {@link Readers.Call}, whose
     * {@link #readAt} the native side calls: during this call on this thread, and with a cache from
     * the threads that query the handle, until it is freed); {@link #released} once when done.
     */
    static native long sstOpenReaderEx(Object call, long size, int flags, long cache);

    // The queries of a handle that may read while it answers (opened with a cache, or mapped): the
    // arguments are copied out of the Java heap first, never read in a JNI critical region, in which
    // the native side could not call the reader back and a GC would wait for the read.

    static native boolean sstMayMatchCopy(long sst, byte[] key);

    /** As {@link #sstMayMatchPacked}; copies only the bytes the {@code n} keys span. */
    static native void sstMayMatchPackedCopy(long sst, byte[] buf, long[] offsets, int first, int n, byte[] results);

    static native boolean sstPrefixMayMatchCopy(long sst, byte[] prefix);

    /**
     * {formatVersion, checksumType, filterType, numPartitions, wholeKeyFiltering (0/1),
     * hasPrefixFilter (0/1), numEntries, numFilterEntries, filterSize, creationTime, fileCreationTime}.
     */
    static native long[] sstPropertyNumbers(long sst);

    /** {filterPolicy, comparator, prefixExtractor, filterBlockName}, null where absent. */
    static native String[] sstPropertyStrings(long sst);
}
