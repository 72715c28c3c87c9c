package io.github.rocksfilter;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
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
 * <li>the copy bundled in the jar for this platform ({@code /native/<os>-<arch>/}), extracted to a
 *     private temporary file (owner-only permissions) that is deleted once loaded;</li>
 * <li>the system dynamic linker's own search ({@code ld.so.cache}, system directories).</li>
 * </ol>
 * A failure says what was tried, each path, and what to do. Both backends load through here
 * (Java 11 code): the FFM backend ({@link Native}) opens the file as a {@code SymbolLookup}, the JNI
 * backend ({@link JniNative}) with {@link System#load}; {@link Opener} is that difference.
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

    /** This platform as the bundled copies' directory names it, e.g. {@code linux-x86_64}. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux"
                : os.startsWith("mac") || os.startsWith("darwin") ? "darwin"
                : os.startsWith("windows") ? "windows"
                : os.replaceAll("[^a-z0-9]+", "");
        String a = arch.equals("amd64") || arch.equals("x86_64") || arch.equals("x64") ? "x86_64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64"
                : arch.replaceAll("[^a-z0-9_]+", "");
        return o + "-" + a;
    }

    /** The jar resource holding the bundled library for {@code platform}. */
    static String resourceName(String platform) {
        return "/native/" + platform + "/" + FILE_NAME;
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
                tried.add("bundled copy: none for " + platform + " in this jar (it bundles linux-x86_64)");
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
