package io.github.rocksfilter.flinktest;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.source.legacy.RichSourceFunction;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.Collector;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;
import org.rocksdb.TableProperties;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Step 1 of the Flink checkpoint test (JDK 17, Flink on the class path): runs a keyed job in a local
 * MiniCluster with the RocksDB state backend (Bloom filters, incremental checkpoints to a local
 * directory), waits for a checkpoint completed after every record was processed, cancels the job
 * (the checkpoint is retained), lists that checkpoint's files from its {@code _metadata}, picks
 * the SST files among them by the table magic number, and iterates each with the
 * {@link SstFileReader} of the RocksDB classes Flink bundles. It writes, into the work directory:
 * {@code keys/N.bin} (each key iterated: a 4-byte big-endian length, then the bytes) and
 * {@code manifest.tsv} (one line per SST file), plus {@code layout.properties} (where the user key
 * sits in Flink's RocksDB keys), for {@link FilterCheck} (step 2).
 *
 * <p>Usage: {@code FlinkCheckpointDump WORK_DIR [KEYS]}
 */
public final class FlinkCheckpointDump {
    /** The block-based table magic number (the last 8 bytes of an SST file, little-endian). */
    static final long BLOCK_BASED_TABLE_MAGIC = 0x88e241b785f4cff7L;
    static final int PARALLELISM = 2;
    static final int MAX_PARALLELISM = 128;
    /** Entries per key in the MapState. */
    static final int MAP_ENTRIES = 2;

    // The source and the main thread share these (the MiniCluster runs in this JVM, and the
    // job's classes come from the application class loader).
    static final CountDownLatch COMPLETED = new CountDownLatch(1);
    /** The first checkpoint whose barrier the source emitted after its last record. */
    static volatile long firstFullCheckpoint = -1;
    static volatile long completedFullCheckpoint = -1;

    private FlinkCheckpointDump() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            System.out.println("FAIL flink step: " + t);
            t.printStackTrace();
            System.out.flush();
            // The MiniCluster's threads would keep the JVM alive.
            Runtime.getRuntime().halt(1);
        }
        System.out.flush();
        // The MiniCluster's and RocksDB's threads need not be waited for.
        System.exit(0);
    }

    static void run(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: FlinkCheckpointDump WORK_DIR [KEYS]");
            System.exit(2);
        }
        Path work = Paths.get(args[0]).toAbsolutePath();
        long keys = args.length > 1 ? Long.parseLong(args[1]) : 150_000;
        Files.createDirectories(work);
        Path checkpoints = work.resolve("checkpoints");
        Path rocksLocal = work.resolve("rocksdb-local");
        Path keysDir = Files.createDirectories(work.resolve("keys"));

        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("256mb"));
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(CheckpointingOptions.FILE_MERGING_ENABLED, false);
        // Every file of the checkpoint as a file of its own (none inlined into _metadata).
        conf.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("0b"));
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(1000));
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1);
        conf.set(RocksDBOptions.LOCAL_DIRECTORIES, rocksLocal.toString());
        // Bloom filters on every column family, as a Flink user turns them on.
        conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
        conf.set(RocksDBConfigurableOptions.BLOOM_FILTER_BITS_PER_KEY, 10.0);
        conf.set(RocksDBConfigurableOptions.BLOOM_FILTER_BLOCK_BASED_MODE, false);
        // Small memtables and files: several SST files per column family.
        conf.set(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE, MemorySize.parse("1mb"));
        conf.set(RocksDBConfigurableOptions.TARGET_FILE_SIZE_BASE, MemorySize.parse("1mb"));

        // The job's graph, from the DataStream API; the MiniCluster runs it (no client, no REST).
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(PARALLELISM);
        env.setMaxParallelism(MAX_PARALLELISM);
        env.addSource(new KeySource(keys), "keys", Types.LONG).setParallelism(1)
                .keyBy(k -> k, Types.LONG)
                .process(new KeepState()).name("keep-state");
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName("rocksfilter-flink-checkpoint");

        long t0 = System.nanoTime();
        MiniClusterConfiguration clusterConf = new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .setCommonBindAddress("127.0.0.1")
                .withRandomPorts()
                .build();
        MiniCluster cluster = new MiniCluster(clusterConf);
        cluster.start();
        JobID jobId = cluster.submitJob(graph.getJobGraph()).get().getJobID();
        System.out.printf("flink: MiniCluster started, job %s submitted: %d keys, source parallelism 1, state parallelism %d, max parallelism %d%n",
                jobId, keys, PARALLELISM, MAX_PARALLELISM);
        while (!COMPLETED.await(1, TimeUnit.SECONDS)) {
            JobStatus status = cluster.getJobStatus(jobId).get();
            if (status.isTerminalState()) {
                JobResult result = cluster.requestJobResult(jobId).get();
                throw new IllegalStateException("job ended (" + status + ") before a full checkpoint completed",
                        result.getSerializedThrowable()
                                .map(t -> t.deserializeError(FlinkCheckpointDump.class.getClassLoader()))
                                .orElse(null));
            }
            if (System.nanoTime() - t0 > TimeUnit.MINUTES.toNanos(5)) {
                throw new IllegalStateException("no checkpoint completed after the last record within 5 minutes");
            }
        }
        long checkpointId = completedFullCheckpoint;
        double jobSeconds = (System.nanoTime() - t0) / 1e9;
        cluster.cancelJob(jobId).get(2, TimeUnit.MINUTES);
        // Wait until the job is cancelled: the retained checkpoint is complete on disk by then.
        JobStatus end = cluster.requestJobResult(jobId).get(2, TimeUnit.MINUTES).getJobStatus().orElse(null);
        cluster.closeAsync().get(2, TimeUnit.MINUTES);
        System.out.printf("flink: checkpoint %d completed after the last record; job %s, MiniCluster closed (checkpoint retained)%n",
                checkpointId, end);
        System.out.printf("time: flink job (start to checkpoint %d): %.1f s%n", checkpointId, jobSeconds);

        // ---- the checkpoint's files, from its _metadata ----
        long t1 = System.nanoTime();
        Path chk = checkpoints.resolve(jobId.toString()).resolve("chk-" + checkpointId);
        Path metadataFile = chk.resolve("_metadata");
        CheckpointMetadata metadata;
        try (DataInputStream in = new DataInputStream(Files.newInputStream(metadataFile))) {
            metadata = Checkpoints.loadCheckpointMetadata(in, FlinkCheckpointDump.class.getClassLoader(),
                    chk.toString());
        }
        // RocksDB's file name -> the checkpoint's file, for each subtask of each operator.
        List<CheckpointFile> files = new ArrayList<>();
        int keyedHandles = 0;
        for (OperatorState op : metadata.getOperatorStates()) {
            for (Map.Entry<Integer, OperatorSubtaskState> sub : op.getSubtaskStates().entrySet()) {
                for (KeyedStateHandle h : sub.getValue().getManagedKeyedState()) {
                    if (!(h instanceof IncrementalRemoteKeyedStateHandle)) {
                        throw new IllegalStateException("not an incremental RocksDB handle: " + h.getClass().getName());
                    }
                    keyedHandles++;
                    IncrementalRemoteKeyedStateHandle inc = (IncrementalRemoteKeyedStateHandle) h;
                    for (HandleAndLocalPath f : inc.getSharedState()) {
                        files.add(new CheckpointFile(op.getOperatorName().orElse("?"), sub.getKey(), f.getLocalPath(),
                                "shared", f.getHandle()));
                    }
                    for (HandleAndLocalPath f : inc.getPrivateState()) {
                        files.add(new CheckpointFile(op.getOperatorName().orElse("?"), sub.getKey(), f.getLocalPath(),
                                "private", f.getHandle()));
                    }
                }
            }
        }
        System.out.printf("checkpoint: %s: %d keyed state handles (incremental), %d files%n",
                chk, keyedHandles, files.size());
        if (keyedHandles == 0) {
            throw new IllegalStateException("the checkpoint holds no keyed state");
        }

        // ---- the SST files among them: by the table magic number, not by name ----
        List<CheckpointFile> ssts = new ArrayList<>();
        Path inlined = Files.createDirectories(work.resolve("inlined"));
        for (CheckpointFile f : files) {
            Path onDisk;
            if (f.handle instanceof FileStateHandle) {
                onDisk = Paths.get(((FileStateHandle) f.handle).getFilePath().toUri());
            } else { // not expected with a small-file threshold of 0: copy the bytes out
                onDisk = inlined.resolve(f.subtask + "-" + f.localName);
                try (InputStream in = f.handle.openInputStream()) {
                    Files.copy(in, onDisk);
                }
                System.out.printf("checkpoint: %s of subtask %d is inlined in _metadata (%s): copied to %s%n",
                        f.localName, f.subtask, f.handle.getClass().getSimpleName(), onDisk);
            }
            f.path = onDisk;
            if (hasTableMagic(onDisk)) {
                ssts.add(f);
            }
        }
        // Files with the magic number under the job's checkpoint directory that _metadata does not
        // name (left from a subsumed checkpoint, not yet deleted): listed, not checked.
        Set<Path> named = new TreeSet<>();
        for (CheckpointFile f : ssts) {
            named.add(f.path.toAbsolutePath().normalize());
        }
        List<Path> unnamed = new ArrayList<>();
        try (Stream<Path> all = Files.walk(checkpoints.resolve(jobId.toString()))) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                if (!named.contains(p.toAbsolutePath().normalize()) && hasTableMagic(p)) {
                    unnamed.add(p);
                }
            }
        }
        System.out.printf("checkpoint: %d of its %d files are SST files (magic 0x%016x); %d other SST-magic files under the job's directory%n",
                ssts.size(), files.size(), BLOCK_BASED_TABLE_MAGIC, unnamed.size());
        for (Path p : unnamed) {
            System.out.println("checkpoint:   not in _metadata (not checked): " + p);
        }
        double listSeconds = (System.nanoTime() - t1) / 1e9;
        System.out.printf("time: list checkpoint files from _metadata: %.2f s%n", listSeconds);

        // ---- iterate each with the SstFileReader of Flink's RocksDB ----
        long t2 = System.nanoTime();
        ssts.sort(Comparator.comparing((CheckpointFile f) -> f.subtask).thenComparing(f -> f.localName));
        int prefixBytes = CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(MAX_PARALLELISM);
        long[][] absentPool = absentKeysByKeyGroup(keys, 4096);
        int[] poolNext = new int[MAX_PARALLELISM];
        long totalAbsent = 0;
        long totalKeys = 0;
        long layoutOk = 0;
        long keyGroupOk = 0;
        Map<String, Long> perColumnFamily = new LinkedHashMap<>();
        try (PrintWriter manifest = new PrintWriter(Files.newBufferedWriter(work.resolve("manifest.tsv")));
             Options options = new Options()) {
            manifest.println("# index\tsst_path\trocksdb_name\tsubtask\tcolumn_family\tkeys\tkeys_file\tabsent_keys\tabsent_file\tfilter_policy\tprefix_extractor");
            int index = 0;
            for (CheckpointFile f : ssts) {
                Path keysFile = keysDir.resolve(index + ".bin");
                Path absentFile = keysDir.resolve(index + ".absent.bin");
                java.util.Arrays.fill(poolNext, 0);
                long n = 0;
                long absent = 0;
                String cf;
                String filterPolicy;
                String prefixExtractor;
                long numEntries;
                try (SstFileReader reader = new SstFileReader(options)) {
                    reader.open(f.path.toString());
                    TableProperties props = reader.getTableProperties();
                    cf = new String(props.getColumnFamilyName(), StandardCharsets.UTF_8);
                    filterPolicy = props.getFilterPolicyName();
                    prefixExtractor = props.getPrefixExtractorName();
                    numEntries = props.getNumEntries();
                    try (ReadOptions ro = new ReadOptions();
                         SstFileReaderIterator it = reader.newIterator(ro);
                         DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(keysFile)));
                         DataOutputStream absentOut = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(absentFile)))) {
                        for (it.seekToFirst(); it.isValid(); it.next()) {
                            byte[] key = it.key();
                            out.writeInt(key.length);
                            out.write(key);
                            n++;
                            // Flink's key: key-group prefix, the serialized key (a Long: 8 bytes,
                            // big-endian), the namespace, then (MapState) the user map key.
                            if (key.length >= prefixBytes + 8) {
                                long userKey = readLong(key, prefixBytes);
                                if (userKey >= 0 && userKey < keys) {
                                    layoutOk++;
                                    int group = prefixBytes == 1 ? (key[0] & 0xff)
                                            : ((key[0] & 0xff) << 8) | (key[1] & 0xff);
                                    if (group == KeyGroupRangeAssignment.assignToKeyGroup(userKey, MAX_PARALLELISM)) {
                                        keyGroupOk++;
                                        // An absent key of the same shape: this key with another
                                        // key (never written, same key group) in its place.
                                        if (poolNext[group] < absentPool[group].length) {
                                            byte[] other = key.clone();
                                            writeLong(other, prefixBytes, absentPool[group][poolNext[group]++]);
                                            absentOut.writeInt(other.length);
                                            absentOut.write(other);
                                            absent++;
                                        }
                                    }
                                }
                            }
                        }
                        it.status();
                    }
                }
                manifest.printf("%d\t%s\t%s\t%d\t%s\t%d\t%s\t%d\t%s\t%s\t%s%n", index, f.path, f.localName, f.subtask,
                        cf, n, keysFile, absent, absentFile, filterPolicy, prefixExtractor);
                totalAbsent += absent;
                System.out.printf("sst %2d: %s (%s, subtask %d, column family %s): %d keys iterated (rocksdb.num.entries %d), "
                                + "filter policy %s, prefix extractor %s, %d bytes%n",
                        index, f.path.getFileName(), f.localName, f.subtask, cf, n, numEntries, filterPolicy,
                        prefixExtractor, Files.size(f.path));
                perColumnFamily.merge(cf, n, Long::sum);
                totalKeys += n;
                index++;
            }
        }
        double iterateSeconds = (System.nanoTime() - t2) / 1e9;
        System.out.printf("rocksdb: %d SST files, %d keys iterated with SstFileReader (%s)%n", ssts.size(), totalKeys,
                perColumnFamily);
        System.out.printf("layout: %d/%d keys are [%d-byte key group][8-byte key < %d][namespace...]; the key group matches Flink's assignment in %d/%d%n",
                layoutOk, totalKeys, prefixBytes, keys, keyGroupOk, totalKeys);
        System.out.printf("absent: %d keys of the same shape written (each a key iterated, with a key >= %d of the same key group in place of its 8 bytes)%n",
                totalAbsent, keys);
        System.out.printf("time: SstFileReader iteration (and absent keys): %.2f s%n", iterateSeconds);
        try (PrintWriter layout = new PrintWriter(Files.newBufferedWriter(work.resolve("layout.properties")))) {
            layout.println("# Flink's RocksDB keys in this job: key-group prefix, then the key (a Long, 8 bytes big-endian)");
            layout.println("userKeyOffset=" + prefixBytes);
            layout.println("userKeyLength=8");
            layout.println("distinctKeys=" + keys);
            layout.println("layoutOk=" + layoutOk);
            layout.println("keyGroupOk=" + keyGroupOk);
            layout.println("totalKeys=" + totalKeys);
            layout.println("checkpointId=" + checkpointId);
            layout.println("checkpoint=" + chk);
        }
    }

    static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }

    static void writeLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** For each key group, {@code perGroup} keys (Longs) at or above {@code from} that fall in it. */
    static long[][] absentKeysByKeyGroup(long from, int perGroup) {
        long[][] pool = new long[MAX_PARALLELISM][perGroup];
        int[] filled = new int[MAX_PARALLELISM];
        int full = 0;
        for (long v = from; full < MAX_PARALLELISM; v++) {
            int g = KeyGroupRangeAssignment.assignToKeyGroup(v, MAX_PARALLELISM);
            if (filled[g] < perGroup) {
                pool[g][filled[g]++] = v;
                if (filled[g] == perGroup) {
                    full++;
                }
            }
        }
        return pool;
    }

    static boolean hasTableMagic(Path p) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "r")) {
            long len = f.length();
            if (len < 8) {
                return false;
            }
            f.seek(len - 8);
            long le = 0;
            for (int i = 0; i < 8; i++) {
                le |= (long) (f.read() & 0xff) << (8 * i);
            }
            return le == BLOCK_BASED_TABLE_MAGIC;
        }
    }

    static final class CheckpointFile {
        final String operator;
        final int subtask;
        final String localName;
        final String kind;
        final StreamStateHandle handle;
        Path path;

        CheckpointFile(String operator, int subtask, String localName, String kind, StreamStateHandle handle) {
            this.operator = operator;
            this.subtask = subtask;
            this.localName = localName;
            this.kind = kind;
            this.handle = handle;
        }
    }

    /**
     * Emits 0..keys-1 once each, then idles until cancelled. The first checkpoint it snapshots after
     * its last record holds every record's state downstream (its barrier follows them); once that
     * checkpoint is complete, the main thread cancels the job.
     */
    static final class KeySource extends RichSourceFunction<Long> implements CheckpointedFunction, CheckpointListener {
        private final long keys;
        private volatile boolean running = true;
        private volatile boolean emittedAll;

        KeySource(long keys) {
            this.keys = keys;
        }

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            for (long k = 0; k < keys && running; k++) {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(k);
                }
            }
            synchronized (ctx.getCheckpointLock()) {
                emittedAll = true;
            }
            while (running) {
                Thread.sleep(20);
            }
        }

        @Override
        public void cancel() {
            running = false;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            if (emittedAll && firstFullCheckpoint < 0) {
                firstFullCheckpoint = context.getCheckpointId();
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (firstFullCheckpoint >= 0 && checkpointId >= firstFullCheckpoint && completedFullCheckpoint < 0) {
                completedFullCheckpoint = checkpointId;
                COMPLETED.countDown();
            }
        }
    }

    /** Keyed state per key: a ValueState (a string) and a MapState of {@link #MAP_ENTRIES} entries. */
    static final class KeepState extends KeyedProcessFunction<Long, Long, Void> {
        private transient ValueState<String> value;
        private transient MapState<Integer, Long> map;

        @Override
        public void open(OpenContext openContext) {
            value = getRuntimeContext().getState(new ValueStateDescriptor<>("value", Types.STRING));
            map = getRuntimeContext().getMapState(new MapStateDescriptor<>("map", Types.INT, Types.LONG));
        }

        @Override
        public void processElement(Long key, Context ctx, Collector<Void> out) throws Exception {
            value.update("value of key " + key + " in the rocksfilter Flink checkpoint test");
            for (int i = 0; i < MAP_ENTRIES; i++) {
                map.put(i, key * MAP_ENTRIES + i);
            }
        }
    }
}
