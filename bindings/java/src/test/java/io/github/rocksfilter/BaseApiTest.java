package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One API for every JDK: the public classes are the jar's base classes (target/base-classes,
 * compiled for Java 11), which both backends serve; the FFM classes (target/ffm-classes, the jar's
 * META-INF/versions/22/, compiled for Java 22) add no other public class than {@link Segments},
 * whose every method takes or returns a {@code java.lang.foreign} type, and no class exists in
 * both. Reads the directories the Maven build writes (run-tests.sh's JNI runs have only the jar).
 */
class BaseApiTest {
    static final Path BASE = Path.of(System.getProperty("rocksfilter.test.baseClasses"));
    static final Path FFM = Path.of(System.getProperty("rocksfilter.test.ffmClasses"));
    static final String PKG = "io.github.rocksfilter";
    static final int JAVA_11 = 55;
    static final int JAVA_22 = 66;

    /** The class files of the package in a class directory, as class names (nested ones too). */
    static Set<String> classes(Path dir) throws Exception {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir.resolve(PKG.replace('.', '/')))) {
            for (Path f : files.toList()) {
                String file = f.getFileName().toString();
                if (file.endsWith(".class")) {
                    names.add(PKG + "." + file.substring(0, file.length() - 6));
                }
            }
        }
        return names;
    }

    static Set<String> publicTopLevel(Set<String> names) throws Exception {
        Set<String> out = new TreeSet<>();
        for (String name : names) {
            if (!name.contains("$") && Modifier.isPublic(Class.forName(name, false, BaseApiTest.class.getClassLoader())
                    .getModifiers())) {
                out.add(name.substring(PKG.length() + 1));
            }
        }
        return out;
    }

    static int classVersion(Path dir, String name) throws Exception {
        byte[] b = Files.readAllBytes(dir.resolve(name.replace('.', '/') + ".class"));
        return ((b[6] & 0xff) << 8) | (b[7] & 0xff);
    }

    @Test
    void thePublicClassesAreTheBase() throws Exception {
        Set<String> base = classes(BASE);
        Set<String> ffm = classes(FFM);
        Set<String> both = new TreeSet<>(base);
        both.retainAll(ffm);
        assertEquals(Set.of(), both, "classes in the base and in versions/22");
        for (String name : base) {
            assertEquals(JAVA_11, classVersion(BASE, name), name + " of the base compiled for Java 11");
        }
        for (String name : ffm) {
            assertEquals(JAVA_22, classVersion(FFM, name), name + " of versions/22 compiled for Java 22");
        }
        assertTrue(Files.isRegularFile(FFM.resolve("module-info.class")), "module-info in versions/22");
        assertEquals(Set.of("Segments"), publicTopLevel(ffm), "the public classes only JDK 22+ has");
        Set<String> api = publicTopLevel(base);
        for (String name : new String[] {"Cache", "Filter", "FilterBuilder", "RocksFilter", "Sst", "SstFilter",
            "SstOptions", "RangeReader", "Policy", "Kind", "Status", "RocksFilterException"}) {
            assertTrue(api.contains(name), name + " in the base: " + api);
        }
    }

    /** Nothing that could run on JDK 11 is left to versions/22: each method of Segments needs FFM. */
    @Test
    void segmentsHoldsOnlyForeignCalls() {
        for (Method m : Segments.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers())) {
                continue;
            }
            boolean foreign = Stream.concat(Arrays.stream(m.getParameterTypes()), Stream.of(m.getReturnType()))
                    .anyMatch(c -> c.getName().startsWith("java.lang.foreign."));
            assertTrue(foreign, m + " takes or returns no java.lang.foreign type: it belongs in the base");
        }
    }
}
