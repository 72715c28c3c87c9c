package io.github.rocksfilter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the native library is found, checked in child JVMs (a JVM loads it once). */
class NativeLoadingTest {
    static final Path LIB = Path.of(System.getProperty(NativeLoader.LIBRARY_PATH_PROPERTY)).toAbsolutePath();

    record Result(int exit, String out) {
    }

    /** Runs {@link LoaderProbe} in a child JVM with {@code jvmArgs}, then {@code probeArgs} after "--". */
    static Result run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // A run on the JNI backend of a JDK 22+ (run-tests.sh) keeps its children on it too.
        String multiRelease = System.getProperty("jdk.util.jar.enableMultiRelease");
        if (multiRelease != null) {
            cmd.add("-Djdk.util.jar.enableMultiRelease=" + multiRelease);
        }
        List<String> probeArgs = new ArrayList<>();
        boolean afterDashes = false;
        for (String a : args) {
            if (a.equals("--")) {
                afterDashes = true;
            } else if (afterDashes) {
                probeArgs.add(a);
            } else {
                cmd.add(a);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LoaderProbe.class.getName());
        cmd.addAll(probeArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("LD_LIBRARY_PATH");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Result(p.exitValue(), out);
    }

    @Test
    void loadNativeLibraryInThisJvm() {
        RocksFilter.loadNativeLibrary();
        assertEquals(RocksFilter.BINDING_VERSION, RocksFilter.version());
        assertTrue(RocksFilter.nativeLibrary().contains(LIB.toString()), RocksFilter.nativeLibrary());
    }

    @Test
    void explicitPropertyWins() throws Exception {
        Result r = run("-D" + NativeLoader.LIBRARY_PATH_PROPERTY + "=" + LIB, "-Djava.library.path=/nonexistent");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("version=" + RocksFilter.BINDING_VERSION), r.out());
        assertTrue(r.out().contains("source=-D" + NativeLoader.LIBRARY_PATH_PROPERTY + "=" + LIB), r.out());
    }

