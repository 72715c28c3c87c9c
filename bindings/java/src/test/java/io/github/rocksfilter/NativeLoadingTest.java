package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the native library is found, checked in child JVMs (a JVM loads it once). */
class NativeLoadingTest {
    static final Path LIB = Path.of(System.getProperty(Native.LIBRARY_PATH_PROPERTY)).toAbsolutePath();

    record Result(int exit, String out) {
    }

    static Result run(String... props) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(List.of(props));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LoaderProbe.class.getName());
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
    }

    @Test
    void explicitPropertyWins() throws Exception {
        Result r = run("-D" + Native.LIBRARY_PATH_PROPERTY + "=" + LIB, "-Djava.library.path=/nonexistent");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("version=" + RocksFilter.BINDING_VERSION), r.out());
    }

    @Test
    void javaLibraryPathIsSearched() throws Exception {
        Result r = run("-Djava.library.path=/nonexistent" + File.pathSeparator + LIB.getParent());
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("version="), r.out());
    }

    @Test
    void missingLibraryListsWhereItLooked() throws Exception {
        Result r = run("-Djava.library.path=/nonexistent-a" + File.pathSeparator + "/nonexistent-b");
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("UnsatisfiedLinkError"), r.out());
        assertTrue(r.out().contains("/nonexistent-a/librocksfilter.so (absent)"), r.out());
        assertTrue(r.out().contains("/nonexistent-b/librocksfilter.so (absent)"), r.out());
        assertTrue(r.out().contains("rocksfilter.library.path"), r.out());
        System.out.println("missing-library message:\n" + r.out().strip());

        Result bad = run("-D" + Native.LIBRARY_PATH_PROPERTY + "=/nonexistent/librocksfilter.so");
        assertEquals(3, bad.exit(), bad.out());
        assertTrue(bad.out().contains("does not name an existing file"), bad.out());
    }
}
