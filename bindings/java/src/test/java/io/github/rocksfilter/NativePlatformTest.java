package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which bundled library the loader picks: the platform names, the musl/glibc decision, the jar's
 * index and the message for a platform the jar does not bundle (pure functions, no native code).
 */
class NativePlatformTest {
    /** The platforms a full build bundles, as {@code native/platforms.txt} lists them (sorted). */
    static final List<String> ALL = List.of("darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-aarch64-musl",
            "linux-s390x", "linux-x86_64", "linux-x86_64-musl", "windows-x86_64");

    @Test
    void linuxPlatforms() {
        assertEquals("linux-x86_64", NativeLoader.platform("Linux", "amd64", false));
        assertEquals("linux-x86_64", NativeLoader.platform("Linux", "x86_64", false));
        assertEquals("linux-x86_64", NativeLoader.platform("Linux", "x64", false));
        assertEquals("linux-aarch64", NativeLoader.platform("Linux", "aarch64", false));
        assertEquals("linux-aarch64", NativeLoader.platform("Linux", "arm64", false));
        assertEquals("linux-s390x", NativeLoader.platform("Linux", "s390x", false));
        assertEquals("linux-x86_64-musl", NativeLoader.platform("Linux", "amd64", true));
        assertEquals("linux-x86_64-musl", NativeLoader.platform("Linux", "x86_64", true));
        assertEquals("linux-aarch64-musl", NativeLoader.platform("Linux", "aarch64", true));
        assertEquals("linux-aarch64-musl", NativeLoader.platform("Linux", "arm64", true));
        // Not bundled, named all the same (the error message says it).
        assertEquals("linux-s390x-musl", NativeLoader.platform("Linux", "s390x", true));
    }

    @Test
    void macPlatforms() {
        assertEquals("darwin-x86_64", NativeLoader.platform("Mac OS X", "x86_64", false));
        assertEquals("darwin-x86_64", NativeLoader.platform("Mac OS X", "amd64", false));
        assertEquals("darwin-aarch64", NativeLoader.platform("Mac OS X", "aarch64", false));
        assertEquals("darwin-aarch64", NativeLoader.platform("Mac OS X", "arm64", false));
        assertEquals("darwin-aarch64", NativeLoader.platform("Darwin", "arm64", false));
        assertEquals("darwin-x86_64", NativeLoader.platform("Darwin", "x86_64", false));
        // musl only means something on Linux.
        assertEquals("darwin-aarch64", NativeLoader.platform("Mac OS X", "aarch64", true));
    }

    @Test
    void windowsPlatforms() {
        assertEquals("windows-x86_64", NativeLoader.platform("Windows 10", "amd64", false));
        assertEquals("windows-x86_64", NativeLoader.platform("Windows 11", "amd64", false));
        assertEquals("windows-x86_64", NativeLoader.platform("Windows Server 2019", "amd64", false));
        assertEquals("windows-x86_64", NativeLoader.platform("Windows Server 2022", "x64", false));
        assertEquals("windows-aarch64", NativeLoader.platform("Windows 11", "aarch64", false));
        assertEquals("windows-x86_64", NativeLoader.platform("Windows 10", "amd64", true));
        assertEquals("windows-x86", NativeLoader.platform("Windows 10", "x86", false));
    }

    /** Values with no bundled library pass through, normalized, so that the error names them. */
    @Test
    void unknownValuesPassThroughNormalized() {
        assertEquals("linux-ppc64le", NativeLoader.platform("Linux", "ppc64le", false));
        assertEquals("linux-riscv64", NativeLoader.platform("Linux", "riscv64", false));
        assertEquals("linux-riscv64-musl", NativeLoader.platform("Linux", "riscv64", true));
        assertEquals("linux-loongarch64", NativeLoader.platform("Linux", "loongarch64", false));
        assertEquals("linux-arm", NativeLoader.platform("Linux", "arm", false));
        assertEquals("linux-x86", NativeLoader.platform("Linux", "i386", false));
        assertEquals("linux-x86", NativeLoader.platform("Linux", "i686", false));
        assertEquals("linux-x86", NativeLoader.platform("Linux", "x86", false));
        assertEquals("freebsd-x86_64", NativeLoader.platform("FreeBSD", "amd64", false));
        assertEquals("freebsd-x86_64", NativeLoader.platform("FreeBSD", "amd64", true));
        assertEquals("sunos-sparcv9", NativeLoader.platform("SunOS", "sparcv9", false));
        assertEquals("aix-ppc64", NativeLoader.platform("AIX", "ppc64", false));
        assertEquals("os400-powerpc64", NativeLoader.platform("OS/400", "Power PC-64", false));
        assertEquals("linux-x86_64", NativeLoader.platform(" LINUX ", " AMD64 ", false));
        assertEquals("unknown-unknown", NativeLoader.platform("", "", false));
    }

