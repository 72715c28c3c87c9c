/* The golden vectors (tests/golden/, written by real RocksDB) checked through
 * the C ABI alone: what a C program linked against an installed or unpacked
 * librocksfilter sees. For each key of hashes.txt, rocksfilter_hash64 and
 * rocksfilter_legacy_hash32 equal RocksDB's; for each filter block, the block
 * built through rocksfilter_builder_* equals RocksDB's byte for byte, and
 * RocksDB's block loaded through rocksfilter_filter_load matches every key.
 * The cases are tests/golden.rs's (keys, file names): a file missing from the
 * directory fails.
 *
 *   golden_check DIR      (DIR: the repository's tests/golden)
 *
 * Built by c_tests/build.rs (run by c_tests/tests/golden_check.rs, natively
 * and on every cross target), and on its own against a dist archive by
 * scripts/dist-check.sh. Prints "N passed, M failed"; exit 1 on any failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocksfilter.h"

static int passed, failed;

#define CHECK(cond, ...)                                                                                \
    do {                                                                                                \
        if (cond) {                                                                                     \
            passed++;                                                                                   \
        } else {                                                                                        \
            failed++;                                                                                   \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                 \
            printf(__VA_ARGS__);                                                                        \
            printf("\n");                                                                               \
        }                                                                                               \
    } while (0)

/* Reads a whole file into malloc()ed memory; NULL (and a FAIL) if it can't. */
static uint8_t *read_file(const char *dir, const char *name, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        CHECK(0, "cannot open %s", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                CHECK(0, "out of memory reading %s", path);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* The hashed key of length len: byte j is (j * 131 + len * 7 + 17) mod 256. */
static void hash_key(uint8_t *key, size_t len) {
    for (size_t j = 0; j < len; j++)
        key[j] = (uint8_t)((j * 131 + len * 7 + 17) & 0xff);
}

static void check_hashes(const char *dir) {
    size_t len = 0;
    uint8_t *text = read_file(dir, "hashes.txt", &len);
    if (!text)
        return;
    uint8_t *key = malloc(5000);
    size_t lines = 0, pos = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        char line[128];
        size_t n = end - pos < sizeof line - 1 ? end - pos : sizeof line - 1;
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos = end + 1;
        size_t klen = 0;
        uint64_t h64 = 0;
        uint32_t h32 = 0;
        if (sscanf(line, "%zu %" SCNx64 " %" SCNx32, &klen, &h64, &h32) != 3 || klen > 5000) {
            CHECK(0, "hashes.txt line %zu: cannot parse \"%s\"", lines + 1, line);
            break;
        }
        hash_key(key, klen);
        uint64_t got64 = rocksfilter_hash64(key, klen);
        uint32_t got32 = rocksfilter_legacy_hash32(key, klen);
        CHECK(got64 == h64, "hash64 of the %zu-byte key: %016" PRIx64 " vs RocksDB %016" PRIx64, klen, got64, h64);
        CHECK(got32 == h32, "legacy hash32 of the %zu-byte key: %08" PRIx32 " vs RocksDB %08" PRIx32, klen, got32, h32);
        lines++;
    }
    /* tests/golden.rs: lengths 0..=300, then 1000, 4096, 5000. */
    CHECK(lines == 304, "hashes.txt: %zu lines, expected 304", lines);
    free(key);
    free(text);
}

struct golden_case {
    const char *prefix;
    rocksfilter_policy policy;
    const char *bpk;
    size_t keys;
};

/* tests/golden.rs's CASES, in order. */
static const struct golden_case cases[] = {
    {"bloom", ROCKSFILTER_POLICY_BLOOM, "1", 1},         {"bloom", ROCKSFILTER_POLICY_BLOOM, "1", 50},
    {"bloom", ROCKSFILTER_POLICY_BLOOM, "1", 1000},      {"bloom", ROCKSFILTER_POLICY_BLOOM, "10", 1},
    {"bloom", ROCKSFILTER_POLICY_BLOOM, "10", 50},       {"bloom", ROCKSFILTER_POLICY_BLOOM, "10", 1000},
    {"bloom", ROCKSFILTER_POLICY_BLOOM, "23.45", 1},     {"bloom", ROCKSFILTER_POLICY_BLOOM, "23.45", 50},
    {"bloom", ROCKSFILTER_POLICY_BLOOM, "23.45", 1000},  {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "1", 1},
    {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "1", 50}, {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "1", 1000},
    {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "10", 1}, {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "10", 50},
    {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "10", 1000},
    {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "23.45", 1},
    {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "23.45", 50},
    {"legacy", ROCKSFILTER_POLICY_LEGACY_BLOOM, "23.45", 1000},
    {"ribbon", ROCKSFILTER_POLICY_RIBBON, "10", 100},    {"ribbon", ROCKSFILTER_POLICY_RIBBON, "10", 3000},
    {"ribbon", ROCKSFILTER_POLICY_RIBBON, "10", 20000},  {"ribbon", ROCKSFILTER_POLICY_RIBBON, "10", 200000},
};

static void check_block(const char *dir, const struct golden_case *c) {
    char name[64], key[32];
    snprintf(name, sizeof name, "%s-%s-%zu.bin", c->prefix, c->bpk, c->keys);
    size_t want_len = 0;
    uint8_t *want = read_file(dir, name, &want_len);
    if (!want)
        return;
    rocksfilter_builder *b = NULL;
    char *err = NULL;
    rocksfilter_status st = rocksfilter_builder_new(c->policy, strtod(c->bpk, NULL), &b, &err);
    CHECK(st == ROCKSFILTER_OK, "%s: builder_new: %s", name, err ? err : "?");
    rocksfilter_string_free(err);
    err = NULL;
    if (st != ROCKSFILTER_OK) {
        free(want);
        return;
    }
    for (size_t i = 0; i < c->keys; i++) {
        int n = snprintf(key, sizeof key, "key%06zu", i);
        rocksfilter_builder_add_key(b, (const uint8_t *)key, (size_t)n);
    }
    uint8_t *got = NULL;
    size_t got_len = 0;
    st = rocksfilter_builder_finish(b, &got, &got_len, &err);
    rocksfilter_builder_free(b);
    CHECK(st == ROCKSFILTER_OK, "%s: builder_finish: %s", name, err ? err : "?");
    rocksfilter_string_free(err);
    err = NULL;
    if (st == ROCKSFILTER_OK) {
        size_t first = 0;
        while (first < got_len && first < want_len && got[first] == want[first])
            first++;
        CHECK(got_len == want_len && first == want_len,
              "%s: built block differs from RocksDB's (%zu vs %zu bytes, first difference at byte %zu)", name,
              got_len, want_len, first);
        rocksfilter_bytes_free(got, got_len);
    }
    rocksfilter_filter *f = NULL;
    st = rocksfilter_filter_load(want, want_len, &f, &err);
    CHECK(st == ROCKSFILTER_OK, "%s: filter_load of RocksDB's block: %s", name, err ? err : "?");
    rocksfilter_string_free(err);
    if (st == ROCKSFILTER_OK) {
        size_t missed = 0;
        for (size_t i = 0; i < c->keys; i++) {
            int n = snprintf(key, sizeof key, "key%06zu", i);
            if (!rocksfilter_filter_may_match(f, (const uint8_t *)key, (size_t)n))
                missed++;
        }
        CHECK(missed == 0, "%s: RocksDB's block misses %zu of its %zu keys", name, missed, c->keys);
        rocksfilter_filter_free(f);
    }
    free(want);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR   (DIR: the repository's tests/golden)\n", argv[0]);
        return 2;
    }
    printf("rocksfilter %s golden vectors from %s\n", rocksfilter_version(), argv[1]);
    check_hashes(argv[1]);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_block(argv[1], &cases[i]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#ifdef RFCT_COUNTS
/* For the Cargo tests (build.rs, tests/): the counts main printed. */
void RFCT_COUNTS(int *p, int *f) { *p = passed; *f = failed; }
#endif
