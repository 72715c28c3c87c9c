package io.github.rocksfilter;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds and loads the native library, in this order:
 * <ol>
 * <li>the system property {@value #LIBRARY_PATH_PROPERTY}: the library file, or a directory holding
 *     it (when set, nothing else is tried);</li>
 * <li>each directory of {@code java.library.path} ({@link System#loadLibrary} semantics);</li>
 * <li>the copy bundled in the jar for this platform ({@code /native/<platform>/<library file>}),
 *     extracted to a private temporary file (owner-only permissions) that is deleted once loaded;</li>
 * <li>the system dynamic linker's own search ({@code ld.so.cache}, system directories).</li>
 * </ol>
 * A failure says what was tried, each path, and what to do. Both backends load through here
 * (Java 11 code): the FFM backend ({@code Native}) opens the file as a {@code SymbolLookup}, the JNI
 * backend ({@link JniNative}) with {@link System#load}; {@link Opener} is that difference.
 *
 * <p><b>Platforms.</b> The jar holds one library per platform, in a directory named
 * {@code <os>-<arch>[-musl]}: {@code linux-x86_64}, {@code linux-aarch64}, {@code linux-x86_64-musl},
 * {@code linux-aarch64-musl}, {@code linux-s390x}, {@code windows-x86_64}, {@code darwin-x86_64},
 * {@code darwin-aarch64} (whichever the build bundled; {@value #INDEX_RESOURCE} lists them, one a
 * line). The file is {@code librocksfilter.so} on Linux, {@code librocksfilter.dylib} on macOS,
 * {@code rocksfilter.dll} on Windows. {@link #platform(String, String, boolean)} maps
 * {@code os.name} and {@code os.arch} to that name: {@code os.name} {@code Linux} is {@code linux},
 * {@code Mac OS X} and {@code Darwin} are {@code darwin}, {@code Windows ...} is {@code windows};
 * {@code os.arch} {@code amd64}, {@code x86_64} and {@code x64} are {@code x86_64}, {@code aarch64}
 * and {@code arm64} are {@code aarch64}, {@code x86} and {@code i386} to {@code i686} are {@code x86};
 * any other value is kept, lower-cased, without the characters other than letters, digits and
 * {@code _} (e.g. {@code ppc64le}, {@code riscv64}), so that the error names it.
 *
 * <p><b>musl.</b> On Linux, a JVM built for musl (Alpine) loads the {@code -musl} library and never
 * the glibc one, and a glibc JVM the glibc one, whatever C libraries the machine has installed (a
 * Debian with {@code musl-tools} has {@code /lib/ld-musl-x86_64.so.1} too). What decides is the C
 * library this process runs on, as {@code /proc/self/maps} shows it (see {@link #muslFromMaps}); when
 * that file cannot be read or does not say, the program interpreter of the JVM's launcher
 * ({@code ${java.home}/bin/java}, see {@link #elfInterpreter}); when neither says, glibc.
 *
 * <p><b>Override.</b> The system property {@value #PLATFORM_PROPERTY} names the platform directory
 * to load instead of the detected one, e.g. {@code -Drocksfilter.platform=linux-x86_64-musl}.
 */
final class NativeLoader {
    private NativeLoader() {
    }

    /** System property naming the library file (or its directory); checked first. */
    static final String LIBRARY_PATH_PROPERTY = "rocksfilter.library.path";
    /** System property: {@code false} skips the bundled copy. */
    static final String BUNDLED_PROPERTY = "rocksfilter.bundled";
    /** System property: directory the bundled copy is extracted to (default {@code java.io.tmpdir}). */
    static final String TMPDIR_PROPERTY = "rocksfilter.tmpdir";
    /** System property: the platform directory whose bundled copy is loaded, instead of the detected one. */
    static final String PLATFORM_PROPERTY = "rocksfilter.platform";
    /** The jar's list of the platforms it bundles a library for, one directory name a line, sorted. */
    static final String INDEX_RESOURCE = "/native/platforms.txt";

    static final String FILE_NAME = System.mapLibraryName("rocksfilter");

    /**
     * How a backend loads the library file: each method throws {@link IllegalArgumentException} or
     * {@link UnsatisfiedLinkError} when the file cannot be loaded.
     *
     * @param <T> what a loaded library is to the backend (a symbol lookup, or nothing)
     */
    interface Opener<T> {
        /** Loads the library file {@code file}. */
        T open(Path file);

        /** Loads {@code fileName} through the system dynamic linker's search. */
        T openSystem(String fileName);
    }

    /** A loaded library and a description of where it came from. */
    static final class Loaded<T> {
        final T library;
        final String source;

        Loaded(T library, String source) {
            this.library = library;
            this.source = source;
        }
    }

    /**
     * The platform whose bundled copy is loaded: {@value #PLATFORM_PROPERTY} when set, otherwise
     * {@link #detectedPlatform()}.
     */
    static String platform() {
        String override = platformOverride();
        return override != null ? override : detectedPlatform();
    }

    /** This JVM's platform as the bundled copies' directories name it, e.g. {@code linux-x86_64}. */
    static String detectedPlatform() {
        return Host.INSTANCE.platform;
    }

    /**
     * What the platform was worked out from, for messages, e.g. {@code os.name=Linux, os.arch=amd64,
     * glibc (from /proc/self/maps)}.
     */
    static String platformSource() {
        String override = platformOverride();
        return override != null
                ? "set by -D" + PLATFORM_PROPERTY + "; detected: " + Host.INSTANCE.platform + " from " + Host.INSTANCE.source
                : Host.INSTANCE.source;
    }

    private static String platformOverride() {
        String p = System.getProperty(PLATFORM_PROPERTY);
        return p == null || p.isBlank() ? null : p.strip();
    }

    /**
     * The directory name of the platform {@code osName}/{@code osArch} (the values of the system
     * properties {@code os.name} and {@code os.arch}), with {@code -musl} appended on Linux when
     * {@code musl} (ignored elsewhere).
     */
    static String platform(String osName, String osArch, boolean musl) {
        String os = os(osName);
        return os + "-" + arch(osArch) + (musl && os.equals("linux") ? "-musl" : "");
    }

    /** {@code os.name} as a platform's first part: {@code linux}, {@code darwin}, {@code windows}, or the name itself. */
    static String os(String osName) {
        String os = osName.toLowerCase(Locale.ROOT).strip();
        if (os.startsWith("linux")) {
            return "linux";
        }
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            return "darwin";
        }
        if (os.startsWith("windows")) {
            return "windows";
        }
        return normalized(os);
    }

    /** {@code os.arch} as a platform's second part: {@code x86_64}, {@code aarch64}, {@code x86}, or the name itself. */
    static String arch(String osArch) {
        String arch = osArch.toLowerCase(Locale.ROOT).strip();
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x86-64":
            case "x64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686":
                return "x86";
            default:
                return normalized(arch);
        }
    }

    private static String normalized(String s) {
        String n = s.replaceAll("[^a-z0-9_]+", "");
        return n.isEmpty() ? "unknown" : n;
    }

    /**
     * The library's file name on {@code platform}'s operating system (not necessarily this JVM's):
     * {@code rocksfilter.dll} on Windows, {@code librocksfilter.dylib} on macOS,
     * {@code librocksfilter.so} elsewhere.
     */
    static String libraryFileName(String platform) {
        if (platform.startsWith("windows-")) {
            return "rocksfilter.dll";
        }
        if (platform.startsWith("darwin-")) {
            return "librocksfilter.dylib";
        }
        return "librocksfilter.so";
    }

    /** The jar resource holding the bundled library for {@code platform}. */
    static String resourceName(String platform) {
        return "/native/" + platform + "/" + libraryFileName(platform);
    }

    /**
     * Whether {@code maps} (the text of a process's {@code /proc/self/maps}) shows the process running
     * on musl: {@code TRUE} when musl's dynamic loader / C library is mapped executable
     * ({@code ld-musl-<arch>.so.1}, {@code libc.musl-<arch>.so.1}, or {@code libc.so}, the file
     * musl's loader links to on distributions such as Debian's {@code musl} package or Void, which
     * the map shows by its real name), {@code FALSE} when glibc's is ({@code libc.so.6},
     * {@code ld-linux-*}, {@code ld64.so.*}, or before glibc 2.34 the real names {@code libc-2.*.so}
     * and {@code ld-2.*.so}), {@code null} when neither or both are (no answer).
     * Only the C library that this process runs on is mapped: a musl loader merely installed on a
     * glibc machine is not.
     */
    static Boolean muslFromMaps(String maps) {
        boolean musl = false;
        boolean glibc = false;
        for (String line : maps.split("\\R")) {
            // address perms offset dev inode [path]
            String[] f = line.strip().split("\\s+", 6);
            if (f.length < 6 || f[1].indexOf('x') < 0) {
                continue;
            }
            String path = f[5];
            if (path.endsWith(" (deleted)")) {
                path = path.substring(0, path.length() - " (deleted)".length());
            }
            String name = path.substring(path.lastIndexOf('/') + 1);
            if (name.startsWith("ld-musl-") || name.startsWith("libc.musl-") || name.equals("libc.so")) {
                musl = true;
            } else if (name.equals("libc.so.6") || name.startsWith("ld-linux") || name.startsWith("ld64.so.")
                    || name.startsWith("libc-2.") || name.startsWith("ld-2.")) {
                glibc = true;
            }
        }
        return musl == glibc ? null : Boolean.valueOf(musl);
    }

    /**
     * The program interpreter ({@code PT_INTERP}) named by the ELF file starting with {@code elf}
     * (32- or 64-bit, either byte order), or {@code null} if it names none or {@code elf} is not ELF
     * or is cut short: e.g. {@code /lib/ld-musl-x86_64.so.1} for a musl program,
     * {@code /lib64/ld-linux-x86-64.so.2} for a glibc one.
     */
    static String elfInterpreter(byte[] elf) {
        if (elf.length < 52 || elf[0] != 0x7f || elf[1] != 'E' || elf[2] != 'L' || elf[3] != 'F'
                || (elf[4] != 1 && elf[4] != 2) || (elf[5] != 1 && elf[5] != 2)) {
            return null;
        }
        boolean is64 = elf[4] == 2;
        ByteBuffer b = ByteBuffer.wrap(elf).order(elf[5] == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        if (is64 && elf.length < 64) {
            return null;
        }
        long phoff = is64 ? b.getLong(32) : b.getInt(28) & 0xffffffffL;
        int phentsize = b.getShort(is64 ? 54 : 42) & 0xffff;
        int phnum = b.getShort(is64 ? 56 : 44) & 0xffff;
        int phsize = is64 ? 56 : 32;
        if (phentsize < phsize) {
            return null;
        }
        for (int i = 0; i < phnum; i++) {
            long at = phoff + (long) i * phentsize;
            if (at < 0 || at + phsize > elf.length) {
                return null;
            }
            int h = (int) at;
            if (b.getInt(h) != 3) { // PT_INTERP
                continue;
            }
            long offset = is64 ? b.getLong(h + 8) : b.getInt(h + 4) & 0xffffffffL;
            long size = is64 ? b.getLong(h + 32) : b.getInt(h + 16) & 0xffffffffL;
            if (offset < 0 || size <= 0 || offset + size > elf.length) {
                return null;
            }
            int end = (int) offset;
            while (end < offset + size && elf[end] != 0) {
                end++;
            }
            return new String(elf, (int) offset, end - (int) offset, StandardCharsets.ISO_8859_1);
        }
        return null;
    }

    /** Which C library a Linux JVM runs on, and how that was found out. */
    static final class Libc {
        final boolean musl;
        final String source;

        Libc(boolean musl, String source) {
            this.musl = musl;
            this.source = source;
        }
    }

    /**
     * Decides musl or glibc from {@code maps} ({@code /proc/self/maps}, {@code null} if unreadable),
     * else from {@code launcher}, the start of the JVM's launcher {@code launcherPath} ({@code null}
     * if unreadable): its ELF program interpreter; else glibc (no evidence of musl either way: the
     * mere presence of musl files on the machine is none).
     */
    static Libc libc(String maps, byte[] launcher, String launcherPath) {
        Boolean musl = maps == null ? null : muslFromMaps(maps);
        if (musl != null) {
            return new Libc(musl, (musl ? "musl" : "glibc") + " (from /proc/self/maps)");
        }
        String interp = launcher == null ? null : elfInterpreter(launcher);
        if (interp != null) {
            boolean m = interp.substring(interp.lastIndexOf('/') + 1).startsWith("ld-musl-");
            return new Libc(m, (m ? "musl" : "glibc") + " (from the program interpreter " + interp + " of "
                    + launcherPath + ")");
        }
        return new Libc(false, "glibc (assumed: neither /proc/self/maps nor " + launcherPath + " shows the C library)");
    }

    /** This JVM's platform, worked out once. */
    static final class Host {
        static final Host INSTANCE = new Host();

        final String platform;
        final String source;

        private Host() {
            String osName = System.getProperty("os.name", "");
            String osArch = System.getProperty("os.arch", "");
            String where = "os.name=" + osName + ", os.arch=" + osArch;
            if (os(osName).equals("linux")) {
                String maps = readMaps();
                Path launcher = Paths.get(System.getProperty("java.home", ""), "bin", "java");
                byte[] start = maps == null || muslFromMaps(maps) == null ? readStart(launcher) : null;
                Libc libc = libc(maps, start, launcher.toString());
                platform = platform(osName, osArch, libc.musl);
                source = where + ", " + libc.source;
            } else {
                platform = platform(osName, osArch, false);
                source = where;
            }
        }

        private static String readMaps() {
            try {
                // ISO-8859-1: any byte of a path is a character (no decoding failure).
                return new String(Files.readAllBytes(Paths.get("/proc/self/maps")), StandardCharsets.ISO_8859_1);
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        /** The first 64 KiB of {@code file} (an ELF file's headers and interpreter lie there), or {@code null}. */
        private static byte[] readStart(Path file) {
            try (InputStream in = Files.newInputStream(file)) {
                return in.readNBytes(64 * 1024);
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    /** The platform directory names listed in {@code index} (the text of {@value #INDEX_RESOURCE}). */
    static List<String> parseIndex(String index) {
        List<String> platforms = new ArrayList<>();
        for (String line : index.split("\\R")) {
            String p = line.strip();
            if (!p.isEmpty() && !p.startsWith("#")) {
                platforms.add(p);
            }
        }
        return platforms;
    }

    /** The text of this jar's {@value #INDEX_RESOURCE}, or {@code null} if it has none. */
    static String readIndex() {
        try (InputStream in = NativeLoader.class.getResourceAsStream(INDEX_RESOURCE)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * What to say when the jar has no library for {@code platform} (worked out from
     * {@code platformSource}), given the jar's index {@code index} ({@code null} if it has none).
     */
    static String noBundledCopy(String platform, String platformSource, String index) {
        StringBuilder m = new StringBuilder("bundled copy: none for ").append(platform)
                .append(" (").append(platformSource).append(") in this jar");
        List<String> held = index == null ? null : parseIndex(index);
        if (held == null) {
            m.append(", which has no index (").append(INDEX_RESOURCE).append(")");
        } else if (held.isEmpty()) {
            m.append(", which bundles no native library");
        } else if (held.contains(platform)) {
            m.append(": its index lists ").append(platform).append(" but ").append(resourceName(platform))
                    .append(" is missing (a repackaged jar?)");
        } else {
            m.append(", which bundles: ").append(String.join(", ", held)).append(" (if ").append(platform)
                    .append(" is not this platform, e.g. musl taken for glibc, pick one of those with -D")
                    .append(PLATFORM_PROPERTY).append("=NAME)");
        }
        return m.toString();
    }

    static <T> Loaded<T> load(Opener<T> opener) {
        List<String> tried = new ArrayList<>();

        // 1. Explicit property: a file or a directory. When set, it is the only place looked at.
        String explicit = System.getProperty(LIBRARY_PATH_PROPERTY);
        if (explicit != null && !explicit.isBlank()) {
            Path p = Paths.get(explicit).toAbsolutePath();
            if (Files.isDirectory(p)) {
                p = p.resolve(FILE_NAME);
            }
            String what = "-D" + LIBRARY_PATH_PROPERTY + "=" + explicit;
            if (!Files.isRegularFile(p)) {
                throw new UnsatisfiedLinkError("rocksfilter: " + what + " does not name an existing file"
                        + " (looked for " + p + "). Give the path of " + FILE_NAME
                        + " or of the directory holding it, or leave the property unset to use the copy"
                        + " bundled in the jar.");
            }
            try {
                return new Loaded<>(opener.open(p), what + " (" + p + ")");
            } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
                throw linkError("rocksfilter: could not load " + p + " (from " + what + "): " + e.getMessage()
                        + ". Is it a " + platform() + " build of librocksfilter?", e);
            }
        }
        tried.add("-D" + LIBRARY_PATH_PROPERTY + ": not set");

        // 2. java.library.path, as System.loadLibrary searches it.
        String libPath = System.getProperty("java.library.path", "");
        for (String dir : libPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Paths.get(dir, FILE_NAME).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                tried.add("java.library.path: " + p + " (absent)");
                continue;
            }
            try {
                return new Loaded<>(opener.open(p), "java.library.path (" + p + ")");
            } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
                tried.add("java.library.path: " + p + " (failed to load: " + e.getMessage() + ")");
            }
        }
        if (libPath.isEmpty()) {
            tried.add("java.library.path: empty");
        }

        // 3. The copy bundled in the jar for this platform.
        String platform = platform();
        String resource = resourceName(platform);
        URL url = NativeLoader.class.getResource(resource);
        if (!"false".equalsIgnoreCase(System.getProperty(BUNDLED_PROPERTY, "true"))) {
            if (url == null) {
                tried.add(noBundledCopy(platform, platformSource(), readIndex()));
            } else {
                Path dir = Paths.get(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
                Path tmp = null;
                try (InputStream in = url.openStream()) {
                    tmp = extract(in, dir);
                    T lib = opener.open(tmp);
                    return new Loaded<>(lib, "bundled " + platform + " copy (" + url + ", extracted to " + tmp + ")");
                } catch (IOException | IllegalArgumentException | UnsatisfiedLinkError e) {
                    tried.add("bundled copy " + resource + " extracted to " + (tmp == null ? dir : tmp)
                            + " (failed: " + e.getMessage() + "; a noexec temporary directory? set -D"
                            + TMPDIR_PROPERTY + "=/some/dir)");
                } finally {
                    deleteOnceLoaded(tmp);
                }
            }
        } else {
            tried.add("bundled copy: skipped (-D" + BUNDLED_PROPERTY + "=false)");
        }

        // 4. The system dynamic linker's own search (ld.so.cache, system directories).
        try {
            return new Loaded<>(opener.openSystem(FILE_NAME), "system dynamic linker (" + FILE_NAME + ")");
        } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
            tried.add("system dynamic linker (" + FILE_NAME + " via ld.so.cache, system directories): not found");
        }

        throw new UnsatisfiedLinkError("rocksfilter: could not load the native library " + FILE_NAME + " ("
                + platform + "). Tried, in order:\n  " + String.join("\n  ", tried)
                + "\nBuild it from the rocksfilter repository (cargo build --release: target/release/" + FILE_NAME
                + ") and run with -D" + LIBRARY_PATH_PROPERTY + "=/path/to/" + FILE_NAME
                + " (the file or its directory), or add its directory to java.library.path.");
    }

    /**
     * Copies {@code in} to a new file in {@code dir} that only the owner can read and write (on
     * POSIX file systems), and returns its path.
     */
    static Path extract(InputStream in, Path dir) throws IOException {
        Files.createDirectories(dir);
        FileAttribute<?>[] attrs = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        String suffix = FILE_NAME.substring(FILE_NAME.lastIndexOf('.'));
        Path tmp = Files.createTempFile(dir, "librocksfilter-", suffix, attrs);
        // Write into the file just created (Files.copy with REPLACE_EXISTING would re-create it with
        // the default, wider permissions).
        try (OutputStream out = Files.newOutputStream(tmp)) {
            in.transferTo(out);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }

    /**
     * Deletes the extracted file: a loaded library stays mapped after its file is unlinked (POSIX), so
     * nothing is left behind even if the JVM is killed. Where deleting fails (Windows keeps a loaded
     * DLL's file open), it is deleted at exit instead.
     */
    private static void deleteOnceLoaded(Path tmp) {
        if (tmp == null) {
            return;
        }
        try {
            Files.deleteIfExists(tmp);
        } catch (IOException e) {
            tmp.toFile().deleteOnExit();
        }
    }

    private static UnsatisfiedLinkError linkError(String msg, Throwable cause) {
        UnsatisfiedLinkError e = new UnsatisfiedLinkError(msg);
        e.initCause(cause);
        return e;
    }
}