    /** The file name follows the platform's OS, not this JVM's (this test runs on Linux). */
    @Test
    void resourceNamesFollowTheTargetOs() {
        assertEquals("/native/linux-x86_64/librocksfilter.so", NativeLoader.resourceName("linux-x86_64"));
        assertEquals("/native/linux-aarch64/librocksfilter.so", NativeLoader.resourceName("linux-aarch64"));
        assertEquals("/native/linux-x86_64-musl/librocksfilter.so", NativeLoader.resourceName("linux-x86_64-musl"));
        assertEquals("/native/linux-aarch64-musl/librocksfilter.so", NativeLoader.resourceName("linux-aarch64-musl"));
        assertEquals("/native/linux-s390x/librocksfilter.so", NativeLoader.resourceName("linux-s390x"));
        assertEquals("/native/windows-x86_64/rocksfilter.dll", NativeLoader.resourceName("windows-x86_64"));
        assertEquals("/native/darwin-x86_64/librocksfilter.dylib", NativeLoader.resourceName("darwin-x86_64"));
        assertEquals("/native/darwin-aarch64/librocksfilter.dylib", NativeLoader.resourceName("darwin-aarch64"));
        assertEquals("/native/freebsd-x86_64/librocksfilter.so", NativeLoader.resourceName("freebsd-x86_64"));
        assertEquals("librocksfilter.so", NativeLoader.FILE_NAME, "this JVM's own name (Linux)");
    }

    // ---- musl or glibc ----

    /** Temurin's Alpine image (x86_64): the JVM runs on musl's loader, which is also its libc. */
    static final String ALPINE_X86_64 = """
            55d0c6a1e000-55d0c6a1f000 r--p 00000000 00:2f 2622203                    /opt/java/openjdk/bin/java
            55d0c6a1f000-55d0c6a20000 r-xp 00001000 00:2f 2622203                    /opt/java/openjdk/bin/java
            55d0c6a20000-55d0c6a21000 r--p 00002000 00:2f 2622203                    /opt/java/openjdk/bin/java
            55d0c7d3a000-55d0c7d5b000 rw-p 00000000 00:00 0                          [heap]
            7f5d8a000000-7f5d8a2d0000 r--p 00000000 00:2f 2622305                    /opt/java/openjdk/lib/server/libjvm.so
            7f5d8a2d0000-7f5d8b2e0000 r-xp 002d0000 00:2f 2622305                    /opt/java/openjdk/lib/server/libjvm.so
            7f5d8b6a0000-7f5d8b6a4000 r--p 00000000 00:2f 1319                       /usr/lib/libz.so.1.3.1
            7f5d8b6a4000-7f5d8b6b3000 r-xp 00004000 00:2f 1319                       /usr/lib/libz.so.1.3.1
            7f5d8b6c0000-7f5d8b6c3000 r--p 00000000 00:2f 2622290                    /opt/java/openjdk/lib/libjli.so
            7f5d8b6c3000-7f5d8b6ce000 r-xp 00003000 00:2f 2622290                    /opt/java/openjdk/lib/libjli.so
            7f5d8b6d5000-7f5d8b6e9000 r--p 00000000 00:2f 1118                       /lib/ld-musl-x86_64.so.1
            7f5d8b6e9000-7f5d8b735000 r-xp 00014000 00:2f 1118                       /lib/ld-musl-x86_64.so.1
            7f5d8b735000-7f5d8b76b000 r--p 00060000 00:2f 1118                       /lib/ld-musl-x86_64.so.1
            7f5d8b76b000-7f5d8b76c000 r--p 00095000 00:2f 1118                       /lib/ld-musl-x86_64.so.1
            7f5d8b76c000-7f5d8b76d000 rw-p 00096000 00:2f 1118                       /lib/ld-musl-x86_64.so.1
            7ffd5d1f1000-7ffd5d212000 rw-p 00000000 00:00 0                          [stack]
            """;

