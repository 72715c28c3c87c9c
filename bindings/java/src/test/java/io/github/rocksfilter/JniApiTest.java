package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
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

/**
 * The jar's base classes (the JNI backend, src/main/jni plus the shared classes, compiled for Java
 * 11) replace the FFM ones on JDKs older than 22. They must offer the same public API, minus what
 * needs java.lang.foreign, so that code compiled against either runs on both. (run-tests.sh runs the
 * suite on them on JDK 17 and JDK 25.)
 */
class JniApiTest {
    static final Path STUBS = Path.of(System.getProperty("rocksfilter.test.jniClasses"));
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
    void jniBaseMirrorsThePublicApi() throws Exception {
        ClassLoader stubs = stubLoader();
        ClassLoader real = Filter.class.getClassLoader();
        Set<String> realClasses = publicClasses(REAL, real);
        assertEquals(realClasses, publicClasses(STUBS, stubs), "same public classes");
        for (String name : realClasses) {
            Class<?> r = Class.forName(name, false, real);
            Class<?> s = Class.forName(name, false, stubs);
            assertEquals(api(r, true), api(s, false), name + ": the JNI class's public API (src/main/jni)");
            assertEquals(55, classVersion(name), name + " of the JNI base compiled for Java 11");
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
}