    @Test
    void explicitPropertyMayNameTheDirectory() throws Exception {
        Result r = run("-D" + NativeLoader.LIBRARY_PATH_PROPERTY + "=" + LIB.getParent(), "-Djava.library.path=/nonexistent");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("(" + LIB + ")"), r.out());
    }

    @Test
    void javaLibraryPathIsSearched() throws Exception {
        Result r = run("-Djava.library.path=/nonexistent" + File.pathSeparator + LIB.getParent());
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("source=java.library.path (" + LIB + ")"), r.out());
    }

    /** With no flag at all, the copy bundled as a resource is extracted, loaded and its file deleted. */
    @Test
    void bundledCopyIsUsedWithoutFlags(@TempDir Path tmp) throws Exception {
        assertNotNull(NativeLoader.class.getResource(NativeLoader.resourceName("linux-x86_64")),
                "the build bundles the native library as a resource");
        Result r = run("-Djava.library.path=/nonexistent", "-Djava.io.tmpdir=" + tmp);
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("source=bundled " + NativeLoader.platform() + " copy ("), r.out());
        assertTrue(r.out().contains("extracted to " + tmp + File.separator + "librocksfilter-"), r.out());
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "the extracted file is deleted");
        }
        // -Drocksfilter.tmpdir overrides java.io.tmpdir (for a noexec /tmp).
        Path own = Files.createDirectory(tmp.resolve("own"));
        Result o = run("-Djava.library.path=/nonexistent", "-D" + NativeLoader.TMPDIR_PROPERTY + "=" + own);
        assertEquals(0, o.exit(), o.out());
        assertTrue(o.out().contains("extracted to " + own + File.separator), o.out());
    }

    @Test
    void extractedFileIsPrivate(@TempDir Path tmp) throws Exception {
        byte[] data = "not really a library".getBytes(StandardCharsets.UTF_8);
        Path p = NativeLoader.extract(new ByteArrayInputStream(data), tmp);
        assertEquals(tmp, p.getParent());
        assertTrue(p.getFileName().toString().startsWith("librocksfilter-"), p.toString());
        assertArrayEquals(data, Files.readAllBytes(p));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
    }

    @Test
    void platformName() {
        assertEquals("linux-x86_64", NativeLoader.detectedPlatform(), "this machine: " + System.getProperty("os.name")
                + " " + System.getProperty("os.arch"));
        if (System.getProperty(NativeLoader.PLATFORM_PROPERTY) == null) {
            assertEquals("linux-x86_64", NativeLoader.platform());
        }
    }

    /** What the jar bundles, as its index lists it, comma-separated. */
    static String bundled() {
        String index = NativeLoader.readIndex();
        assertNotNull(index, NativeLoader.INDEX_RESOURCE);
        return String.join(", ", NativeLoader.parseIndex(index));
    }

    /** -Drocksfilter.platform picks the bundled copy; the one detected is named alongside. */
    @Test
    void platformPropertyOverridesDetection() throws Exception {
        Result ok = run("-Djava.library.path=/nonexistent", "-D" + NativeLoader.PLATFORM_PROPERTY + "=linux-x86_64");
        assertEquals(0, ok.exit(), ok.out());
        assertTrue(ok.out().contains("source=bundled linux-x86_64 copy (jar:") || ok.out().contains(
                "source=bundled linux-x86_64 copy (file:"), ok.out());

        Result r = run("-Djava.library.path=/nonexistent", "-D" + NativeLoader.PLATFORM_PROPERTY + "=linux-riscv64");
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("could not load the native library librocksfilter.so (linux-riscv64)"), r.out());
        assertTrue(r.out().contains("bundled copy: none for linux-riscv64 (set by -Drocksfilter.platform; detected:"
                + " linux-x86_64 from os.name=Linux, os.arch=amd64, glibc (from /proc/self/maps)) in this jar, which"
                + " bundles: " + bundled() + " ("), r.out());
    }

    /**
     * A platform the jar lacks (the JVM told it runs on riscv64): the error names it, how it was
     * detected, and what the jar holds.
     */
    @Test
    void unbundledPlatformIsNamedWithWhatTheJarHolds() throws Exception {
        Result r = run("-Djava.library.path=/nonexistent", "-Dos.arch=riscv64");
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("could not load the native library librocksfilter.so (linux-riscv64)"), r.out());
        assertTrue(r.out().contains("bundled copy: none for linux-riscv64 (os.name=Linux, os.arch=riscv64, glibc"
                + " (from /proc/self/maps)) in this jar, which bundles: " + bundled() + " ("), r.out());
        System.out.println("unbundled-platform message:\n" + r.out().strip());
    }

    @Test
    void missingLibraryListsWhereItLooked() throws Exception {
        Result r = run("-Djava.library.path=/nonexistent-a" + File.pathSeparator + "/nonexistent-b",
                "-D" + NativeLoader.BUNDLED_PROPERTY + "=false");
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("UnsatisfiedLinkError"), r.out());
        assertTrue(r.out().contains("-Drocksfilter.library.path: not set"), r.out());
        assertTrue(r.out().contains("java.library.path: /nonexistent-a/librocksfilter.so (absent)"), r.out());
        assertTrue(r.out().contains("java.library.path: /nonexistent-b/librocksfilter.so (absent)"), r.out());
        assertTrue(r.out().contains("bundled copy: skipped (-Drocksfilter.bundled=false)"), r.out());
        assertTrue(r.out().contains("system dynamic linker"), r.out());
        assertTrue(r.out().contains("run with -Drocksfilter.library.path=/path/to/librocksfilter.so"), r.out());
        System.out.println("missing-library message:\n" + r.out().strip());

        Result bad = run("-D" + NativeLoader.LIBRARY_PATH_PROPERTY + "=/nonexistent/librocksfilter.so");
        assertEquals(3, bad.exit(), bad.out());
        assertTrue(bad.out().contains("does not name an existing file (looked for /nonexistent/librocksfilter.so)"),
                bad.out());

        Result emptyDir = run("-D" + NativeLoader.LIBRARY_PATH_PROPERTY + "=/");
        assertEquals(3, emptyDir.exit(), emptyDir.out());
        assertTrue(emptyDir.out().contains("(looked for /librocksfilter.so)"), emptyDir.out());
    }

    /** Without loadNativeLibrary(), every use throws the explanation: never a bare NoClassDefFoundError. */
    @Test
    void everyUseThrowsTheExplanation() throws Exception {
        Result r = run("-Djava.library.path=/nonexistent", "-D" + NativeLoader.BUNDLED_PROPERTY + "=false", "--", "use");
        assertEquals(0, r.exit(), r.out());
        assertFalse(r.out().contains("NoClassDefFoundError"), r.out());
        assertFalse(r.out().contains("ExceptionInInitializerError"), r.out());
        for (String use : List.of("use0", "use1")) {
            assertTrue(r.out().contains(use + "=java.lang.UnsatisfiedLinkError: rocksfilter: could not load the native library"),
                    r.out());
        }
    }

    /**
     * A library without the needed symbols (a copy of the JDK's own libzip: the JVM has the original
     * loaded already) is named, with what it lacks.
     */
    @Test
    void libraryLackingSymbolsIsNamed(@TempDir Path dir) throws Exception {
        Path zip = Path.of(System.getProperty("java.home"), "lib", System.mapLibraryName("zip"));
        assertTrue(Files.isRegularFile(zip), zip.toString());
        Path other = Files.copy(zip, dir.resolve(zip.getFileName()));
        Result r = run("-D" + NativeLoader.LIBRARY_PATH_PROPERTY + "=" + other);
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("the native library loaded from -Drocksfilter.library.path=" + other), r.out());
        assertTrue(r.out().contains(RocksFilter.backend().equals("ffm")
                ? "lacks rocksfilter_builder_new, rocksfilter_builder_add_key"
                : "lacks the JNI entry points of these bindings"), r.out());
        assertTrue(r.out().contains("older than these bindings"), r.out());
    }
}
