package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); a record in the real classes. */
public final class SstOpenStats {
    public SstOpenStats(long reads, long bytesRead, long bytesHeld) {
        throw JdkCheck.unsupported();
    }

    public long reads() {
        throw JdkCheck.unsupported();
    }

    public long bytesRead() {
        throw JdkCheck.unsupported();
    }

    public long bytesHeld() {
        throw JdkCheck.unsupported();
    }
}
