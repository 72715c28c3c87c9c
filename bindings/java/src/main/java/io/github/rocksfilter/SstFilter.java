package io.github.rocksfilter;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The former name of {@link Sst}, kept so that existing code compiles and runs unchanged: an
 * {@code SstFilter} is an {@link Sst} (same methods, same behaviour), and its factories are
 * {@link Sst}'s returning this type.
 *
 * @deprecated use {@link Sst}, the name the Rust crate ({@code Sst}), the C ABI
 *             ({@code rocksfilter_sst}) and Go ({@code SST}) use for an opened SST file's filter.
 */
@Deprecated(since = "0.1.0")
public final class SstFilter extends Sst {
    private SstFilter(MemorySegment handle, MemorySegment memory) {
        super(handle, memory);
    }

    /**
     * {@link Sst#open(Path)}.
     *
     * @deprecated use {@link Sst#open(Path)}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter open(Path path) {
        return new SstFilter(openPath(path, true), null);
    }

    /**
     * {@link Sst#open(Path, boolean)}.
     *
     * @deprecated use {@link Sst#open(Path, boolean)}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter open(Path path, boolean verifyChecksums) {
        return new SstFilter(openPath(path, verifyChecksums), null);
    }

    /**
     * {@link Sst#openMemory(MemorySegment)}.
     *
     * @deprecated use {@link Sst#openMemory(MemorySegment)}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter openMemory(MemorySegment file) {
        return new SstFilter(openSegment(file, true), file);
    }

    /**
     * {@link Sst#openMemory(MemorySegment, boolean)}.
     *
     * @deprecated use {@link Sst#openMemory(MemorySegment, boolean)}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter openMemory(MemorySegment file, boolean verifyChecksums) {
        return new SstFilter(openSegment(file, verifyChecksums), file);
    }

    /**
     * {@link Sst#openBytes(byte[])}.
     *
     * @deprecated use {@link Sst#openBytes(byte[])}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter openBytes(byte[] file) {
        MemorySegment copy = nativeCopy(file);
        return new SstFilter(openSegment(copy, true), copy);
    }
}
