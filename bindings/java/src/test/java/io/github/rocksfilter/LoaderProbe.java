package io.github.rocksfilter;

/** Child-JVM entry point for {@link NativeLoadingTest} (not a test). Prints the version or the load error. */
public final class LoaderProbe {
    private LoaderProbe() {
    }

    public static void main(String[] args) {
        try {
            RocksFilter.loadNativeLibrary();
            System.out.println("version=" + RocksFilter.version());
        } catch (Throwable t) {
            Throwable root = t;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            System.out.println("error=" + root);
            System.exit(3);
        }
    }
}
