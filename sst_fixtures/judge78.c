/*
 * judge78 SST KEYS PREFIX_LEN WHOLE_KEY DBDIR
 *
 * RocksDB's own verdict on an SST file, with the system librocksdb
 * (Debian 7.8.3): ingests (copies) SST into a fresh DB at DBDIR, opened with
 * a built-in Bloom filter policy (every built-in policy reads every built-in
 * filter), whole_key_filtering = WHOLE_KEY and, when PREFIX_LEN > 0, a
 * FixedPrefix(PREFIX_LEN) extractor, then Gets every key of KEYS (one hex
 * key per line). Get consults the file's filter before its data blocks, so
 * a key the filter wrongly rules out is "not found".
 *
 * Prints one line: "REFUSED <message>" when RocksDB does not accept the file
 * (ingestion fails), else one character per key: '1' found, '0' not found,
 * 'E' an error status. A second line gives the rocksdb.bloom.filter.useful
 * ticker (filter lookups that ruled a key out). Exit status 0 unless the
 * judge itself failed (bad arguments, DB could not be created).
 *
 * Build: gcc -O2 -Wall -Werror -o judge78 judge78.c -lrocksdb
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocksdb/c.h>

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: judge78 SST KEYS PREFIX_LEN WHOLE_KEY DBDIR\n");
    return 2;
  }
  const char *sst = argv[1], *keys = argv[2], *dbdir = argv[5];
  int prefix_len = atoi(argv[3]), whole_key = atoi(argv[4]);

  rocksdb_options_t *o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_error_if_exists(o, 1);
  rocksdb_options_enable_statistics(o);
  rocksdb_block_based_table_options_t *t = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom_full(10));
  rocksdb_block_based_options_set_whole_key_filtering(t, (unsigned char)whole_key);
  rocksdb_options_set_block_based_table_factory(o, t);
  if (prefix_len > 0)
    rocksdb_options_set_prefix_extractor(o, rocksdb_slicetransform_create_fixed_prefix((size_t)prefix_len));

  char *err = NULL;
  rocksdb_t *db = rocksdb_open(o, dbdir, &err);
  if (err) {
    fprintf(stderr, "judge78: open %s: %s\n", dbdir, err);
    return 1;
  }
  rocksdb_ingestexternalfileoptions_t *io = rocksdb_ingestexternalfileoptions_create();
  rocksdb_ingestexternalfileoptions_set_move_files(io, 0);
  const char *files[1] = {sst};
  rocksdb_ingest_external_file(db, files, 1, io, &err);
  rocksdb_ingestexternalfileoptions_destroy(io);
  if (err) {
    for (char *p = err; *p; p++)
      if (*p == '\n') *p = ' ';
    printf("REFUSED %s\n", err);
    free(err);
    err = NULL; /* rocksdb_destroy_db leaves it alone on success; it is freed again below */
  } else {
    FILE *kf = fopen(keys, "r");
    if (!kf) {
      fprintf(stderr, "judge78: cannot read %s\n", keys);
      return 1;
    }
    rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned char *key = NULL;
    size_t key_cap = 0;
    while ((n = getline(&line, &cap, kf)) >= 0) {
      while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
      size_t klen = (size_t)n / 2;
      if (klen + 1 > key_cap) {
        key_cap = 2 * (klen + 1);
        key = realloc(key, key_cap);
      }
      for (size_t i = 0; i < klen; i++) key[i] = (unsigned char)(hexval(line[2 * i]) << 4 | hexval(line[2 * i + 1]));
      size_t vlen = 0;
      char *v = rocksdb_get(db, ro, (const char *)key, klen, &vlen, &err);
      if (err) {
        putchar('E');
        free(err);
        err = NULL;
      } else {
        putchar(v ? '1' : '0');
        free(v);
      }
    }
    putchar('\n');
    free(line);
    free(key);
    fclose(kf);
    rocksdb_readoptions_destroy(ro);
  }
  char *stats = rocksdb_options_statistics_get_string(o);
  const char *u = stats ? strstr(stats, "rocksdb.bloom.filter.useful COUNT : ") : NULL;
  printf("useful %llu\n", u ? strtoull(u + strlen("rocksdb.bloom.filter.useful COUNT : "), NULL, 10) : 0ULL);
  free(stats);
  rocksdb_close(db);
  rocksdb_destroy_db(o, dbdir, &err);
  free(err);
  rocksdb_options_destroy(o);
  rocksdb_block_based_options_destroy(t);
  return 0;
}
