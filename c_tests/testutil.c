/*
 * rocksfilter C compatibility tests: deterministic key sets and RocksDB SST
 * writing helpers.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include "testutil.h"

#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *shape_name(key_shape s) {
    switch (s) {
    case SHAPE_FIXED4: return "4";
    case SHAPE_FIXED19: return "19";
    case SHAPE_FIXED20: return "20";
    case SHAPE_CYCLE_0_300: return "0..300";
    case SHAPE_RANGE_241_4096: return "241..4096";
    case SHAPE_RANGE_0_5000: return "0..5000";
    case SHAPE_BINARY: return "bin0..40";
    default: return "?";
    }
}

uint64_t prng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t shape_len(key_shape shape, size_t i, uint64_t *st) {
    switch (shape) {
    case SHAPE_FIXED4: return 4;
    case SHAPE_FIXED19: return 19;
    case SHAPE_FIXED20: return 20;
    case SHAPE_CYCLE_0_300: return i % 301;
    case SHAPE_RANGE_241_4096: return 241 + (size_t)(prng_next(st) % (4096 - 241 + 1));
    case SHAPE_RANGE_0_5000: return (size_t)(prng_next(st) % 5001);
    case SHAPE_BINARY: return (size_t)(prng_next(st) % 41);
    default: return 0;
    }
}

int keyset_generate(keyset *ks, key_shape shape, size_t n, uint64_t seed) {
    return keyset_generate_at(ks, shape, 0, n, seed);
}

int keyset_generate_at(keyset *ks, key_shape shape, size_t start, size_t n,
                       uint64_t seed) {
    memset(ks, 0, sizeof *ks);
    uint64_t st = seed * 0x2545f4914f6cdd1dULL + (uint64_t)shape + 1;
    ks->off = malloc((n ? n : 1) * sizeof *ks->off);
    ks->len = malloc((n ? n : 1) * sizeof *ks->len);
    ks->ptr = malloc((n ? n : 1) * sizeof *ks->ptr);
    if (!ks->off || !ks->len || !ks->ptr) return -1;
    /* lengths first (deterministic), then bytes */
    size_t total = 0;
    uint64_t lst = st ^ 0x5555555555555555ULL;
    for (size_t i = 0; i < n; i++) {
        ks->len[i] = shape_len(shape, start + i, &lst);
        ks->off[i] = total;
        total += ks->len[i];
    }
    ks->arena = malloc(total ? total : 1);
    if (!ks->arena) return -1;
    ks->arena_len = total;
    static const uint8_t bin[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
    size_t pos = 0;
    while (pos < total) {
        uint64_t r = prng_next(&st);
        if (shape == SHAPE_BINARY) {
            ks->arena[pos++] = bin[r % sizeof bin];
        } else {
            for (int b = 0; b < 8 && pos < total; b++) ks->arena[pos++] = (uint8_t)(r >> (8 * b));
        }
    }
    ks->n = n;
    for (size_t i = 0; i < n; i++) ks->ptr[i] = ks->arena + ks->off[i];
    return 0;
}

int keyset_from(keyset *ks, const uint8_t *const *keys, const size_t *lens, size_t n) {
    memset(ks, 0, sizeof *ks);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += lens[i];
    ks->off = malloc((n ? n : 1) * sizeof *ks->off);
    ks->len = malloc((n ? n : 1) * sizeof *ks->len);
    ks->ptr = malloc((n ? n : 1) * sizeof *ks->ptr);
    ks->arena = malloc(total ? total : 1);
    if (!ks->off || !ks->len || !ks->ptr || !ks->arena) return -1;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i]) memcpy(ks->arena + pos, keys[i], lens[i]);
        ks->off[i] = pos;
        ks->len[i] = lens[i];
        pos += lens[i];
    }
    ks->arena_len = total;
    ks->n = n;
    for (size_t i = 0; i < n; i++) ks->ptr[i] = ks->arena + ks->off[i];
    return 0;
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c;
    return al < bl ? -1 : al > bl ? 1 : 0;
}

typedef struct { const uint8_t *p; size_t len; size_t off; } sort_ent;

static int cmp_ent(const void *x, const void *y) {
    const sort_ent *a = x, *b = y;
    return cmp_bytes(a->p, a->len, b->p, b->len);
}

