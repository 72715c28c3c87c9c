/*
 * gen_rocksdb78 OUTDIR
 *
 * Writes a matrix of real RocksDB SST files with the RocksDB C API
 * (built against Debian's librocksdb-dev, 7.8.3), one keys file per SST
 * (one hex-encoded user key per line, in the order written), and appends
 * one JSON object per SST to OUTDIR/manifest.jsonl.
 *
 * Every SST is checked right after writing: it is ingested (copied) into a
 * fresh temporary DB opened with the same options, every key is read back
 * with rocksdb_get (which consults the filter, so a broken filter that
 * drops a key would be caught), and a few absent keys must be NotFound.
 *
 * Build (see generate.sh): gcc -O2 -Wall -Werror -DRDB_VERSION='"7.8.3"' \
 *          -o gen_rocksdb78 gen_rocksdb78.c -lrocksdb
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rocksdb/c.h>

/* rocksdb/version.h is C++-only; generate.sh passes the version it reads
 * from that header as -DRDB_VERSION="\"7.8.3\"". */
#ifndef RDB_VERSION
#define RDB_VERSION "unknown"
#endif

/* ---------------------------------------------------------------- utils */

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "gen_rocksdb78: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static void check_err(char *err, const char *what, const char *file) {
  if (err) die("%s failed for %s: %s", what, file, err);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

/* splitmix64: deterministic PRNG so output is reproducible. */
static uint64_t rng_state;
static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* ----------------------------------------------------------------- keys */

typedef struct {
  unsigned char *data;
  size_t len;
} key_t_;

typedef struct {
  key_t_ *k;
  size_t n;
} keyset;

static int key_cmp(const void *a, const void *b) {
  const key_t_ *x = a, *y = b;
  size_t m = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->data, y->data, m);
  if (c) return c;
  return (x->len > y->len) - (x->len < y->len);
}

static void keyset_push(keyset *ks, size_t *cap, const void *d, size_t len) {
  if (ks->n == *cap) {
    *cap = *cap ? *cap * 2 : 64;
    ks->k = realloc(ks->k, *cap * sizeof(key_t_));
    if (!ks->k) die("out of memory");
  }
  ks->k[ks->n].data = xmalloc(len);
  memcpy(ks->k[ks->n].data, d, len);
  ks->k[ks->n].len = len;
  ks->n++;
}

/* Sort bytewise and drop duplicates (SstFileWriter requires strictly
 * increasing keys under the default BytewiseComparator). */
static void keyset_sort_unique(keyset *ks) {
  qsort(ks->k, ks->n, sizeof(key_t_), key_cmp);
  size_t w = 0;
  for (size_t i = 0; i < ks->n; i++) {
    if (w > 0 && key_cmp(&ks->k[w - 1], &ks->k[i]) == 0) {
      free(ks->k[i].data);
      continue;
    }
    ks->k[w++] = ks->k[i];
  }
  ks->n = w;
}

static void keyset_free(keyset *ks) {
  for (size_t i = 0; i < ks->n; i++) free(ks->k[i].data);
  free(ks->k);
  ks->k = NULL;
  ks->n = 0;
}

/*
 * Key shapes:
 *  ascii  : "k%08zu"                     (9 bytes, short ASCII)
 *  k20    : "key-%016zu"                 (exactly 20 bytes)
 *  bin    : random 1..24 bytes, with 0x00/0xff heavy bytes, plus the
 *           edge keys "\x00", "\x00\x00", "\xff", "\xff\xff..."
 *  long   : 300 bytes: "L%08zu" then a deterministic filler
 *  pfx    : "p%03zu" + ":" + "%06zu"     (prefix groups for FixedPrefix(4)),
 *           plus a few keys shorter than 4 bytes (outside the prefix
 *           extractor's domain)
 */
