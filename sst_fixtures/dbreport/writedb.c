/* sst_fixtures/dbreport/writedb.c: a database for `rocksfilter report`,
 * written and then judged by RocksDB itself through its C API (Debian's
 * 7.8.3, or 11.12 built from source: the same file links against either).
 *
 *   writedb write DIR    a database of several levels (RocksDB's own level
 *                        compaction) with files on L0, its filters from
 *                        NewRibbonFilterPolicy(10, 1) (Bloom for files
 *                        written for L0, Ribbon from L1), format_version as
 *                        the version's default
 *   writedb live DIR     GetLiveFilesMetaData, one JSON object a line:
 *                        {"file","column_family","level","entries"}
 *   writedb probe DIR KEYS
 *                        a Get per key of KEYS (one a line) on the database
 *                        opened read-only with statistics; prints
 *                        {"keys","found","full_positive","useful"} from the
 *                        rocksdb.bloom.filter.* tickers
 *
 * A last argument "legacy" writes (and reads) with NewBloomFilterPolicy(10)
 * at format_version 4 instead: legacy Bloom on every level.
 *
 * The keys: "key%010u" of even numbers, so that odd numbers are absent and
 * fall inside the files' ranges. Each round writes every ROUNDS-th of them,
 * spread over the whole range, so a key's range holds a file on every level.
 */
#include <rocksdb/c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void check(char *err, const char *what) {
  if (err) {
    fprintf(stderr, "writedb: %s: %s\n", what, err);
    exit(1);
  }
}

#define ROUND_KEYS 60000u
/* Rounds compacted by RocksDB's own level compaction, then rounds left on
 * L0 (fewer than the compaction trigger). */
#define COMPACTED_ROUNDS 12u
#define ROUNDS (COMPACTED_ROUNDS + 3u)

static rocksdb_options_t *options(int auto_compactions, int legacy) {
  rocksdb_options_t *o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_disable_auto_compactions(o, !auto_compactions);
  /* Small levels and files, so that ~30 MB of data spreads over four
   * levels of many files: L1 1 MiB, x4 a level. */
  rocksdb_options_set_write_buffer_size(o, 8 << 20);
  rocksdb_options_set_level0_file_num_compaction_trigger(o, 4);
  rocksdb_options_set_max_bytes_for_level_base(o, 1 << 20);
  rocksdb_options_set_max_bytes_for_level_multiplier(o, 4);
  rocksdb_options_set_level_compaction_dynamic_level_bytes(o, 0);
  rocksdb_options_set_target_file_size_base(o, 256 << 10);
  rocksdb_options_set_num_levels(o, 7);
  rocksdb_options_set_compression(o, rocksdb_no_compression);
  rocksdb_block_based_table_options_t *t = rocksdb_block_based_options_create();
  if (legacy) {
    /* format_version 4: NewBloomFilterPolicy(10) writes legacy Bloom. */
    rocksdb_block_based_options_set_format_version(t, 4);
    rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom(10));
  } else {
    rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_ribbon_hybrid(10, 1));
  }
  rocksdb_options_set_block_based_table_factory(o, t);
  rocksdb_block_based_options_destroy(t);
  return o;
}

/* Round r writes the even numbers 2*(ROUNDS*i + r) for i < ROUND_KEYS, and
 * flushes them into one L0 file. */
static void write_round(rocksdb_t *db, unsigned r) {
  rocksdb_writeoptions_t *w = rocksdb_writeoptions_create();
  rocksdb_writeoptions_disable_WAL(w, 1);
  char *err = NULL;
  char key[32], value[64];
  for (unsigned i = 0; i < ROUND_KEYS; i++) {
    unsigned n = 2 * (ROUNDS * i + r);
    int kl = snprintf(key, sizeof key, "key%010u", n);
    int vl = snprintf(value, sizeof value, "value-%u-round-%u", n, r);
    rocksdb_put(db, w, key, (size_t)kl, value, (size_t)vl, &err);
    check(err, "put");
  }
  rocksdb_writeoptions_destroy(w);
  rocksdb_flushoptions_t *f = rocksdb_flushoptions_create();
  rocksdb_flushoptions_set_wait(f, 1);
  rocksdb_flush(db, f, &err);
  check(err, "flush");
  rocksdb_flushoptions_destroy(f);
}

