package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public class RocksFilterException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RocksFilterException(Status status, String nativeMessage) {
        throw JdkCheck.unsupported();
    }

    public Status status() {
        throw JdkCheck.unsupported();
    }

    public String nativeMessage() {
        throw JdkCheck.unsupported();
    }
}