static void make_keys(keyset *ks, const char *shape, size_t n, uint64_t seed) {
  size_t cap = 0;
  char buf[512];
  rng_state = seed;
  ks->k = NULL;
  ks->n = 0;
  if (!strcmp(shape, "ascii")) {
    for (size_t i = 0; i < n; i++) {
      int l = snprintf(buf, sizeof buf, "k%08zu", i * 7 + 3);
      keyset_push(ks, &cap, buf, (size_t)l);
    }
  } else if (!strcmp(shape, "k20")) {
    for (size_t i = 0; i < n; i++) {
      int l = snprintf(buf, sizeof buf, "key-%016" PRIu64,
                       (uint64_t)(rng_next() % 10000000000000000ULL));
      keyset_push(ks, &cap, buf, (size_t)l);
    }
  } else if (!strcmp(shape, "bin")) {
    static const unsigned char edges[][4] = {{0x00}, {0x00, 0x00}, {0xff},
                                             {0xff, 0xff, 0xff, 0xff}};
    static const size_t edge_len[] = {1, 2, 1, 4};
    size_t ne = n >= 8 ? 4 : 0;
    for (size_t e = 0; e < ne; e++) keyset_push(ks, &cap, edges[e], edge_len[e]);
    while (ks->n < n) {
      size_t len = 1 + rng_next() % 24;
      unsigned char b[24];
      for (size_t j = 0; j < len; j++) {
        uint64_t r = rng_next();
        /* bias towards 0x00 and 0xff */
        b[j] = (r & 7) == 0 ? 0x00 : (r & 7) == 1 ? 0xff : (unsigned char)(r >> 8);
      }
      keyset_push(ks, &cap, b, len);
      if (ks->n == n) {
        keyset_sort_unique(ks);
        cap = ks->n; /* realloc grows from here */
      }
    }
  } else if (!strcmp(shape, "long")) {
    for (size_t i = 0; i < n; i++) {
      int l = snprintf(buf, sizeof buf, "L%08zu", i);
      for (size_t j = (size_t)l; j < 300; j++)
        buf[j] = (char)('a' + (char)((i * 31 + j * 7) % 26));
      keyset_push(ks, &cap, buf, 300);
    }
  } else if (!strcmp(shape, "pfx")) {
    static const char *shorts[] = {"p", "p0", "p00"};
    size_t ns = n >= 16 ? 3 : 0;
    for (size_t i = 0; i < ns; i++) keyset_push(ks, &cap, shorts[i], strlen(shorts[i]));
    for (size_t i = 0; ks->n < n; i++) {
      int l = snprintf(buf, sizeof buf, "p%03zu:%06zu", (i * 37) % 200, i);
      keyset_push(ks, &cap, buf, (size_t)l);
    }
  } else {
    die("unknown key shape %s", shape);
  }
  keyset_sort_unique(ks);
  if (ks->n != n) die("shape %s: wanted %zu unique keys, got %zu", shape, n, ks->n);
}

/* ------------------------------------------------------------- variants */

enum { F_NONE, F_BLOOM, F_RIBBON, F_BLOOM_OLDAPI };

typedef struct {
  int fv;
  int checksum; /* 0 none,1 crc32c,2 xxhash,3 xxhash64,4 xxh3 */
  int filter;
  double bpk;
  int partitioned;
  int metadata_block_size; /* 0 = default (4096) */
  int prefix_len;          /* 0 = no prefix extractor */
  int wkf;                 /* whole_key_filtering */
  int compression;         /* rocksdb_*_compression */
  size_t nkeys;
  const char *shape;
  const char *extra; /* extra "block_based_table_factory={...}" fields, or NULL */
  const char *note;
} variant;

