package io.github.rocksfilter;

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
    private SstFilter(long handle) {
        super(handle, null, false);
    }

    private SstFilter(Backend.Opened opened) {
        super(opened);
    }

    /**
     * {@link Sst#open(Path)}.
     *
     * @deprecated use {@link Sst#open(Path)}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter open(Path path) {
        return new SstFilter(openPath(path, true));
    }

    /**
     * {@link Sst#open(Path, boolean)}.
     *
     * @deprecated use {@link Sst#open(Path, boolean)}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter open(Path path, boolean verifyChecksums) {
        return new SstFilter(openPath(path, verifyChecksums));
    }

    /**
     * {@link Sst#openBytes(byte[])}.
     *
     * @deprecated use {@link Sst#openBytes(byte[])}
     */
    @Deprecated(since = "0.1.0")
    public static SstFilter openBytes(byte[] file) {
        return new SstFilter(openArray(file));
    }
}
