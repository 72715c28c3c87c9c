package io.github.rocksfilter;

import java.io.Serial;

/** A failed native call: carries the {@link Status} and the library's message. */
public class RocksFilterException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final String nativeMessage;

    /**
     * @param status        the native status (never {@link Status#OK})
     * @param nativeMessage the library's message, or {@code null} if it gave none
     */
    public RocksFilterException(Status status, String nativeMessage) {
        super(nativeMessage == null || nativeMessage.isEmpty() ? status.name() : status.name() + ": " + nativeMessage);
        this.status = status;
        this.nativeMessage = nativeMessage;
    }

    /** The native status. */
    public Status status() {
        return status;
    }

    /** The library's own message (without the status prefix), or {@code null}. */
    public String nativeMessage() {
        return nativeMessage;
    }
}
