package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); a record in the real classes. */
public final class FilterInfo {
    public FilterInfo(Kind kind, long bytes, int numProbes, int numLines, int lineBytes, int numBlocks, int seed,
            int lowerNumColumns, int upperStartBlock) {
        throw JdkCheck.unsupported();
    }

    public Kind kind() {
        throw JdkCheck.unsupported();
    }

    public long bytes() {
        throw JdkCheck.unsupported();
    }

    public int numProbes() {
        throw JdkCheck.unsupported();
    }

    public int numLines() {
        throw JdkCheck.unsupported();
    }

    public int lineBytes() {
        throw JdkCheck.unsupported();
    }

    public int numBlocks() {
        throw JdkCheck.unsupported();
    }

    public int seed() {
        throw JdkCheck.unsupported();
    }

    public int lowerNumColumns() {
        throw JdkCheck.unsupported();
    }

    public int upperStartBlock() {
        throw JdkCheck.unsupported();
    }
}