static const char *checksum_name(int c) {
  static const char *n[] = {"none", "crc32c", "xxhash32", "xxhash64", "xxh3"};
  return (c >= 0 && c <= 4) ? n[c] : "?";
}
static const char *checksum_enum(int c) {
  static const char *n[] = {"kNoChecksum", "kCRC32c", "kxxHash", "kxxHash64", "kXXH3"};
  return n[c];
}
static const char *compression_name(int c) {
  switch (c) {
    case rocksdb_no_compression: return "none";
    case rocksdb_snappy_compression: return "snappy";
    case rocksdb_zlib_compression: return "zlib";
    case rocksdb_lz4_compression: return "lz4";
    case rocksdb_zstd_compression: return "zstd";
    default: return "?";
  }
}
static const char *filter_name(int f) {
  return f == F_NONE ? "none" : f == F_RIBBON ? "ribbon" : "bloom";
}

static void fmt_bpk(char *out, size_t n, double bpk) {
  /* "10" for 10.0, "7.5" -> "7p5" */
  if (bpk == (double)(long)bpk)
    snprintf(out, n, "%ld", (long)bpk);
  else {
    snprintf(out, n, "%g", bpk);
    for (char *p = out; *p; p++)
      if (*p == '.') *p = 'p';
  }
}

static void variant_filename(const variant *v, char *out, size_t n) {
  char bpk[32];
  fmt_bpk(bpk, sizeof bpk, v->bpk);
  char filt[64];
  if (v->filter == F_NONE)
    snprintf(filt, sizeof filt, "nofilter");
  else
    snprintf(filt, sizeof filt, "%s%s%s", v->partitioned ? "part" : "",
             v->filter == F_BLOOM_OLDAPI ? "bloomapi" : filter_name(v->filter), bpk);
  char pfx[32] = "";
  if (v->prefix_len) snprintf(pfx, sizeof pfx, "_pfx%d%s", v->prefix_len, v->wkf ? "wk" : "nowk");
  char extra[96] = "";
  if (v->metadata_block_size) snprintf(extra, sizeof extra, "_mbs%d", v->metadata_block_size);
  if (v->extra) {
    /* short tag derived from the option string */
    if (strstr(v->extra, "kNoShortening")) strcat(extra, "_noshort");
    if (strstr(v->extra, "kShortenSeparatorsAndSuccessor")) strcat(extra, "_shortsucc");
    if (strstr(v->extra, "optimize_filters_for_memory=true")) strcat(extra, "_ofm");
    if (strstr(v->extra, "decouple_partitioned_filters=true")) strcat(extra, "_decoupled");
  }
  snprintf(out, n, "r78_fv%d_%s_%s%s_%s_%s%zu%s", v->fv, checksum_name(v->checksum), filt, pfx,
           compression_name(v->compression), v->shape, v->nkeys, extra);
}

/* ------------------------------------------------------------- options */