/* Until no compaction is pending or running. */
static void settle(rocksdb_t *db) {
  for (;;) {
    uint64_t pending = 1, running = 1;
    if (rocksdb_property_int(db, "rocksdb.compaction-pending", &pending) != 0 ||
        rocksdb_property_int(db, "rocksdb.num-running-compactions", &running) != 0) {
      fprintf(stderr, "writedb: compaction properties unavailable\n");
      exit(1);
    }
    if (pending == 0 && running == 0) return;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

static int do_write(const char *dir, int legacy) {
  rocksdb_options_t *o = options(1, legacy);
  char *err = NULL;
  rocksdb_t *db = rocksdb_open(o, dir, &err);
  check(err, "open");
  for (unsigned r = 0; r < COMPACTED_ROUNDS; r++) {
    write_round(db, r);
    settle(db);
  }
  /* The last rounds stay on L0 (Bloom, bloom_before_level = 1). */
  const char *k[1] = {"disable_auto_compactions"}, *v[1] = {"true"};
  rocksdb_set_options(db, 1, k, v, &err);
  check(err, "set_options");
  for (unsigned r = COMPACTED_ROUNDS; r < ROUNDS; r++) write_round(db, r);
  rocksdb_close(db);
  rocksdb_options_destroy(o);
  return 0;
}

static int do_live(const char *dir, int legacy) {
  rocksdb_options_t *o = options(0, legacy);
  char *err = NULL;
  rocksdb_t *db = rocksdb_open_for_read_only(o, dir, 0, &err);
  check(err, "open read-only");
  const rocksdb_livefiles_t *lf = rocksdb_livefiles(db);
  for (int i = 0; i < rocksdb_livefiles_count(lf); i++) {
    const char *name = rocksdb_livefiles_name(lf, i);
    while (*name == '/') name++;
    printf("{\"file\":\"%s\",\"column_family\":\"%s\",\"level\":%d,\"entries\":%llu}\n", name,
           rocksdb_livefiles_column_family_name(lf, i), rocksdb_livefiles_level(lf, i),
           (unsigned long long)rocksdb_livefiles_entries(lf, i));
  }
  rocksdb_livefiles_destroy(lf);
  rocksdb_close(db);
  rocksdb_options_destroy(o);
  return 0;
}

/* The ticker's count from the statistics string ("NAME COUNT : N"). */
static unsigned long long ticker(const char *stats, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(stats, name); p; p = strstr(p + 1, name)) {
    if ((p == stats || p[-1] == '\n') && strncmp(p + n, " COUNT : ", 9) == 0) return strtoull(p + n + 9, NULL, 10);
  }
  fprintf(stderr, "writedb: no ticker %s in the statistics\n", name);
  exit(1);
}

static int do_probe(const char *dir, const char *keys_path, int legacy) {
  rocksdb_options_t *o = options(0, legacy);
  rocksdb_options_enable_statistics(o);
  char *err = NULL;
  rocksdb_t *db = rocksdb_open_for_read_only(o, dir, 0, &err);
  check(err, "open read-only");
  FILE *keys = fopen(keys_path, "r");
  if (!keys) {
    perror(keys_path);
    return 1;
  }
  rocksdb_readoptions_t *r = rocksdb_readoptions_create();
  char line[4096];
  unsigned long long n = 0, found = 0;
  while (fgets(line, sizeof line, keys)) {
    size_t len = strcspn(line, "\n");
    size_t vlen = 0;
    char *v = rocksdb_get(db, r, line, len, &vlen, &err);
    check(err, "get");
    if (v) {
      found++;
      rocksdb_free(v);
    }
    n++;
  }
  fclose(keys);
  char *stats = rocksdb_options_statistics_get_string(o);
  printf("{\"keys\":%llu,\"found\":%llu,\"full_positive\":%llu,\"useful\":%llu}\n", n, found,
         ticker(stats, "rocksdb.bloom.filter.full.positive"), ticker(stats, "rocksdb.bloom.filter.useful"));
  rocksdb_free(stats);
  rocksdb_readoptions_destroy(r);
  rocksdb_close(db);
  rocksdb_options_destroy(o);
  return 0;
}

int main(int argc, char **argv) {
  /* A last argument "legacy": legacy Bloom at format_version 4. */
  int legacy = argc > 3 && strcmp(argv[argc - 1], "legacy") == 0;
  int args = argc - legacy;
  if (args == 3 && strcmp(argv[1], "write") == 0) return do_write(argv[2], legacy);
  if (args == 3 && strcmp(argv[1], "live") == 0) return do_live(argv[2], legacy);
  if (args == 4 && strcmp(argv[1], "probe") == 0) return do_probe(argv[2], argv[3], legacy);
  fprintf(stderr, "usage: writedb write DIR | live DIR | probe DIR KEYS  [legacy]\n");
  return 2;
}
