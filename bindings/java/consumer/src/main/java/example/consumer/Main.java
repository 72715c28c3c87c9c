package example.consumer;

import io.github.rocksfilter.Filter;
import io.github.rocksfilter.FilterBuilder;
import io.github.rocksfilter.Policy;
import io.github.rocksfilter.RocksFilter;
import io.github.rocksfilter.RocksFilterException;
import io.github.rocksfilter.Sst;
import io.github.rocksfilter.Status;

import java.nio.file.Path;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Builds a Ribbon filter for 10,000 keys, loads it back and queries present and absent keys; then
 * opens an SST file that does not exist, to show the error the bindings give.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int n = 10_000;
        byte[] block;
        try (FilterBuilder builder = new FilterBuilder(Policy.RIBBON, 10.0)) {
            for (int i = 0; i < n; i++) {
                builder.add(("key" + i).getBytes(UTF_8));
            }
            block = builder.finish();
        }
        try (Filter filter = Filter.load(block)) {
            int found = 0;
            int falsePositives = 0;
            for (int i = 0; i < n; i++) {
                found += filter.mayMatch(("key" + i).getBytes(UTF_8)) ? 1 : 0;
                falsePositives += filter.mayMatch(("absent" + i).getBytes(UTF_8)) ? 1 : 0;
            }
            System.out.println(filter.kind() + " of " + block.length + " bytes: " + found + "/" + n
                    + " keys found, " + falsePositives + "/" + n + " absent keys matched");
            System.out.println("native library: " + RocksFilter.nativeLibrary());
            // A filter never loses a key; at 10 bits per key about 1% of absent keys match.
            if (found != n || falsePositives > n / 30) {
                System.err.println("unexpected filter behaviour");
                System.exit(1);
            }
        }
        try (Sst sst = Sst.open(Path.of("missing.sst"))) {
            System.err.println("opened a missing file: " + sst.filterType());
            System.exit(1);
        } catch (RocksFilterException e) {
            // The status as an enum; the message is the native library's, naming the status once.
            System.out.println("Sst.open(missing.sst): status=" + e.status() + " message=\"" + e.getMessage() + "\"");
            if (e.status() != Status.IO_ERROR) {
                System.exit(1);
            }
        }
    }
}