void keyset_sort_dedup(keyset *ks) {
    if (ks->n == 0) return;
    sort_ent *e = malloc(ks->n * sizeof *e);
    if (!e) { perror("malloc"); exit(2); }
    for (size_t i = 0; i < ks->n; i++) {
        e[i].p = ks->arena + ks->off[i];
        e[i].len = ks->len[i];
        e[i].off = ks->off[i];
    }
    qsort(e, ks->n, sizeof *e, cmp_ent);
    size_t m = 0;
    for (size_t i = 0; i < ks->n; i++) {
        if (m > 0 && cmp_ent(&e[m - 1], &e[i]) == 0) continue;
        e[m++] = e[i];
    }
    for (size_t i = 0; i < m; i++) {
        ks->off[i] = e[i].off;
        ks->len[i] = e[i].len;
        ks->ptr[i] = ks->arena + e[i].off;
    }
    ks->n = m;
    free(e);
}

int keyset_contains(const keyset *ks, const uint8_t *key, size_t len) {
    size_t lo = 0, hi = ks->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_bytes(ks->arena + ks->off[mid], ks->len[mid], key, len);
        if (c == 0) return 1;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return 0;
}

void keyset_free(keyset *ks) {
    free(ks->arena);
    free(ks->off);
    free(ks->len);
    free(ks->ptr);
    memset(ks, 0, sizeof *ks);
}

int rdb_write_sst(const char *path, const keyset *ks, rdb_policy policy,
                  double bpk, int format_version, char *err, size_t errlen) {
    return rdb_write_sst_prefix(path, ks, policy, bpk, format_version, 0, err, errlen);
}

int rdb_write_sst_prefix(const char *path, const keyset *ks, rdb_policy policy,
                         double bpk, int format_version, size_t prefix_len,
                         char *err, size_t errlen) {
    char *rerr = NULL;
    int rc = 0;
    rocksdb_options_t *opts = rocksdb_options_create();
    rocksdb_block_based_table_options_t *bbto = rocksdb_block_based_options_create();
    rocksdb_filterpolicy_t *fp = policy == RDB_RIBBON_HYBRID ? rocksdb_filterpolicy_create_ribbon_hybrid(bpk, -1)
                                 : policy == RDB_RIBBON      ? rocksdb_filterpolicy_create_ribbon(bpk)
                                                             : rocksdb_filterpolicy_create_bloom_full(bpk);
    /* ownership of fp passes to bbto */
    rocksdb_block_based_options_set_filter_policy(bbto, fp);
    rocksdb_block_based_options_set_format_version(bbto, format_version);
    rocksdb_options_set_block_based_table_factory(opts, bbto);
    rocksdb_options_set_compression(opts, rocksdb_no_compression);
    if (prefix_len > 0) /* ownership passes to opts */
        rocksdb_options_set_prefix_extractor(opts, rocksdb_slicetransform_create_fixed_prefix(prefix_len));
    rocksdb_envoptions_t *env = rocksdb_envoptions_create();
    rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(env, opts);

    rocksdb_sstfilewriter_open(w, path, &rerr);
    if (rerr) {
        snprintf(err, errlen, "sstfilewriter_open(%s): %s", path, rerr);
        rc = -1;
        goto out;
    }
    for (size_t i = 0; i < ks->n; i++) {
        rocksdb_sstfilewriter_put(w, (const char *)keyset_key(ks, i), ks->len[i], "", 0, &rerr);
        if (rerr) {
            snprintf(err, errlen, "sstfilewriter_put #%zu: %s", i, rerr);
            rc = -1;
            goto out;
        }
    }
    rocksdb_sstfilewriter_finish(w, &rerr);
    if (rerr) {
        snprintf(err, errlen, "sstfilewriter_finish: %s", rerr);
        rc = -1;
    }
out:
    rocksdb_free(rerr);
    rocksdb_sstfilewriter_destroy(w);
    rocksdb_envoptions_destroy(env);
    rocksdb_block_based_options_destroy(bbto);
    rocksdb_options_destroy(opts);
    return rc;
}

char *make_temp_dir(const char *prefix) {
    const char *t = getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    size_t n = strlen(t) + strlen(prefix) + 16;
    char *p = malloc(n);
    if (!p) return NULL;
    snprintf(p, n, "%s/%sXXXXXX", t, prefix);
    if (!mkdtemp(p)) {
        free(p);
        return NULL;
    }
    return p;
}

void remove_file(const char *path) { (void)unlink(path); }

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
