package io.github.rocksfilter;

/**
 * Picks the {@link Backend}, once, when the bindings are first used: the FFM one wherever its
 * class is visible, that is on JDK 22+ reading the jar's {@code META-INF/versions/22/} (a JDK older
 * than 22, or one started with {@code -Djdk.util.jar.enableMultiRelease=false}, reads only the
 * jar's base classes); the JNI one otherwise. Making a backend never fails: one whose library
 * cannot be loaded throws the explanation ({@link UnsatisfiedLinkError}) from every call.
 */
final class Backends {
    private Backends() {
    }

    /** The class of the FFM backend (only in {@code META-INF/versions/22/}). */
    static final String FFM_CLASS = "io.github.rocksfilter.FfmBackend";

    /** The backend every public class calls. A constant, so that the JIT binds the calls to it. */
    static final Backend BACKEND = load();

    private static Backend load() {
        Class<?> ffm;
        try {
            ffm = Class.forName(FFM_CLASS, true, Backends.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return new JniBackend();
        }
        try {
            return (Backend) ffm.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("rocksfilter: " + FFM_CLASS + " is present but cannot be made", e);
        }
    }
}
