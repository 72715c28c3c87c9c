package io.github.rocksfilter;

/**
 * A failed native call: carries the {@link Status} and the library's message.
 *
 * <p>The message is the native library's own, unchanged: it names the status once, in words, then
 * says what was wrong and where, e.g. {@code "invalid argument: bits_per_key is NaN"} (the C
 * library owns that format; the Go binding shows the same text). The status is {@link #status()}.
 */
public class RocksFilterException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final String nativeMessage;

    /**
     * @param status        the native status (never {@link Status#OK})
     * @param nativeMessage the library's message, or {@code null} if it gave none
     */
    public RocksFilterException(Status status, String nativeMessage) {
        super(nativeMessage == null || nativeMessage.isEmpty()
                ? status.name() + " (the native library gave no message)" : nativeMessage);
        this.status = status;
        this.nativeMessage = nativeMessage;
    }

    /**
     * The exception for a failed native call's C status code and message (both backends use it):
     * an unknown code is {@link Status#INTERNAL} with the code in the message.
     */
    static RocksFilterException of(int code, String nativeMessage) {
        Status s = Status.fromCode(code);
        if (s == Status.INTERNAL && code != Status.INTERNAL.code()) {
            nativeMessage = "unknown status code " + code + (nativeMessage == null ? "" : ": " + nativeMessage);
        }
        return new RocksFilterException(s, nativeMessage);
    }

    /** The native status. */
    public Status status() {
        return status;
    }

    /**
     * The library's message as it wrote it (the same as {@link #getMessage()}), or {@code null} when
     * it gave none.
     */
    public String nativeMessage() {
        return nativeMessage;
    }
}
