/**
 * rocksfilter: build, load and query RocksDB filter blocks, and read the filters of RocksDB SST
 * files, through the native library's C ABI (Foreign Function &amp; Memory API): {@code FilterBuilder},
 * {@code Filter} and {@code Sst} (an opened SST file's filter; {@code SstFilter} is its deprecated
 * former name), and {@code Segments}, their calls on {@code MemorySegment}s.
 *
 * <p>Run with {@code --enable-native-access=io.github.rocksfilter} on the module path.
 */
module io.github.rocksfilter {
    exports io.github.rocksfilter;
}
