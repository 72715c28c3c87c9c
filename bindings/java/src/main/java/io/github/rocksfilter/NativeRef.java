package io.github.rocksfilter;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;

/**
 * Owns one native handle and frees it exactly once. It is also the {@link Cleaner} action of its
 * owner, so it must never reference the owner (or the owner would never become unreachable).
 *
 * <p>The owner's {@code close()} calls {@link Cleaner.Cleanable#clean()}, which runs {@link #run()}
 * at most once even under concurrent calls; the Cleaner runs it if the owner is leaked. Queries
 * read {@link #ptr} (a plain volatile read) and fail with {@link IllegalStateException} once it is
 * {@code null}.
 */
final class NativeRef implements Runnable {
    static final Cleaner CLEANER = Cleaner.create();

    private static final VarHandle PTR;

    static {
        try {
            PTR = MethodHandles.lookup().findVarHandle(NativeRef.class, "ptr", MemorySegment.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MethodHandle free;
    private final String what;
    @SuppressWarnings("unused") // read via PTR and directly
    private volatile MemorySegment ptr;

    NativeRef(MemorySegment ptr, MethodHandle free, String what) {
        this.ptr = ptr;
        this.free = free;
        this.what = what;
    }

    /** The live handle, or {@link IllegalStateException} if closed. */
    MemorySegment get() {
        MemorySegment p = ptr;
        if (p == null) {
            throw new IllegalStateException(what + " is closed");
        }
        return p;
    }

    boolean isClosed() {
        return ptr == null;
    }

    /** Frees the handle (once). */
    @Override
    public void run() {
        MemorySegment p = (MemorySegment) PTR.getAndSet(this, (MemorySegment) null);
        if (p != null) {
            try {
                free.invokeExact(p);
            } catch (Throwable t) {
                throw Native.rethrow(t);
            }
        }
    }
}
