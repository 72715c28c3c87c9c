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
        super(nativeMessage == null || nativeMessage.isEmpty() ? status.name()
                : status.name() + ": " + withoutKindPrefix(status, nativeMessage));
        this.status = status;
        this.nativeMessage = nativeMessage;
    }

    /** The native status. */
    public Status status() {
        return status;
    }

    /**
     * The library's own message as it wrote it (it starts with the status in words, e.g.
     * {@code "invalid argument: ..."}), or {@code null}. {@link #getMessage()} is
     * {@code "INVALID_ARGUMENT: ..."}, naming the status once.
     */
    public String nativeMessage() {
        return nativeMessage;
    }

    /** The native message without its leading status wording (already said by the status name). */
    private static String withoutKindPrefix(Status status, String message) {
        String words = switch (status) {
            case OK -> "ok";
            case INVALID_ARGUMENT -> "invalid argument";
            case CORRUPTION -> "corruption";
            case NOT_SUPPORTED -> "not supported";
            case IO_ERROR -> "I/O error";
            case NOT_FOUND -> "not found";
            case INTERNAL -> "internal error";
        };
        String prefix = words + ": ";
        return message.regionMatches(true, 0, prefix, 0, prefix.length()) ? message.substring(prefix.length()) : message;
    }
}
