package io.github.rocksfilter;

/**
 * The base (pre-JDK 22) half of the multi-release jar. The real classes live in
 * {@code META-INF/versions/22/}; on an older JDK these stand-ins, compiled for Java 8, are loaded
 * instead and every entry point throws {@link #unsupported()} with a clear message rather than
 * letting the JVM fail with an {@link UnsupportedClassVersionError}.
 */
final class JdkCheck {
    private JdkCheck() {
    }

    /** The running JDK's feature version (8 for "1.8", 17 for "17.0.15"). */
    static int feature() {
        String v = System.getProperty("java.specification.version", "0");
        if (v.startsWith("1.")) {
            v = v.substring(2);
        }
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(v.substring(0, end));
    }

    static String message() {
        int f = feature();
        if (f < 22) {
            return "rocksfilter needs JDK 22 or newer (found " + f + "): it calls its native library through the"
                    + " Foreign Function & Memory API (java.lang.foreign, final in JDK 22). Run on JDK 22+.";
        }
        return "rocksfilter: running on JDK " + f + " but the jar's JDK 22 classes (META-INF/versions/22/) were not"
                + " used: keep the rocksfilter jar as it is, or, if it was repackaged (shaded or fat jar), keep"
                + " META-INF/versions/22/ and 'Multi-Release: true' in the manifest.";
    }

    static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException(message());
    }
}
