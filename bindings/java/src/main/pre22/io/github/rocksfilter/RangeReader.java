package io.github.rocksfilter;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public interface RangeReader {
    void readFully(long offset, ByteBuffer dst) throws IOException;
}
