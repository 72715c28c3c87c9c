package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A native handle of the JNI backend (a C ABI pointer as a {@code long}) and the function that frees
 * it: freed once, by {@code close()} or by the {@link Cleaner} once its owner is unreachable. Queries
 * take the handle through {@link #get()}, which throws once it is closed. As with the FFM backend's
 * {@code NativeRef}, closing a handle while another thread queries it is the caller's error.
 */
final class JniRef implements Runnable {
    /** One cleaner thread for every handle of the binding. */
    static final Cleaner CLEANER = Cleaner.create();

    private final AtomicLong handle;
    private final LongConsumer free;
    private final String what;

    JniRef(long handle, LongConsumer free, String what) {
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
