package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Which backend the suite runs on: the FFM one on JDK 22+ unless the run asks for the JNI one
 * ({@code -Drocksfilter.test.backend=jni}: run-tests.sh's runs on JDK 17 and JDK 25), so that a
 * run meant for one backend cannot pass on the other.
 */
class BackendTest {
    @Test
    void expectedBackendAnswers() {
        String expected = System.getProperty("rocksfilter.test.backend",
                Runtime.version().feature() >= 22 ? "ffm" : "jni");
        assertEquals(expected, RocksFilter.backend());
        // The object every public class calls is that backend's.
        assertEquals(expected.equals("ffm") ? Backends.FFM_CLASS : JniBackend.class.getName(),
                Backends.BACKEND.getClass().getName());
        if (expected.equals("jni")) {
            // Picked because the FFM classes are not visible: a JDK before 22, or one that reads
            // only the jar's base classes (-Djdk.util.jar.enableMultiRelease=false).
            assertThrows(ClassNotFoundException.class, () -> Class.forName(Backends.FFM_CLASS));
        }
        // The backend's calls answer: a filter built and queried through it.
        try (FilterBuilder b = new FilterBuilder(Policy.BLOOM, 10)) {
            b.add(TestKeys.utf8("k"));
            try (Filter f = Filter.load(b.finish())) {
                assertEquals(Kind.FAST_LOCAL_BLOOM, f.kind());
                assertEquals(true, f.mayMatch(TestKeys.utf8("k")));
            }
        }
        System.out.println("backend: " + RocksFilter.backend() + " (" + Backends.BACKEND.getClass().getSimpleName()
                + ") on JDK " + Runtime.version().feature() + ", library from " + RocksFilter.nativeLibrary());
    }
}