    /** Alpine's OpenJDK package on aarch64. */
    static final String ALPINE_AARCH64 = """
            aaaad5e30000-aaaad5e31000 r-xp 00000000 fd:00 394021                     /usr/lib/jvm/java-21-openjdk/bin/java
            ffff8c400000-ffff8d6a0000 r-xp 00000000 fd:00 394102                     /usr/lib/jvm/java-21-openjdk/lib/server/libjvm.so
            ffff8db10000-ffff8db20000 r-xp 00000000 fd:00 394088                     /usr/lib/jvm/java-21-openjdk/lib/libjli.so
            ffff8db30000-ffff8dbc8000 r-xp 00000000 fd:00 131090                     /lib/ld-musl-aarch64.so.1
            ffff8dbd7000-ffff8dbd8000 r--p 00097000 fd:00 131090                     /lib/ld-musl-aarch64.so.1
            ffff8dbd8000-ffff8dbd9000 rw-p 00098000 fd:00 131090                     /lib/ld-musl-aarch64.so.1
            """;

    /**
     * A musl program on Debian (musl-gcc, from musl-tools): /lib/ld-musl-x86_64.so.1 links to
     * /usr/lib/x86_64-linux-musl/libc.so, and the map shows the file by that name.
     */
    static final String DEBIAN_MUSL_PROGRAM = """
            5649b6376000-5649b6377000 r--p 00000000 fe:00 9978163                    /tmp/m
            5649b6377000-5649b6378000 r-xp 00001000 fe:00 9978163                    /tmp/m
            7fced4dca000-7fced4ddf000 r--p 00000000 fe:00 909327                     /usr/lib/x86_64-linux-musl/libc.so
            7fced4ddf000-7fced4e42000 r-xp 00015000 fe:00 909327                     /usr/lib/x86_64-linux-musl/libc.so
            7fced4e42000-7fced4e75000 r--p 00078000 fe:00 909327                     /usr/lib/x86_64-linux-musl/libc.so
            7ffcc2609000-7ffcc262a000 rw-p 00000000 00:00 0                          [stack]
            """;

    /** Temurin on Debian (glibc), as this machine's JVM maps it. */
    static final String DEBIAN_GLIBC_JVM = """
            55bad6274000-55bad6275000 r--p 00000000 fe:00 315192                     /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
            55bad6275000-55bad6276000 r-xp 00001000 fe:00 315192                     /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
            7f3465e00000-7f34660e3000 r--p 00000000 fe:00 315638                     /usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so
            7f34660e3000-7f346716f000 r-xp 002e3000 fe:00 315638                     /usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so
            7f3467696000-7f34676a6000 r--p 00000000 fe:00 326591                     /usr/lib/x86_64-linux-gnu/libm.so.6
            7f34676a6000-7f346771a000 r-xp 00010000 fe:00 326591                     /usr/lib/x86_64-linux-gnu/libm.so.6
            7f3467787000-7f34677ad000 r--p 00000000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6
            7f34677ad000-7f3467903000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6
            7f3467974000-7f3467977000 r--p 00000000 fe:00 315605                     /usr/lib/jvm/temurin-25-jdk-amd64/lib/libjli.so
            7f3467977000-7f3467988000 r-xp 00003000 fe:00 315605                     /usr/lib/jvm/temurin-25-jdk-amd64/lib/libjli.so
            7f346799b000-7f346799c000 r--p 00000000 fe:00 325835                     /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
            7f346799c000-7f34679c2000 r-xp 00001000 fe:00 325835                     /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
            """;

    /** CentOS 7 (glibc 2.17): the map shows libc and the loader by their real names. */
    static final String CENTOS7_GLIBC_JVM = """
            00400000-00401000 r-xp 00000000 fd:00 3409024                            /usr/lib/jvm/java-11-openjdk/bin/java
            7f3d0d39d000-7f3d0d3a9000 r-xp 00000000 08:01 7257                       /usr/lib64/libnss_files-2.17.so
            7f3d0e1a0000-7f3d0e364000 r-xp 00000000 fd:00 33615                      /usr/lib64/libc-2.17.so
            7f3d0e9f0000-7f3d0ea12000 r-xp 00000000 fd:00 33607                      /usr/lib64/ld-2.17.so
            """;

