package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); a record in the real classes. */
public final class SstProperties {
    public SstProperties(int formatVersion,
            int checksumType,
            SstFilterType filterType,
            int numPartitions,
            boolean wholeKeyFiltering,
            boolean hasPrefixFilter,
            long numEntries,
            long numFilterEntries,
            long filterSize,
            long creationTime,
            long fileCreationTime,
            String filterPolicy,
            String comparator,
            String prefixExtractor,
            String filterBlockName) {
        throw JdkCheck.unsupported();
    }

    public int formatVersion() {
        throw JdkCheck.unsupported();
    }

    public int checksumType() {
        throw JdkCheck.unsupported();
    }

    public SstFilterType filterType() {
        throw JdkCheck.unsupported();
    }

    public int numPartitions() {
        throw JdkCheck.unsupported();
    }

    public boolean wholeKeyFiltering() {
        throw JdkCheck.unsupported();
    }

    public boolean hasPrefixFilter() {
        throw JdkCheck.unsupported();
    }

    public long numEntries() {
        throw JdkCheck.unsupported();
    }

    public long numFilterEntries() {
        throw JdkCheck.unsupported();
    }

    public long filterSize() {
        throw JdkCheck.unsupported();
    }

    public long creationTime() {
        throw JdkCheck.unsupported();
    }

    public long fileCreationTime() {
        throw JdkCheck.unsupported();
    }

    public String filterPolicy() {
        throw JdkCheck.unsupported();
    }

    public String comparator() {
        throw JdkCheck.unsupported();
    }

    public String prefixExtractor() {
        throw JdkCheck.unsupported();
    }

    public String filterBlockName() {
        throw JdkCheck.unsupported();
    }
}
