package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Owns one native handle (a C ABI pointer as a {@code long}, as every {@link Backend} passes them)
 * and frees it exactly once. It is also the {@link Cleaner} action of its owner, so it must never
 * reference the owner (or the owner would never become unreachable).
 *
 * <p>The owner's {@code close()} calls {@link Cleaner.Cleanable#clean()}, which runs {@link #run()}
 * at most once even under concurrent calls; the Cleaner runs it if the owner is leaked. Queries
 * take the handle through {@link #get()} (a plain volatile read), which throws
 * {@link IllegalStateException} once it is closed. Closing a handle while another thread queries
 * it is the caller's error, as in the C API.
 */
final class NativeRef implements Runnable {
    /** One cleaner thread for every handle of the binding. */
    static final Cleaner CLEANER = Cleaner.create();

    private final AtomicLong handle;
    private final LongConsumer free;
    private final String what;

    NativeRef(long handle, LongConsumer free, String what) {
        this.handle = new AtomicLong(handle);
        this.free = free;
        this.what = what;
    }

    /** The live handle. @throws IllegalStateException once closed */
    long get() {
        long h = handle.get();
        if (h == 0) {
            throw new IllegalStateException(what + " is closed");
        }
        return h;
    }

    boolean isClosed() {
        return handle.get() == 0;
    }

    /** Frees the handle, once. */
    @Override
    public void run() {
        long h = handle.getAndSet(0);
        if (h != 0) {
            free.accept(h);
        }
    }
}
