package io.github.rocksfilter;

import java.nio.file.Path;

/**
 * Stand-in for JDK &lt; 22 (see {@link JdkCheck}).
 *
 * @deprecated use {@link Sst}
 */
@Deprecated
public final class SstFilter extends Sst {
    private SstFilter() {
    }

    /** @deprecated use {@link Sst#open(Path)} */
    @Deprecated
    public static SstFilter open(Path path) {
        throw JdkCheck.unsupported();
    }

    /** @deprecated use {@link Sst#open(Path, boolean)} */
    @Deprecated
    public static SstFilter open(Path path, boolean verifyChecksums) {
        throw JdkCheck.unsupported();
    }

    /** @deprecated use {@link Sst#openBytes(byte[])} */
    @Deprecated
    public static SstFilter openBytes(byte[] file) {
        throw JdkCheck.unsupported();
    }
}
