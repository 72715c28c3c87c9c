package io.github.rocksfilter;

/**
 * Child-JVM entry point for {@link NativeLoadingTest} (not a test). With no argument it loads the
 * library and prints its version and source, or the load error; with {@code use} it uses the
 * bindings twice without loading them first and prints what each use threw.
 */
public final class LoaderProbe {
    private LoaderProbe() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("use")) {
            for (int i = 0; i < 2; i++) {
                try (FilterBuilder b = new FilterBuilder(Policy.BLOOM, 10.0)) {
                    System.out.println("use" + i + "=ok " + b.numEntries());
                } catch (Throwable t) {
                    System.out.println("use" + i + "=" + t);
                }
            }
            return;
        }
        try {
            RocksFilter.loadNativeLibrary();
            System.out.println("version=" + RocksFilter.version());
            System.out.println("source=" + RocksFilter.nativeLibrary());
        } catch (Throwable t) {
            System.out.println("error=" + t);
            System.exit(3);
        }
    }
}
