/*
 * rocksfilter C compatibility tests: deterministic key sets and RocksDB SST
 * writing helpers (shared by selftest.c and compat.c).
 */
#ifndef ROCKSFILTER_TESTUTIL_H
#define ROCKSFILTER_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SHAPE_FIXED4 = 0,     /* 4 random bytes */
    SHAPE_FIXED19,        /* 19 random bytes */
    SHAPE_FIXED20,        /* 20 random bytes */
    SHAPE_CYCLE_0_300,    /* length i % 301, random bytes */
    SHAPE_RANGE_241_4096, /* uniform length 241..4096 */
    SHAPE_RANGE_0_5000,   /* uniform length 0..5000 (all XXPH3 size paths) */
    SHAPE_BINARY,         /* lengths 0..40, bytes from {00,01,7f,80,fe,ff} */
    SHAPE_COUNT
} key_shape;

const char *shape_name(key_shape s);

/* A set of keys stored in one arena. */
typedef struct keyset {
    size_t n;
    uint8_t *arena;
    size_t arena_len;
    size_t *off;      /* n entries */
    size_t *len;      /* n entries */
    const uint8_t **ptr; /* n entries, into arena (for batch APIs) */
} keyset;

/* splitmix64 */
uint64_t prng_next(uint64_t *state);

/* Generates n keys of the given shape from seed. Not sorted. */
int keyset_generate(keyset *ks, key_shape shape, size_t n, uint64_t seed);
/* Same, for a chunk of a longer stream: key i gets the length rule of index
 * start + i (matters for SHAPE_CYCLE_0_300); use a different seed per chunk. */
int keyset_generate_at(keyset *ks, key_shape shape, size_t start, size_t n,
                       uint64_t seed);
/* Builds a keyset holding copies of the given keys. Not sorted. */
int keyset_from(keyset *ks, const uint8_t *const *keys, const size_t *lens, size_t n);
/* Sorts bytewise (RocksDB BytewiseComparator order) and removes duplicates. */
void keyset_sort_dedup(keyset *ks);
/* 1 if key is in the sorted keyset. */
int keyset_contains(const keyset *ks, const uint8_t *key, size_t len);
void keyset_free(keyset *ks);

static inline const uint8_t *keyset_key(const keyset *ks, size_t i) {
    return ks->arena + ks->off[i];
}

/* Filter policy kinds for writing SSTs with RocksDB. */
typedef enum {
    RDB_BLOOM_FULL = 0,    /* rocksdb_filterpolicy_create_bloom_full(bpk) */
    RDB_RIBBON_HYBRID = 1, /* rocksdb_filterpolicy_create_ribbon_hybrid(bpk, -1) */
    RDB_RIBBON = 2,        /* rocksdb_filterpolicy_create_ribbon(bpk) */
} rdb_policy;

/* Writes the (sorted, unique) keys with empty values into path using
 * RocksDB's SstFileWriter. Returns 0, or -1 with a message in err. */
int rdb_write_sst(const char *path, const keyset *ks, rdb_policy policy,
                  double bpk, int format_version, char *err, size_t errlen);
/* Same, with a fixed-length prefix extractor (prefix_len > 0; whole-key
 * filtering stays on), so RocksDB adds key and prefix to the filter. */
int rdb_write_sst_prefix(const char *path, const keyset *ks, rdb_policy policy,
                         double bpk, int format_version, size_t prefix_len,
                         char *err, size_t errlen);

/* mkdtemp under $TMPDIR (or /tmp); returns malloc()ed path. */
char *make_temp_dir(const char *prefix);
/* Removes a file, ignoring errors. */
void remove_file(const char *path);

double now_seconds(void);

#endif /* ROCKSFILTER_TESTUTIL_H */