static rocksdb_options_t *make_options(const variant *v, const char *label) {
  rocksdb_options_t *o = rocksdb_options_create();
  rocksdb_block_based_table_options_t *t = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_format_version(t, v->fv);
  rocksdb_block_based_options_set_checksum(t, (char)v->checksum);
  if (v->filter != F_NONE) {
    rocksdb_filterpolicy_t *fp;
    if (v->filter == F_BLOOM)
      fp = rocksdb_filterpolicy_create_bloom_full(v->bpk);
    else if (v->filter == F_BLOOM_OLDAPI)
      fp = rocksdb_filterpolicy_create_bloom(v->bpk);
    else
      fp = rocksdb_filterpolicy_create_ribbon_hybrid(v->bpk, -1);
    rocksdb_block_based_options_set_filter_policy(t, fp); /* t takes ownership */
  }
  if (v->partitioned) {
    rocksdb_block_based_options_set_partition_filters(t, 1);
    rocksdb_block_based_options_set_index_type(t,
        rocksdb_block_based_table_index_type_two_level_index_search);
  }
  if (v->metadata_block_size)
    rocksdb_block_based_options_set_metadata_block_size(t, (uint64_t)v->metadata_block_size);
  rocksdb_block_based_options_set_whole_key_filtering(t, (unsigned char)v->wkf);
  rocksdb_options_set_block_based_table_factory(o, t);
  rocksdb_block_based_options_destroy(t);
  if (v->prefix_len)
    rocksdb_options_set_prefix_extractor(o,
        rocksdb_slicetransform_create_fixed_prefix((size_t)v->prefix_len));
  rocksdb_options_set_compression(o, v->compression);

  if (v->extra) {
    /* Options the C API has no setter for (index_shortening,
     * optimize_filters_for_memory) go through an options string.  The
     * string is the complete table-factory config (a nested
     * block_based_table_factory={...} in GetOptionsFromString *replaces*
     * the factory), so spell everything out again. */
    char s[1024];
    char fpol[128] = "";
    char bpk[32];
    snprintf(bpk, sizeof bpk, "%g", v->bpk);
    if (v->filter == F_BLOOM || v->filter == F_BLOOM_OLDAPI)
      snprintf(fpol, sizeof fpol, "filter_policy=bloomfilter:%s:false;", bpk);
    else if (v->filter == F_RIBBON)
      snprintf(fpol, sizeof fpol, "filter_policy=ribbonfilter:%s:-1;", bpk);
    snprintf(s, sizeof s,
             "block_based_table_factory={format_version=%d;checksum=%s;%s"
             "partition_filters=%s;index_type=%s;metadata_block_size=%d;"
             "whole_key_filtering=%s;%s}",
             v->fv, checksum_enum(v->checksum), fpol, v->partitioned ? "true" : "false",
             v->partitioned ? "kTwoLevelIndexSearch" : "kBinarySearch",
             v->metadata_block_size ? v->metadata_block_size : 4096, v->wkf ? "true" : "false",
             v->extra);
    rocksdb_options_t *o2 = rocksdb_options_create();
    char *err = NULL;
    rocksdb_get_options_from_string(o, s, o2, &err);
    check_err(err, "rocksdb_get_options_from_string", label);
    rocksdb_options_destroy(o);
    o = o2;
  }
  return o;
}

/* -------------------------------------------------------------- output */

static const char *g_outdir;
static FILE *g_manifest;
static int g_count;
static char g_version[32];

