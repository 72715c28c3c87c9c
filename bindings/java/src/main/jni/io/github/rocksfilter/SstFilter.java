package io.github.rocksfilter;

import java.nio.file.Path;

/**
 * The former name of {@link Sst}, kept so that existing code compiles.
 *
 * @deprecated use {@link Sst}
 */
@Deprecated(since = "0.1.0")
public final class SstFilter extends Sst {
    private SstFilter(long handle) {
        super(handle);
    }

    /** @deprecated use {@link Sst#open(Path)} */
    @Deprecated(since = "0.1.0")
    public static SstFilter open(Path path) {
        return new SstFilter(openPath(path, true));
    }

    /** @deprecated use {@link Sst#open(Path, boolean)} */
    @Deprecated(since = "0.1.0")
    public static SstFilter open(Path path, boolean verifyChecksums) {
        return new SstFilter(openPath(path, verifyChecksums));
    }

    /** @deprecated use {@link Sst#openBytes(byte[])} */
    @Deprecated(since = "0.1.0")
    public static SstFilter openBytes(byte[] file) {
        return new SstFilter(openArray(file, true));
    }
}
