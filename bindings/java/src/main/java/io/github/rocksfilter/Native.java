package io.github.rocksfilter;

import java.io.File;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The native library and its downcall handles. Package-private: the public classes wrap it.
 *
 * <p>Short, non-blocking queries ({@code may_match}, {@code hash64}, {@code add_key}) use
 * {@link Linker.Option#critical(boolean) critical(true)} downcalls, which skip the Java-to-native
 * thread-state transition and accept heap segments (e.g. {@link MemorySegment#ofArray(byte[])})
 * directly, so a {@code byte[]} key costs no copy and no allocation.
 */
final class Native {
    private Native() {
    }

    /** System property naming the library file to load (checked first). */
    static final String LIBRARY_PATH_PROPERTY = "rocksfilter.library.path";

    static final SymbolLookup LIB = loadLibrary();
    private static final Linker LINKER = Linker.nativeLinker();

    /** size_t on the supported 64-bit platforms. */
    static final ValueLayout.OfLong SIZE_T = JAVA_LONG;
    static final AddressLayout C_STRING = ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE));

    static {
        if (Linker.nativeLinker().canonicalLayouts().get("size_t").byteSize() != 8) {
            throw new UnsatisfiedLinkError("rocksfilter Java bindings need a 64-bit platform (size_t of 8 bytes)");
        }
    }

    // ---- struct layouts ----

    /** rocksfilter_filter_info. */
    static final StructLayout FILTER_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("kind"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("bytes"),
            JAVA_INT.withName("num_probes"),
            JAVA_INT.withName("num_lines"),
            JAVA_INT.withName("line_bytes"),
            JAVA_INT.withName("num_blocks"),
            JAVA_INT.withName("seed"),
            JAVA_INT.withName("lower_num_columns"),
            JAVA_INT.withName("upper_start_block"),
            MemoryLayout.paddingLayout(4));

    /** rocksfilter_sst_properties. */
    static final StructLayout SST_PROPERTIES = MemoryLayout.structLayout(
            JAVA_INT.withName("format_version"),
            JAVA_INT.withName("checksum_type"),
            JAVA_INT.withName("filter_type"),
            JAVA_INT.withName("num_partitions"),
            JAVA_BOOLEAN.withName("whole_key_filtering"),
            JAVA_BOOLEAN.withName("has_prefix_filter"),
            MemoryLayout.paddingLayout(6),
            JAVA_LONG.withName("num_entries"),
            JAVA_LONG.withName("num_filter_entries"),
            JAVA_LONG.withName("filter_size"),
            JAVA_LONG.withName("creation_time"),
            JAVA_LONG.withName("file_creation_time"),
            ADDRESS.withName("filter_policy"),
            ADDRESS.withName("comparator"),
            ADDRESS.withName("prefix_extractor"),
            ADDRESS.withName("filter_block_name"));

    static {
        // Guard the hand-written layouts against the C ABI (sizes from the header's structs on LP64).
        if (FILTER_INFO.byteSize() != 48 || SST_PROPERTIES.byteSize() != 96) {
            throw new AssertionError("unexpected struct layout sizes");
        }
    }

    // ---- builder ----
    static final MethodHandle BUILDER_NEW = downcall("rocksfilter_builder_new",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_DOUBLE, ADDRESS, ADDRESS));
    static final MethodHandle BUILDER_ADD_KEY = critical("rocksfilter_builder_add_key",
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, SIZE_T));
    static final MethodHandle BUILDER_ADD_KEY_AND_ALT = critical("rocksfilter_builder_add_key_and_alt",
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, SIZE_T, ADDRESS, SIZE_T));
    static final MethodHandle BUILDER_ADD_HASH = critical("rocksfilter_builder_add_hash",
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG));
    static final MethodHandle BUILDER_NUM_ENTRIES = critical("rocksfilter_builder_num_entries",
            FunctionDescriptor.of(SIZE_T, ADDRESS));
    static final MethodHandle BUILDER_FINISH = downcall("rocksfilter_builder_finish",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle BUILDER_FREE = downcall("rocksfilter_builder_free",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle BYTES_FREE = downcall("rocksfilter_bytes_free",
            FunctionDescriptor.ofVoid(ADDRESS, SIZE_T));
    static final MethodHandle STRING_FREE = downcall("rocksfilter_string_free",
            FunctionDescriptor.ofVoid(ADDRESS));

    // ---- filter ----
    static final MethodHandle FILTER_LOAD = downcall("rocksfilter_filter_load",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_LOAD_BORROWED = downcall("rocksfilter_filter_load_borrowed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_MAY_MATCH = critical("rocksfilter_filter_may_match",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, ADDRESS, SIZE_T));
    /** Non-critical variant, kept for the benchmark's comparison only. */
    static final MethodHandle FILTER_MAY_MATCH_NONCRITICAL = downcall("rocksfilter_filter_may_match",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, ADDRESS, SIZE_T));
    static final MethodHandle FILTER_MAY_MATCH_HASH = critical("rocksfilter_filter_may_match_hash",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_LONG));
    static final MethodHandle FILTER_MAY_MATCH_BATCH = downcall("rocksfilter_filter_may_match_batch",
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, SIZE_T, ADDRESS));
    static final MethodHandle FILTER_MAY_MATCH_PACKED = critical("rocksfilter_filter_may_match_packed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_KIND = critical("rocksfilter_filter_kind",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle FILTER_INFO_FN = downcall("rocksfilter_filter_get_info",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_DATA = downcall("rocksfilter_filter_data",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_ESTIMATED_FP_RATE = downcall("rocksfilter_filter_estimated_fp_rate",
            FunctionDescriptor.of(JAVA_DOUBLE, ADDRESS, SIZE_T));
    static final MethodHandle FILTER_FREE = downcall("rocksfilter_filter_free",
            FunctionDescriptor.ofVoid(ADDRESS));

    // ---- hashing, version ----
    static final MethodHandle HASH64 = critical("rocksfilter_hash64",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, SIZE_T));
    static final MethodHandle HASH64_NONCRITICAL = downcall("rocksfilter_hash64",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, SIZE_T));
    static final MethodHandle LEGACY_HASH32 = critical("rocksfilter_legacy_hash32",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T));
    static final MethodHandle VERSION = downcall("rocksfilter_version",
            FunctionDescriptor.of(C_STRING));

    // ---- sst ----
    static final MethodHandle SST_OPEN_OPTS = downcall("rocksfilter_sst_open_opts",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SST_OPEN_MEMORY_OPTS = downcall("rocksfilter_sst_open_memory_opts",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SST_MAY_MATCH = critical("rocksfilter_sst_may_match",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, ADDRESS, SIZE_T));
    static final MethodHandle SST_PREFIX_MAY_MATCH = critical("rocksfilter_sst_prefix_may_match",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle SST_FULL_FILTER = downcall("rocksfilter_sst_full_filter",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SST_FILTER_TYPE = critical("rocksfilter_sst_filter_type",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle SST_GET_PROPERTIES = downcall("rocksfilter_sst_get_properties",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SST_PROPERTY = downcall("rocksfilter_sst_property",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SST_FREE = downcall("rocksfilter_sst_free",
            FunctionDescriptor.ofVoid(ADDRESS));

    static final int SST_SKIP_CHECKSUMS = 1;

    // ---- helpers ----

    private static MethodHandle downcall(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(symbol(name), fd);
    }

    private static MethodHandle critical(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(symbol(name), fd, Linker.Option.critical(true));
    }

    private static MemorySegment symbol(String name) {
        return LIB.find(name).orElseThrow(() -> new UnsatisfiedLinkError(
                "rocksfilter: symbol " + name + " not found in the loaded native library (library too old?)"));
    }

    /** Turns any throwable from invokeExact into an unchecked one (downcalls throw nothing checked). */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected exception from a native call", t);
    }

    /** Allocates a NULL-initialised {@code char *} slot for an errptr argument. */
    static MemorySegment errSlot(Arena arena) {
        MemorySegment slot = arena.allocate(ADDRESS);
        slot.set(ADDRESS, 0, MemorySegment.NULL);
        return slot;
    }

    /**
     * Throws a {@link RocksFilterException} for a non-OK status, reading and freeing the message in
     * {@code errSlot} (which may be {@code null} when no slot was passed).
     */
    static void check(int status, MemorySegment errSlot) {
        if (status == 0) {
            return;
        }
        throw exception(status, errSlot == null ? MemorySegment.NULL : errSlot.get(ADDRESS, 0));
    }

    /** Builds the exception for {@code status}, taking ownership of (and freeing) the message at {@code msg}. */
    static RocksFilterException exception(int status, MemorySegment msg) {
        String text = null;
        if (!MemorySegment.NULL.equals(msg)) {
            try {
                text = msg.reinterpret(Long.MAX_VALUE).getString(0);
            } finally {
                try {
                    STRING_FREE.invokeExact(msg);
                } catch (Throwable t) {
                    throw rethrow(t);
                }
            }
        }
        Status s = Status.fromCode(status);
        if (s == Status.INTERNAL && status != Status.INTERNAL.code()) {
            text = "unknown status code " + status + (text == null ? "" : ": " + text);
        }
        return new RocksFilterException(s, text);
    }

    /** Reads a NUL-terminated C string, or {@code null} for a NULL pointer. */
    static String string(MemorySegment p) {
        if (MemorySegment.NULL.equals(p)) {
            return null;
        }
        return p.reinterpret(Long.MAX_VALUE).getString(0);
    }

    // ---- library loading ----

    private static SymbolLookup loadLibrary() {
        Arena arena = Arena.global();
        List<String> tried = new ArrayList<>();
        String explicit = System.getProperty(LIBRARY_PATH_PROPERTY);
        if (explicit != null && !explicit.isBlank()) {
            Path p = Path.of(explicit).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                throw new UnsatisfiedLinkError("rocksfilter: -D" + LIBRARY_PATH_PROPERTY + "=" + explicit
                        + " does not name an existing file (resolved to " + p + ")");
            }
            try {
                return SymbolLookup.libraryLookup(p, arena);
            } catch (IllegalArgumentException e) {
                throw linkError("rocksfilter: could not load " + p + " (from -D" + LIBRARY_PATH_PROPERTY + "): "
                        + e.getMessage(), e);
            }
        }
        tried.add("-D" + LIBRARY_PATH_PROPERTY + " (not set)");
        String fileName = System.mapLibraryName("rocksfilter");
        String libPath = System.getProperty("java.library.path", "");
        for (String dir : libPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, fileName).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                tried.add(p + " (absent)");
                continue;
            }
            try {
                return SymbolLookup.libraryLookup(p, arena);
            } catch (IllegalArgumentException e) {
                tried.add(p + " (failed to load: " + e.getMessage() + ")");
            }
        }
        // Last resort: the dynamic linker's own search (LD_LIBRARY_PATH, ld.so.cache, system dirs).
        try {
            return SymbolLookup.libraryLookup(fileName, arena);
        } catch (IllegalArgumentException e) {
            tried.add(fileName + " via the system dynamic linker (LD_LIBRARY_PATH, system dirs): not found");
        }
        throw new UnsatisfiedLinkError("rocksfilter: native library " + fileName + " not found. Set -D"
                + LIBRARY_PATH_PROPERTY + "=/path/to/" + fileName + " or add its directory to java.library.path. Looked at:\n  "
                + String.join("\n  ", tried));
    }

    private static UnsatisfiedLinkError linkError(String msg, Throwable cause) {
        UnsatisfiedLinkError e = new UnsatisfiedLinkError(msg);
        e.initCause(cause);
        return e;
    }
}
