package io.github.rocksfilter;

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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The native library and its downcall handles, for the FFM backend ({@link FfmBackend}, which the
 * public classes call through {@link Backend}).
 *
 * <p>Short, non-blocking queries ({@code may_match}, {@code hash64}, {@code add_key}) use
 * {@link Linker.Option#critical(boolean) critical(true)} downcalls, which skip the Java-to-native
 * thread-state transition and accept heap segments (e.g. {@link MemorySegment#ofArray(byte[])})
 * directly, so a {@code byte[]} key costs no copy and no allocation.
 */
@SuppressWarnings("restricted") // binding the library and reading its strings is what this class is for
final class Native {
    private Native() {
    }

    /** System property naming the library file (or its directory) to load (checked first). */
    static final String LIBRARY_PATH_PROPERTY = NativeLoader.LIBRARY_PATH_PROPERTY;

    private static final Linker LINKER = Linker.nativeLinker();

    /**
     * Why the bindings cannot be used, or {@code null}. Written only during this class's
     * initialisation (which happens-before any use of it), never afterwards.
     */
    private static UnsatisfiedLinkError failure;
    /** Where the library came from (see {@link NativeLoader}), or {@code null} if it did not load. */
    private static final String SOURCE;
    /** The loaded library, or {@code null} if it did not load (then every handle throws {@link #failure}). */
    private static final SymbolLookup LIB;
    /** Symbols the loaded library lacks (each handle for one throws {@link #failure}). */
    private static final List<String> MISSING = new ArrayList<>();
    private static final MethodHandle FAIL;

    static {
        try {
            FAIL = MethodHandles.lookup().findStatic(Native.class, "fail", MethodType.methodType(Object.class));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
        // Loading never fails this class's initialisation: a failure would surface as an
        // ExceptionInInitializerError and then as a bare NoClassDefFoundError. Instead each
        // downcall handle throws a fresh UnsatisfiedLinkError carrying the full explanation.
        SymbolLookup lib = null;
        String source = null;
        if (LINKER.canonicalLayouts().get("size_t").byteSize() != 8) {
            failure = new UnsatisfiedLinkError("rocksfilter Java bindings need a 64-bit platform (size_t of 8 bytes)");
        } else {
            try {
                NativeLoader.Loaded<SymbolLookup> loaded = NativeLoader.load(new NativeLoader.Opener<SymbolLookup>() {
                    @Override
                    public SymbolLookup open(java.nio.file.Path file) {
                        return SymbolLookup.libraryLookup(file, Arena.global());
                    }

                    @Override
                    public SymbolLookup openSystem(String fileName) {
                        return SymbolLookup.libraryLookup(fileName, Arena.global());
                    }
                });
                lib = loaded.library;
                source = loaded.source;
            } catch (UnsatisfiedLinkError e) {
                failure = e;
            }
        }
        LIB = lib;
        SOURCE = source;
    }

    /** size_t on the supported 64-bit platforms. */
    static final ValueLayout.OfLong SIZE_T = JAVA_LONG;
    static final AddressLayout C_STRING = ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE));

    // ---- struct layouts ----
    //
    // Each C struct the bindings read, field by field with the C names and explicit padding (LP64).
    // StructLayoutTest compiles bindings/layout/struct_layout.c against include/rocksfilter.h and
    // checks every size and offset here against the C compiler's.

    /**
     * rocksfilter_filter_info_ex (rocksfilter_filter_get_info_ex): the extensible form; the caller
     * sets {@code struct_size} to the bytes it provides and the library fills at most that many.
     */
    static final StructLayout FILTER_INFO_EX = MemoryLayout.structLayout(
            JAVA_INT.withName("struct_size"),
            JAVA_INT.withName("kind"),
            JAVA_LONG.withName("bytes"),
            JAVA_INT.withName("num_probes"),
            JAVA_INT.withName("num_lines"),
            JAVA_INT.withName("line_bytes"),
            JAVA_INT.withName("num_blocks"),
            JAVA_INT.withName("seed"),
            JAVA_INT.withName("lower_num_columns"),
            JAVA_INT.withName("upper_start_block"),
            JAVA_INT.withName("reserved")).withName("rocksfilter_filter_info_ex");

    /**
     * rocksfilter_builder_options (rocksfilter_builder_new_with_options): the caller sets
     * {@code struct_size} to the bytes it provides; zero fields after {@code policy} are "not set".
     */
    static final StructLayout BUILDER_OPTIONS = MemoryLayout.structLayout(
            JAVA_INT.withName("struct_size"),
            JAVA_INT.withName("policy"),
            JAVA_DOUBLE.withName("bits_per_key"),
            JAVA_DOUBLE.withName("fp_rate"),
            JAVA_LONG.withName("max_bytes"),
            JAVA_INT.withName("ribbon_failure_one_in"),
            JAVA_INT.withName("reserved")).withName("rocksfilter_builder_options");

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
            ADDRESS.withName("filter_block_name")).withName("rocksfilter_sst_properties");

    /**
     * rocksfilter_source (rocksfilter_sst_open_source, rocksfilter_sst_open_source_ex):
     * {@code struct_size} is this layout's size; {@code read_at} and {@code release} are upcall
     * stubs ({@link SstSource}).
     */
    static final StructLayout SST_SOURCE = MemoryLayout.structLayout(
            SIZE_T.withName("struct_size"),
            JAVA_LONG.withName("size"),
            ADDRESS.withName("ctx"),
            ADDRESS.withName("read_at"),
            ADDRESS.withName("release")).withName("rocksfilter_source");

    /**
     * rocksfilter_sst_open_stats (rocksfilter_sst_get_open_stats): the caller sets
     * {@code struct_size} to the bytes it provides; the library fills at most that many.
     */
    static final StructLayout SST_OPEN_STATS = MemoryLayout.structLayout(
            JAVA_INT.withName("struct_size"),
            JAVA_INT.withName("reserved"),
            JAVA_LONG.withName("reads"),
            JAVA_LONG.withName("bytes_read"),
            JAVA_LONG.withName("bytes_held")).withName("rocksfilter_sst_open_stats");

    /**
     * rocksfilter_cache_stats (rocksfilter_cache_get_stats): the caller sets {@code struct_size} to
     * the bytes it provides; the library fills at most that many.
     */
    static final StructLayout CACHE_STATS = MemoryLayout.structLayout(
            JAVA_INT.withName("struct_size"),
            JAVA_INT.withName("reserved"),
            JAVA_LONG.withName("capacity"),
            JAVA_LONG.withName("bytes_held"),
            JAVA_LONG.withName("entries"),
            JAVA_LONG.withName("hits"),
            JAVA_LONG.withName("misses"),
            JAVA_LONG.withName("reads"),
            JAVA_LONG.withName("bytes_read"),
            JAVA_LONG.withName("read_errors"),
            JAVA_LONG.withName("bad_blocks"),
            JAVA_LONG.withName("evictions"),
            JAVA_LONG.withName("uncached"),
            JAVA_LONG.withName("open_files")).withName("rocksfilter_cache_stats");

    /**
     * rocksfilter_sst_options (rocksfilter_sst_open_ex, rocksfilter_sst_open_source_ex):
     * {@code struct_size} is this layout's size.
     */
    static final StructLayout SST_OPTIONS = MemoryLayout.structLayout(
            SIZE_T.withName("struct_size"),
            JAVA_INT.withName("flags"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("cache")).withName("rocksfilter_sst_options");

    /** Every struct layout above (StructLayoutTest checks each against the C header). */
    static final List<StructLayout> STRUCTS = List.of(FILTER_INFO_EX, BUILDER_OPTIONS, SST_PROPERTIES, SST_SOURCE,
            SST_OPEN_STATS, CACHE_STATS, SST_OPTIONS);

    /** A struct member's VarHandle taking (segment, base offset), e.g. {@code (int) h.get(seg, 0L)}. */
    static VarHandle member(StructLayout struct, String name) {
        return struct.varHandle(MemoryLayout.PathElement.groupElement(name));
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
    // After the 0.1 builder calls, so that a 0.1 library's "lacks ..." message starts as before.
    static final MethodHandle BUILDER_NEW_WITH_OPTIONS = downcall("rocksfilter_builder_new_with_options",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
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
    static final MethodHandle FILTER_MAY_MATCH_HASH = critical("rocksfilter_filter_may_match_hash",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_LONG));
    static final MethodHandle FILTER_MAY_MATCH_PACKED = critical("rocksfilter_filter_may_match_packed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_KIND = critical("rocksfilter_filter_kind",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle FILTER_GET_INFO_EX = downcall("rocksfilter_filter_get_info_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_DATA_EX = downcall("rocksfilter_filter_data_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle FILTER_ESTIMATED_FP_RATE = downcall("rocksfilter_filter_estimated_fp_rate",
            FunctionDescriptor.of(JAVA_DOUBLE, ADDRESS, SIZE_T));
    static final MethodHandle FILTER_FREE = downcall("rocksfilter_filter_free",
            FunctionDescriptor.ofVoid(ADDRESS));

    // ---- hashing, version ----
    static final MethodHandle HASH64 = critical("rocksfilter_hash64",
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
    static final MethodHandle SST_MAY_MATCH_PACKED = critical("rocksfilter_sst_may_match_packed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle SST_PREFIX_MAY_MATCH = critical("rocksfilter_sst_prefix_may_match",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle SST_FULL_FILTER = downcall("rocksfilter_sst_full_filter",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SST_FILTER_TYPE = critical("rocksfilter_sst_filter_type",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle SST_GET_PROPERTIES_EX = downcall("rocksfilter_sst_get_properties_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SST_PROPERTY = downcall("rocksfilter_sst_property",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SST_FREE = downcall("rocksfilter_sst_free",
            FunctionDescriptor.ofVoid(ADDRESS));
    // A normal downcall (never critical): the library calls read_at, an upcall, inside it.
    static final MethodHandle SST_OPEN_SOURCE = downcall("rocksfilter_sst_open_source",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SST_GET_OPEN_STATS = downcall("rocksfilter_sst_get_open_stats",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    // ---- filter cache, opens with options ----
    static final MethodHandle CACHE_NEW = downcall("rocksfilter_cache_new",
            FunctionDescriptor.of(ADDRESS, SIZE_T));
    static final MethodHandle CACHE_NEW_WITH_OPEN_FILES = downcall("rocksfilter_cache_new_with_open_files",
            FunctionDescriptor.of(ADDRESS, SIZE_T, SIZE_T));
    static final MethodHandle CACHE_FREE = downcall("rocksfilter_cache_free",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle CACHE_BYTES_HELD = downcall("rocksfilter_cache_bytes_held",
            FunctionDescriptor.of(SIZE_T, ADDRESS));
    static final MethodHandle CACHE_GET_STATS = downcall("rocksfilter_cache_get_stats",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SST_OPEN_EX = downcall("rocksfilter_sst_open_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    // Normal downcalls: with a cache the library calls read_at inside it, and later inside queries.
    static final MethodHandle SST_OPEN_SOURCE_EX = downcall("rocksfilter_sst_open_source_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    // The queries of a handle that may read while it answers (opened with a cache, or mapped): normal
    // downcalls, never critical, since they may call read_at (an upcall, which a critical call must
    // not make) or wait for a pread or a page fault (a critical call holds off the GC meanwhile).
    // Their arguments are native memory (NativeScratch): only critical calls take heap segments.
    static final MethodHandle SST_MAY_MATCH_READING = downcall("rocksfilter_sst_may_match",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, ADDRESS, SIZE_T));
    static final MethodHandle SST_MAY_MATCH_PACKED_READING = downcall("rocksfilter_sst_may_match_packed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, SIZE_T, ADDRESS, ADDRESS));
    static final MethodHandle SST_PREFIX_MAY_MATCH_READING = downcall("rocksfilter_sst_prefix_may_match",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, SIZE_T, ADDRESS, ADDRESS));

    /** rocksfilter_source's read_at: {@code int (*)(void *ctx, uint64_t offset, uint8_t *dst, size_t len)}. */
    static final FunctionDescriptor READ_AT_FN = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, SIZE_T);
    /** rocksfilter_source's release: {@code void (*)(void *ctx)}. */
    static final FunctionDescriptor RELEASE_FN = FunctionDescriptor.ofVoid(ADDRESS);

    static final int SST_SKIP_CHECKSUMS = SstOptions.SKIP_CHECKSUMS;

    static {
        // Runs after every handle above was created (static initialisers run in textual order).
        if (!MISSING.isEmpty()) {
            failure = new UnsatisfiedLinkError("rocksfilter: the native library loaded from " + SOURCE
                    + " lacks " + String.join(", ", MISSING) + ": it is older than these bindings ("
                    + RocksFilter.BINDING_VERSION + "). Remove or update it, or point -D" + LIBRARY_PATH_PROPERTY
                    + " at a current build.");
        }
    }

    /** Throws the loading failure, if any (see {@link RocksFilter#loadNativeLibrary()}). */
    static void ensureLoaded() {
        if (failure != null) {
            fail();
        }
    }

    /** Where the loaded library came from. */
    static String source() {
        ensureLoaded();
        return SOURCE;
    }

    /** The target of every handle while the library is unusable: a fresh error, the cause kept. */
    private static Object fail() {
        UnsatisfiedLinkError e = new UnsatisfiedLinkError(failure.getMessage());
        e.initCause(failure.getCause());
        throw e;
    }

    // ---- helpers ----

    /**
     * A downcall handle for {@code name} in the loaded library; if the library did not load or lacks
     * the symbol, a handle of the same type that throws the loading failure (handles created during
     * this class's initialisation also put a missing symbol into the failure's message).
     */
    static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        Optional<MemorySegment> sym = LIB == null ? Optional.empty() : LIB.find(name);
        if (sym.isEmpty()) {
            if (LIB != null) {
                MISSING.add(name);
            }
            // Same type as the real handle, so invokeExact call sites work; it throws instead.
            MethodType type = fd.toMethodType();
            return MethodHandles.dropArguments(FAIL.asType(MethodType.methodType(type.returnType())), 0,
                    type.parameterList());
        }
        return LINKER.downcallHandle(sym.get(), fd, options);
    }

    /** A native function pointer calling {@code target} (of {@code fd}'s type), valid until {@code arena} closes. */
    static MemorySegment upcall(MethodHandle target, FunctionDescriptor fd, Arena arena) {
        return LINKER.upcallStub(target, fd, arena);
    }

    /** {@link #downcall} with {@link Linker.Option#critical(boolean) critical(true)}. */
    static MethodHandle critical(String name, FunctionDescriptor fd) {
        return downcall(name, fd, Linker.Option.critical(true));
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
        return RocksFilterException.of(status, text);
    }

    /** Reads a NUL-terminated C string, or {@code null} for a NULL pointer. */
    static String string(MemorySegment p) {
        if (MemorySegment.NULL.equals(p)) {
            return null;
        }
        return p.reinterpret(Long.MAX_VALUE).getString(0);
    }
}