static void write_keys_file(const char *path, const keyset *ks) {
  FILE *f = fopen(path, "w");
  if (!f) die("open %s: %s", path, strerror(errno));
  static const char hx[] = "0123456789abcdef";
  for (size_t i = 0; i < ks->n; i++) {
    for (size_t j = 0; j < ks->k[i].len; j++) {
      fputc(hx[ks->k[i].data[j] >> 4], f);
      fputc(hx[ks->k[i].data[j] & 15], f);
    }
    fputc('\n', f);
  }
  if (fclose(f)) die("write %s failed", path);
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void make_value(char *buf, size_t n, size_t i, size_t *len) {
  *len = (size_t)snprintf(buf, n, "v%zu", i);
}

/* Ingest a copy of the SST into a fresh DB and read every key back. */
static void verify(const variant *v, const char *sst, const keyset *ks, const char *label) {
  char dbdir[4096];
  snprintf(dbdir, sizeof dbdir, "%s/.verify_db_%d", g_outdir, (int)getpid());
  rocksdb_options_t *o = make_options(v, label);
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_error_if_exists(o, 1);
  char *err = NULL;
  rocksdb_destroy_db(o, dbdir, &err);
  free(err);
  err = NULL;
  rocksdb_t *db = rocksdb_open(o, dbdir, &err);
  check_err(err, "rocksdb_open(verify db)", label);
  rocksdb_ingestexternalfileoptions_t *io = rocksdb_ingestexternalfileoptions_create();
  rocksdb_ingestexternalfileoptions_set_move_files(io, 0);
  const char *files[1] = {sst};
  rocksdb_ingest_external_file(db, files, 1, io, &err);
  check_err(err, "rocksdb_ingest_external_file", label);
  rocksdb_ingestexternalfileoptions_destroy(io);

  rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
  rocksdb_readoptions_set_verify_checksums(ro, 1);
  for (size_t i = 0; i < ks->n; i++) {
    size_t vlen;
    char *val = rocksdb_get(db, ro, (const char *)ks->k[i].data, ks->k[i].len, &vlen, &err);
    check_err(err, "rocksdb_get", label);
    char want[64];
    size_t wlen;
    make_value(want, sizeof want, i, &wlen);
    if (!val || vlen != wlen || memcmp(val, want, wlen) != 0)
      die("%s: key #%zu not read back correctly", label, i);
    free(val);
  }
  /* absent keys: a key between two stored keys, and keys past the end */
  static const char *absent[] = {"\x01zz-absent", "zzzzzzzz-absent", "k-absent", "p999:absent"};
  for (size_t a = 0; a < sizeof absent / sizeof *absent; a++) {
    size_t vlen;
    key_t_ kk = {(unsigned char *)absent[a], strlen(absent[a])};
    int present = 0;
    for (size_t i = 0; i < ks->n; i++)
      if (key_cmp(&kk, &ks->k[i]) == 0) present = 1;
    if (present) continue;
    char *val = rocksdb_get(db, ro, absent[a], strlen(absent[a]), &vlen, &err);
    check_err(err, "rocksdb_get(absent)", label);
    if (val) die("%s: absent key %s found", label, absent[a]);
  }
  rocksdb_readoptions_destroy(ro);
  rocksdb_close(db);
  rocksdb_destroy_db(o, dbdir, &err);
  check_err(err, "rocksdb_destroy_db", label);
  rocksdb_options_destroy(o);
}

static char *g_names[1024];
static int g_nnames;

static void gen(const variant *v) {
  char base[512], sst[4096], keys[4096], sstname[600], keysname[600];
  variant_filename(v, base, sizeof base);
  for (int i = 0; i < g_nnames; i++)
    if (!strcmp(g_names[i], base)) die("duplicate variant name %s", base);
  if (g_nnames == 1024) die("too many variants");
  g_names[g_nnames++] = strdup(base);
  snprintf(sstname, sizeof sstname, "%s.sst", base);
  snprintf(keysname, sizeof keysname, "%s.keys", base);
  snprintf(sst, sizeof sst, "%s/%s", g_outdir, sstname);
  snprintf(keys, sizeof keys, "%s/%s", g_outdir, keysname);

  keyset ks;
  uint64_t seed = 0x5eed0000ULL + v->nkeys * 131 + (uint64_t)strlen(v->shape);
  make_keys(&ks, v->shape, v->nkeys, seed);

  rocksdb_options_t *o = make_options(v, sstname);
  rocksdb_envoptions_t *eo = rocksdb_envoptions_create();
  rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(eo, o);
  char *err = NULL;
  unlink(sst);
  rocksdb_sstfilewriter_open(w, sst, &err);
  check_err(err, "rocksdb_sstfilewriter_open", sstname);
  for (size_t i = 0; i < ks.n; i++) {
    char val[64];
    size_t vlen;
    make_value(val, sizeof val, i, &vlen);
    rocksdb_sstfilewriter_put(w, (const char *)ks.k[i].data, ks.k[i].len, val, vlen, &err);
    check_err(err, "rocksdb_sstfilewriter_put", sstname);
  }
  rocksdb_sstfilewriter_finish(w, &err);
  check_err(err, "rocksdb_sstfilewriter_finish", sstname);
  rocksdb_sstfilewriter_destroy(w);
  rocksdb_envoptions_destroy(eo);
  rocksdb_options_destroy(o);

  write_keys_file(keys, &ks);
  verify(v, sst, &ks, sstname);

  FILE *m = g_manifest;
  fprintf(m, "{\"file\":");
  json_str(m, sstname);
  fprintf(m, ",\"writer\":\"%s\",\"format_version\":%d,\"checksum\":\"%s\"", g_version, v->fv,
          checksum_name(v->checksum));
  fprintf(m, ",\"filter\":\"%s\",\"bits_per_key\":%.1f,\"partitioned\":%s", filter_name(v->filter),
          v->filter == F_NONE ? 0.0 : v->bpk, v->partitioned ? "true" : "false");
  fprintf(m, ",\"prefix_len\":%d,\"whole_key_filtering\":%s,\"compression\":\"%s\"", v->prefix_len,
          v->wkf ? "true" : "false", compression_name(v->compression));
  fprintf(m, ",\"num_keys\":%zu,\"keys\":", ks.n);
  json_str(m, keysname);
  fprintf(m, ",\"key_shape\":\"%s\",\"metadata_block_size\":%d,\"extra_table_options\":", v->shape,
          v->metadata_block_size ? v->metadata_block_size : 4096);
  json_str(m, v->extra ? v->extra : "");
  fprintf(m, ",\"note\":");
  json_str(m, v->note ? v->note : "");
  fprintf(m, "}\n");
  fflush(m);
  keyset_free(&ks);
  g_count++;
}

/* --------------------------------------------------------------- matrix */

#define NONE rocksdb_no_compression
#define SNAPPY rocksdb_snappy_compression
#define LZ4 rocksdb_lz4_compression
#define ZSTD rocksdb_zstd_compression

static variant V(int fv, int cs, int filter, double bpk) {
  variant v = {0};
  v.fv = fv;
  v.checksum = cs;
  v.filter = filter;
  v.bpk = bpk;
  v.wkf = 1;
  v.compression = NONE;
  v.nkeys = 1000;
  v.shape = "ascii";
  return v;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  g_outdir = argv[1];
  if (mkdir(g_outdir, 0755) != 0 && errno != EEXIST) die("mkdir %s: %s", g_outdir, strerror(errno));
  snprintf(g_version, sizeof g_version, "rocksdb-%s", RDB_VERSION);
  char mpath[4096];
  snprintf(mpath, sizeof mpath, "%s/manifest.jsonl", g_outdir);
  g_manifest = fopen(mpath, "a");
  if (!g_manifest) die("open %s: %s", mpath, strerror(errno));

  variant v;

  /* 1. every checksum x format_version 2..5, full Bloom 10 bpk (fv<5 gives
   *    the legacy Bloom implementation, fv5 the new FastLocalBloom). */
  for (int fv = 2; fv <= 5; fv++)
    for (int cs = 0; cs <= 4; cs++) {
      v = V(fv, cs, F_BLOOM, 10);
      v.note = fv < 5 ? "legacy full Bloom (format_version<5)" : "FastLocalBloom (format_version 5)";
      gen(&v);
    }

  /* 2. Ribbon at fv5 (bloom_before_level=-1: Ribbon at every level). */
  for (int cs = 0; cs <= 4; cs++) {
    v = V(5, cs, F_RIBBON, 10);
    v.note = "Standard128Ribbon via ribbon_hybrid(10,-1)";
    gen(&v);
  }
  /* Ribbon requested at fv<5: RocksDB falls back to legacy Bloom. */
  v = V(4, 1, F_RIBBON, 10);
  v.note = "Ribbon policy at format_version 4 (7.8.3 still writes Ribbon: format_version only selects the Bloom flavour)";
  gen(&v);

  /* 3. bits-per-key range, Bloom and Ribbon, fv5 and legacy fv4. */
  {
    static const double bpks[] = {1, 5, 7.5, 16, 23.4, 40};
    for (size_t i = 0; i < sizeof bpks / sizeof *bpks; i++) {
      v = V(5, 1, F_BLOOM, bpks[i]);
      v.note = "bits_per_key sweep";
      gen(&v);
      v = V(5, 1, F_RIBBON, bpks[i]);
      v.note = "bits_per_key sweep";
      gen(&v);
      v = V(4, 1, F_BLOOM, bpks[i]);
      v.note = "bits_per_key sweep (legacy Bloom)";
      gen(&v);
    }
  }
  v = V(5, 1, F_BLOOM_OLDAPI, 10);
  v.note = "rocksdb_filterpolicy_create_bloom (old block-based API; 7.x builds a full filter)";
  gen(&v);

  /* 4. key counts and shapes. */
  {
    static const char *shapes[] = {"ascii", "k20", "bin", "long"};
    static const size_t counts[] = {1, 1000, 25000};
    for (size_t s = 0; s < 4; s++)
      for (size_t c = 0; c < 3; c++) {
        if (!strcmp(shapes[s], "ascii") && counts[c] == 1000) continue; /* covered above */
        if (!strcmp(shapes[s], "long") && counts[c] == 25000) continue; /* size */
        for (int f = F_BLOOM; f <= F_RIBBON; f++) {
          v = V(5, 1, f, 10);
          v.shape = shapes[s];
          v.nkeys = counts[c];
          v.note = "key count / shape";
          gen(&v);
        }
      }
    v = V(4, 1, F_BLOOM, 10);
    v.shape = "bin";
    v.nkeys = 25000;
    v.note = "legacy Bloom, binary keys, many cache lines";
    gen(&v);
    v = V(5, 4, F_BLOOM, 10);
    v.shape = "long";
    v.nkeys = 5000;
    v.note = "300-byte keys";
    gen(&v);
  }

  /* 5. partitioned filters (two-level index), several partitions. */
  {
    static const int fvs[] = {4, 5};
    for (size_t i = 0; i < 2; i++)
      for (int f = F_BLOOM; f <= F_RIBBON; f++) {
        if (fvs[i] < 5 && f == F_RIBBON) continue;
        v = V(fvs[i], 1, f, 10);
        v.partitioned = 1;
        v.metadata_block_size = 512;
        v.nkeys = 25000;
        v.note = "partitioned filter, metadata_block_size 512";
        gen(&v);
      }
    /* partitioned with compression (is the partition index compressed?) */
    static const int comps[] = {SNAPPY, LZ4, ZSTD};
    for (size_t c = 0; c < 3; c++) {
      v = V(5, 4, c == 1 ? F_RIBBON : F_BLOOM, 10);
      v.partitioned = 1;
      v.metadata_block_size = 256;
      v.nkeys = 25000;
      v.shape = "k20";
      v.compression = comps[c];
      v.note = "partitioned filter + compression";
      gen(&v);
    }
    /* default metadata_block_size (4096) */
    v = V(5, 1, F_BLOOM, 10);
    v.partitioned = 1;
    v.nkeys = 25000;
    v.note = "partitioned filter, default metadata_block_size 4096";
    gen(&v);
    /* single key partitioned */
    v = V(5, 1, F_RIBBON, 10);
    v.partitioned = 1;
    v.metadata_block_size = 256;
    v.nkeys = 1;
    v.note = "partitioned filter with a single key (one partition)";
    gen(&v);
    /* binary keys, partitioned legacy fv2 */
    v = V(2, 2, F_BLOOM, 10);
    v.partitioned = 1;
    v.metadata_block_size = 256;
    v.nkeys = 5000;
    v.shape = "bin";
    v.note = "partitioned legacy Bloom, fv2, xxhash32";
    gen(&v);
    /* index_shortening variants via options string */
    static const char *shorts[] = {"index_shortening=kNoShortening;",
                                   "index_shortening=kShortenSeparatorsAndSuccessor;"};
    for (size_t i = 0; i < 2; i++)
      for (int f = F_BLOOM; f <= F_RIBBON; f++) {
        v = V(5, 1, f, 10);
        v.partitioned = 1;
        v.metadata_block_size = 256;
        v.nkeys = 5000;
        v.shape = "k20";
        v.extra = shorts[i];
        v.note = "partitioned filter, index_shortening set via rocksdb_get_options_from_string";
        gen(&v);
      }
  }

  /* 6. fixed prefix extractor, whole_key_filtering on/off. */
  for (int wkf = 1; wkf >= 0; wkf--) {
    for (int f = F_BLOOM; f <= F_RIBBON; f++) {
      v = V(5, 1, f, 10);
      v.prefix_len = 4;
      v.wkf = wkf;
      v.shape = "pfx";
      v.nkeys = 2000;
      v.note = "FixedPrefix(4); keys p,p0,p00 are outside the prefix domain";
      gen(&v);
      v.partitioned = 1;
      v.metadata_block_size = 256;
      v.nkeys = 20000;
      v.note = "partitioned + FixedPrefix(4)";
      gen(&v);
    }
    v = V(4, 1, F_BLOOM, 10);
    v.prefix_len = 4;
    v.wkf = wkf;
    v.shape = "pfx";
    v.nkeys = 2000;
    v.note = "legacy Bloom + FixedPrefix(4)";
    gen(&v);
  }
  v = V(5, 1, F_BLOOM, 10);
  v.prefix_len = 8;
  v.shape = "k20";
  v.note = "FixedPrefix(8) on 20-byte keys";
  gen(&v);

  /* 7. no filter policy at all. */
  v = V(5, 1, F_NONE, 0);
  v.note = "no filter policy";
  gen(&v);
  v = V(3, 0, F_NONE, 0);
  v.nkeys = 1;
  v.note = "no filter policy, one key";
  gen(&v);
  v = V(5, 4, F_NONE, 0);
  v.partitioned = 1;
  v.metadata_block_size = 256;
  v.nkeys = 5000;
  v.note = "no filter policy, two-level index with partition_filters=1 (no filter to partition)";
  gen(&v);

  /* 8. compression variants. */
  {
    static const int comps[] = {SNAPPY, LZ4, ZSTD};
    for (size_t c = 0; c < 3; c++) {
      v = V(5, 1, F_BLOOM, 10);
      v.compression = comps[c];
      v.nkeys = 5000;
      v.shape = "k20";
      v.note = "compressed data/index blocks";
      gen(&v);
      v = V(c == 0 ? 2 : 4, c == 2 ? 4 : 3, F_BLOOM, 10);
      v.compression = comps[c];
      v.nkeys = 5000;
      v.note = "compression with legacy Bloom";
      gen(&v);
    }
    v = V(5, 1, F_RIBBON, 10);
    v.compression = ZSTD;
    v.prefix_len = 4;
    v.shape = "pfx";
    v.nkeys = 5000;
    v.note = "zstd + ribbon + prefix";
    gen(&v);
  }

  /* 9. optimize_filters_for_memory (default false in 7.8.3). */
  for (int f = F_BLOOM; f <= F_RIBBON; f++) {
    v = V(5, 1, f, 10);
    v.nkeys = 5000;
    v.extra = "optimize_filters_for_memory=true;";
    v.note = "optimize_filters_for_memory=true via options string";
    gen(&v);
  }
  v = V(5, 1, F_BLOOM, 10);
  v.partitioned = 1;
  v.metadata_block_size = 256;
  v.nkeys = 20000;
  v.extra = "optimize_filters_for_memory=true;";
  v.note = "partitioned + optimize_filters_for_memory=true";
  gen(&v);

  /* 10. filters far larger than the 64 KiB an open reads first (about
   *     375 KB at 300,000 keys), full and partitioned: the opens through
   *     a read callback must still read at most twice. */
  for (int f = F_BLOOM; f <= F_RIBBON; f++)
    for (int part = 0; part <= 1; part++) {
      v = V(5, 1, f, 10);
      v.partitioned = part;
      v.nkeys = 300000;
      v.shape = "k20";
      v.note = "filter outside the first 64 KiB read (a second read brings it)";
      gen(&v);
    }

  if (fclose(g_manifest)) die("write manifest failed");
  printf("gen_rocksdb78: wrote %d SST files to %s (%s)\n", g_count, g_outdir, g_version);
  return 0;
}