    /** glibc on s390x: the loader is ld64.so.1. */
    static final String S390X_GLIBC_JVM = """
            2aa0e980000-2aa0e981000 r-xp 00000000 fd:00 1181730                    /usr/lib/jvm/java-17-openjdk-s390x/bin/java
            3ff9a600000-3ff9a7c4000 r-xp 00000000 fd:00 264013                     /usr/lib/s390x-linux-gnu/libc.so.6
            3ff9aa80000-3ff9aaa6000 r-xp 00000000 fd:00 263991                     /usr/lib/s390x-linux-gnu/ld64.so.1
            """;

    @Test
    void muslJvmsAreMusl() {
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(ALPINE_X86_64));
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(ALPINE_AARCH64));
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(DEBIAN_MUSL_PROGRAM));
        // The loader's file replaced by a package upgrade while the JVM runs.
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(ALPINE_X86_64.replace(
                "/lib/ld-musl-x86_64.so.1", "/lib/ld-musl-x86_64.so.1 (deleted)")));
        // musl's other name for its libc (a symlink some layouts map by).
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(
                "7f5d8b6e9000-7f5d8b735000 r-xp 00014000 00:2f 1118   /lib/libc.musl-x86_64.so.1\n"));
    }

    @Test
    void glibcJvmsAreGlibc() {
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(DEBIAN_GLIBC_JVM));
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(CENTOS7_GLIBC_JVM));
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(S390X_GLIBC_JVM));
        // A glibc JVM that maps musl's files as data (not executable: not its C library), e.g. a
        // tool reading ELF files, is still glibc.
        String reading = DEBIAN_GLIBC_JVM
                + "7f3467a00000-7f3467a14000 r--p 00000000 fe:00 909327                     /usr/lib/x86_64-linux-musl/libc.so\n"
                + "7f3467a20000-7f3467a34000 r--s 00000000 fe:00 909328                     /lib/ld-musl-x86_64.so.1\n";
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(reading));
    }

    /** This JVM (glibc, on a machine that may well have musl installed: the map is what counts). */
    @Test
    void thisJvmIsGlibc() throws Exception {
        String maps = Files.readString(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1);
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(maps), maps);
        assertEquals("linux-x86_64", NativeLoader.detectedPlatform());
        assertEquals("os.name=" + System.getProperty("os.name") + ", os.arch=" + System.getProperty("os.arch")
                + ", glibc (from /proc/self/maps)", NativeLoader.Host.INSTANCE.source);
    }

    @Test
    void mapsWithoutAnAnswer() {
        assertNull(NativeLoader.muslFromMaps(""));
        // A static JVM, or a map cut short: no C library shown.
        assertNull(NativeLoader.muslFromMaps("""
                55bad6274000-55bad6275000 r-xp 00000000 fe:00 315192                     /opt/jdk/bin/java
                7ffd5d1f1000-7ffd5d212000 rw-p 00000000 00:00 0                          [stack]
                """));
        // Both: contradictory, not trusted.
        assertNull(NativeLoader.muslFromMaps(DEBIAN_GLIBC_JVM + ALPINE_X86_64));
    }

    // ---- the fallback: the launcher's ELF program interpreter ----

    /** An ELF file header, a PT_LOAD program header, and a PT_INTERP one naming {@code interp} if not null. */
    static byte[] elf(boolean is64, ByteOrder order, String interp) {
        int ehsize = is64 ? 64 : 52;
        int phsize = is64 ? 56 : 32;
        int phnum = interp == null ? 1 : 2;
        int interpAt = ehsize + phnum * phsize;
        byte[] name = interp == null ? new byte[0] : (interp + "\0").getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(interpAt + name.length + 16).order(order);
        b.put(0, (byte) 0x7f).put(1, (byte) 'E').put(2, (byte) 'L').put(3, (byte) 'F');
        b.put(4, (byte) (is64 ? 2 : 1)).put(5, (byte) (order == ByteOrder.LITTLE_ENDIAN ? 1 : 2)).put(6, (byte) 1);
        if (is64) {
            b.putLong(32, ehsize).putShort(54, (short) phsize).putShort(56, (short) phnum);
        } else {
            b.putInt(28, ehsize).putShort(42, (short) phsize).putShort(44, (short) phnum);
        }
        b.putInt(ehsize, 1); // PT_LOAD
        if (interp != null) {
            int h = ehsize + phsize;
            b.putInt(h, 3); // PT_INTERP
            if (is64) {
                b.putLong(h + 8, interpAt).putLong(h + 32, name.length);
            } else {
                b.putInt(h + 4, interpAt).putInt(h + 16, name.length);
            }
            b.put(interpAt, name);
        }
        return b.array();
    }

    @Test
    void elfInterpreter() throws Exception {
        assertEquals("/lib/ld-musl-x86_64.so.1",
                NativeLoader.elfInterpreter(elf(true, ByteOrder.LITTLE_ENDIAN, "/lib/ld-musl-x86_64.so.1")));
        assertEquals("/lib/ld-linux-aarch64.so.1",
                NativeLoader.elfInterpreter(elf(true, ByteOrder.LITTLE_ENDIAN, "/lib/ld-linux-aarch64.so.1")));
        assertEquals("/lib/ld64.so.1", NativeLoader.elfInterpreter(elf(true, ByteOrder.BIG_ENDIAN, "/lib/ld64.so.1")));
        assertEquals("/lib/ld-musl-i386.so.1",
                NativeLoader.elfInterpreter(elf(false, ByteOrder.LITTLE_ENDIAN, "/lib/ld-musl-i386.so.1")));
        assertNull(NativeLoader.elfInterpreter(elf(true, ByteOrder.LITTLE_ENDIAN, null)), "static: no interpreter");
        byte[] whole = elf(true, ByteOrder.LITTLE_ENDIAN, "/lib/ld-musl-x86_64.so.1");
        assertNull(NativeLoader.elfInterpreter(java.util.Arrays.copyOf(whole, 100)), "cut short");
        assertNull(NativeLoader.elfInterpreter("#!/bin/sh\nexec java \"$@\"\n".repeat(4).getBytes(StandardCharsets.UTF_8)));
        assertNull(NativeLoader.elfInterpreter(new byte[0]));

        // This JDK's launcher: a glibc x86_64 program.
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        byte[] start;
        try (InputStream in = Files.newInputStream(java)) {
            start = in.readNBytes(64 * 1024);
        }
        String interp = NativeLoader.elfInterpreter(start);
        assertTrue(interp != null && interp.endsWith("/ld-linux-x86-64.so.2"), String.valueOf(interp));
    }

    @Test
    void libcFallsBackToTheLauncherThenToGlibc() {
        byte[] muslLauncher = elf(true, ByteOrder.LITTLE_ENDIAN, "/lib/ld-musl-x86_64.so.1");
        byte[] glibcLauncher = elf(true, ByteOrder.LITTLE_ENDIAN, "/lib64/ld-linux-x86-64.so.2");

        // The map decides when it says.
        NativeLoader.Libc l = NativeLoader.libc(ALPINE_X86_64, glibcLauncher, "/opt/java/openjdk/bin/java");
        assertTrue(l.musl);
        assertEquals("musl (from /proc/self/maps)", l.source);
        l = NativeLoader.libc(DEBIAN_GLIBC_JVM, muslLauncher, "/opt/jdk/bin/java");
        assertFalse(l.musl);
        assertEquals("glibc (from /proc/self/maps)", l.source);

        // No map (unreadable), or one that does not say: the launcher's interpreter.
        l = NativeLoader.libc(null, muslLauncher, "/opt/java/openjdk/bin/java");
        assertTrue(l.musl);
        assertEquals("musl (from the program interpreter /lib/ld-musl-x86_64.so.1 of /opt/java/openjdk/bin/java)",
                l.source);
        l = NativeLoader.libc("", glibcLauncher, "/opt/jdk/bin/java");
        assertFalse(l.musl);
        assertEquals("glibc (from the program interpreter /lib64/ld-linux-x86-64.so.2 of /opt/jdk/bin/java)", l.source);

        // Neither: glibc.
        l = NativeLoader.libc(null, null, "/opt/jdk/bin/java");
        assertFalse(l.musl);
        assertTrue(l.source.startsWith("glibc (assumed: "), l.source);
        l = NativeLoader.libc("", elf(true, ByteOrder.LITTLE_ENDIAN, null), "/opt/jdk/bin/java");
        assertFalse(l.musl);
    }

    // ---- the jar's index and the message for a platform it lacks ----

    @Test
    void parseIndex() {
        assertEquals(ALL, NativeLoader.parseIndex(String.join("\n", ALL) + "\n"));
        assertEquals(List.of("linux-x86_64", "windows-x86_64"),
                NativeLoader.parseIndex("# bundled\r\nlinux-x86_64\r\n\r\n  windows-x86_64  \r\n"));
        assertEquals(List.of(), NativeLoader.parseIndex(""));
    }

    @Test
    void unsupportedPlatformIsNamedWithWhatTheJarHolds() {
        String index = String.join("\n", ALL) + "\n";
        String m = NativeLoader.noBundledCopy("linux-riscv64", "os.name=Linux, os.arch=riscv64, glibc (from /proc/self/maps)",
                index);
        assertEquals("bundled copy: none for linux-riscv64 (os.name=Linux, os.arch=riscv64, glibc (from /proc/self/maps))"
                + " in this jar, which bundles: darwin-aarch64, darwin-x86_64, linux-aarch64, linux-aarch64-musl,"
                + " linux-s390x, linux-x86_64, linux-x86_64-musl, windows-x86_64 (if linux-riscv64 is not this"
                + " platform, e.g. musl taken for glibc, pick one of those with -Drocksfilter.platform=NAME)", m);

        // musl with only the glibc library bundled: named as musl, the glibc one listed, not taken.
        m = NativeLoader.noBundledCopy("linux-x86_64-musl", "os.name=Linux, os.arch=amd64, musl (from /proc/self/maps)",
                "linux-x86_64\n");
        assertTrue(m.startsWith("bundled copy: none for linux-x86_64-musl (os.name=Linux, os.arch=amd64, musl"), m);
        assertTrue(m.contains("which bundles: linux-x86_64 ("), m);

        m = NativeLoader.noBundledCopy("windows-x86", "os.name=Windows 10, os.arch=x86", "windows-x86_64\n");
        assertTrue(m.contains("none for windows-x86 (os.name=Windows 10, os.arch=x86)"), m);
        assertTrue(m.contains("which bundles: windows-x86_64 ("), m);
    }

    @Test
    void unsupportedPlatformWithoutAUsefulIndex() {
        String src = "os.name=Linux, os.arch=ppc64le, glibc (from /proc/self/maps)";
        assertEquals("bundled copy: none for linux-ppc64le (" + src + ") in this jar, which has no index"
                + " (/native/platforms.txt)", NativeLoader.noBundledCopy("linux-ppc64le", src, null));
        assertEquals("bundled copy: none for linux-ppc64le (" + src + ") in this jar, which bundles no native library",
                NativeLoader.noBundledCopy("linux-ppc64le", src, "\n"));
        // Listed but absent: a jar whose index and contents disagree.
        assertEquals("bundled copy: none for linux-ppc64le (" + src + ") in this jar: its index lists linux-ppc64le"
                + " but /native/linux-ppc64le/librocksfilter.so is missing (a repackaged jar?)",
                NativeLoader.noBundledCopy("linux-ppc64le", src, "linux-ppc64le\nlinux-x86_64\n"));
    }

    /** The index this build bundled: sorted, this platform in it, every platform's library present. */
    @Test
    void bundledIndexMatchesTheBundledLibraries() {
        String index = NativeLoader.readIndex();
        assertTrue(index != null, "the build writes " + NativeLoader.INDEX_RESOURCE);
        List<String> platforms = NativeLoader.parseIndex(index);
        assertFalse(platforms.isEmpty(), index);
        assertEquals(platforms.stream().sorted().distinct().toList(), platforms, "sorted, each once");
        assertTrue(platforms.contains(NativeLoader.detectedPlatform()), index);
        for (String p : platforms) {
            assertTrue(NativeLoader.class.getResource(NativeLoader.resourceName(p)) != null, p);
        }
    }
}
