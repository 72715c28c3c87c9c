package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jar's base classes (src/main/pre22, compiled for Java 8) stand in for the real ones on JDKs
 * older than 22. They must offer the same public API, minus what needs java.lang.foreign, so that
 * code compiled against them links and gets the clear "needs JDK 22" message instead of a
 * NoSuchMethodError. (bindings/java/consumer/run.sh runs them for real on JDK 17.)
 */
class Pre22StubsTest {
    static final Path STUBS = Path.of(System.getProperty("rocksfilter.test.pre22Classes"));
    static final Path REAL = realClasses();
    static final String PKG = "io.github.rocksfilter";

    static Path realClasses() {
        try {
            return Path.of(Filter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static ClassLoader stubLoader() throws Exception {
        return new URLClassLoader(new URL[] {STUBS.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    }

    /** The public top-level classes of the package in a class directory. */
    static Set<String> publicClasses(Path dir, ClassLoader loader) throws Exception {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir.resolve(PKG.replace('.', '/')))) {
            for (Path f : files.toList()) {
                String file = f.getFileName().toString();
                if (file.endsWith(".class") && !file.contains("$")) {
                    String name = PKG + "." + file.substring(0, file.length() - 6);
                    if (Modifier.isPublic(Class.forName(name, false, loader).getModifiers())) {
                        names.add(name);
                    }
                }
            }
        }
        return names;
    }

    static boolean usesForeign(Executable e) {
        return Stream.concat(Arrays.stream(e.getParameterTypes()),
                        e instanceof Method m ? Stream.of(m.getReturnType()) : Stream.empty())
                .anyMatch(c -> c.getName().startsWith("java.lang.foreign."));
    }

    /** Public members as comparable strings ("static long hash64(byte[])"); records' and enums' implicit ones left out. */
    static Set<String> api(Class<?> c, boolean dropForeign) {
        Set<String> out = new TreeSet<>();
        for (Method m : c.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic() || (dropForeign && usesForeign(m))
                    || Set.of("equals", "hashCode", "toString").contains(m.getName())
                    || (c.isEnum() && Set.of("values", "valueOf").contains(m.getName()))) {
                continue;
            }
            out.add((Modifier.isStatic(m.getModifiers()) ? "static " : "") + m.getReturnType().getName() + " "
                    + m.getName() + params(m));
        }
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (Modifier.isPublic(k.getModifiers()) && !(dropForeign && usesForeign(k))) {
                out.add("new" + params(k));
            }
        }
        for (Field f : c.getDeclaredFields()) {
            if (Modifier.isPublic(f.getModifiers())) {
                out.add("field " + f.getType().getName() + " " + f.getName());
            }
        }
        List<String> supers = Stream.concat(Stream.of(c.getSuperclass()), Arrays.stream(c.getInterfaces()))
                .filter(s -> s != null && !Set.of("java.lang.Object", "java.lang.Record").contains(s.getName()))
                .map(Class::getName).sorted().toList();
        out.add("extends/implements " + supers);
        return out;
    }

    static String params(Executable e) {
        return Arrays.stream(e.getParameterTypes()).map(Class::getName).collect(Collectors.joining(",", "(", ")"));
    }

    @Test
    void stubsMirrorThePublicApi() throws Exception {
        ClassLoader stubs = stubLoader();
        ClassLoader real = Filter.class.getClassLoader();
        Set<String> realClasses = publicClasses(REAL, real);
        assertEquals(realClasses, publicClasses(STUBS, stubs), "same public classes");
        for (String name : realClasses) {
            Class<?> r = Class.forName(name, false, real);
            Class<?> s = Class.forName(name, false, stubs);
            assertEquals(api(r, true), api(s, false), name + ": the stand-in's public API (src/main/pre22)");
            assertEquals(52, classVersion(name), name + " stand-in compiled for Java 8");
            if (r.isEnum()) {
                List<String> rc = Arrays.stream(r.getEnumConstants()).map(Object::toString).toList();
                List<String> sc = Arrays.stream(s.getEnumConstants()).map(Object::toString).toList();
                assertEquals(rc, sc, name + " constants");
                Method rCode = r.getMethod("code");
                Method sCode = s.getMethod("code");
                for (int i = 0; i < rc.size(); i++) {
                    assertEquals(rCode.invoke(r.getEnumConstants()[i]), sCode.invoke(s.getEnumConstants()[i]),
                            name + "." + rc.get(i) + ".code()");
                }
            }
        }
    }

    static int classVersion(String name) throws Exception {
        byte[] b = Files.readAllBytes(STUBS.resolve(name.replace('.', '/') + ".class"));
        return ((b[6] & 0xff) << 8) | (b[7] & 0xff);
    }

    /** On JDK 22+ a stand-in only runs when the multi-release layout was lost: it says so. */
    @Test
    void standInExplainsItself() throws Exception {
        Class<?> builder = Class.forName(PKG + ".FilterBuilder", true, stubLoader());
        Class<?> policy = Class.forName(PKG + ".Policy", true, builder.getClassLoader());
        Object bloom = policy.getEnumConstants()[0];
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
                () -> builder.getConstructor(policy, double.class).newInstance(bloom, 10.0));
        UnsupportedOperationException u = assertInstanceOf(UnsupportedOperationException.class, e.getCause());
        assertTrue(u.getMessage().startsWith("rocksfilter: running on JDK " + Runtime.version().feature()
                + " but the jar's JDK 22 classes (META-INF/versions/22/) were not used"), u.getMessage());
        assertFalse(u.getMessage().contains("needs JDK 22 or newer"), u.getMessage());
    }
}
