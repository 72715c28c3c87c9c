/*
 * Writes the golden vectors of tests/golden.rs (repo root) from real RocksDB:
 *
 *   golden-gen OUTDIR
 *
 * OUTDIR/hashes.txt: one line per key "LEN HASH64 BLOOMHASH" (hex), the key of
 *   length LEN having byte j = (j * 131 + LEN * 7 + 17) & 0xff, for LEN in
 *   0..=300, 1000, 4096, 5000. HASH64 is GetSliceHash64 and BLOOMHASH the
 *   legacy BloomHash, both computed by RocksDB 11.12's own code (the oracle,
 *   oracle/) and cross-checked against nothing else here.
 * OUTDIR/{bloom,legacy,ribbon}-BPK-N.bin: the full filter block RocksDB 7.8.3
 *   (Debian librocksdb-dev, C API) writes into an SST made by
 *   rocksdb_sstfilewriter over the N keys "key%06u" (i = 0..N-1), empty
 *   values, no compression: bloom = rocksdb_filterpolicy_create_bloom_full
 *   with format_version 5 (FastLocalBloom), legacy = the same with
 *   format_version 4 (legacy Bloom), ribbon = rocksdb_filterpolicy_create_ribbon
 *   with format_version 5. The block is cut out by sst_extract.c.
 *
 * The list of cases must equal CASES in tests/golden.rs. Prints one line per
 * file, then "N passed, M failed" (a failure is a file not written).
 * Built and run by c_tests/build.rs + tests/golden_gen.rs (ignored test
 * regenerate_golden), never by hand.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "sst_extract.h"
#include "testutil.h"

static int passed, failed;

typedef struct {
    const char *name; /* file name prefix */
    rdb_policy policy;
    int format_version;
} golden_policy;

static const golden_policy policies[] = {
    {"bloom", RDB_BLOOM_FULL, 5},
    {"legacy", RDB_BLOOM_FULL, 4},
    {"ribbon", RDB_RIBBON, 5},
};

typedef struct {
    int p; /* index into policies */
    const char *bpk; /* as in the file name; parsed with strtod */
    size_t n;
} golden_case;

static const golden_case cases[] = {
    {0, "1", 1},     {0, "1", 50},     {0, "1", 1000},     {0, "10", 1},    {0, "10", 50},
    {0, "10", 1000}, {0, "23.45", 1},  {0, "23.45", 50},   {0, "23.45", 1000},
    {1, "1", 1},     {1, "1", 50},     {1, "1", 1000},     {1, "10", 1},    {1, "10", 50},
    {1, "10", 1000}, {1, "23.45", 1},  {1, "23.45", 50},   {1, "23.45", 1000},
    {2, "10", 100},  {2, "10", 3000},  {2, "10", 20000}, {2, "10", 200000},
};

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    int rc = fclose(f);
    return w == len && rc == 0 ? 0 : -1;
}

static void hashes(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/hashes.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) { printf("FAIL %s: cannot open\n", path); failed++; return; }
    static uint8_t key[5000];
    static const size_t extra[] = {1000, 4096, 5000};
    size_t nlens = 301 + sizeof extra / sizeof *extra;
    for (size_t i = 0; i < nlens; i++) {
        size_t len = i <= 300 ? i : extra[i - 301];
        for (size_t j = 0; j < len; j++) key[j] = (uint8_t)((j * 131 + len * 7 + 17) & 0xff);
        fprintf(f, "%zu %016llx %08x\n", len, (unsigned long long)oracle_hash64(key, len),
                (unsigned)oracle_bloom_hash(key, len));
    }
    if (fclose(f) != 0) { printf("FAIL %s: write\n", path); failed++; return; }
    printf("ok   %s (%zu keys)\n", path, nlens);
    passed++;
}

static void block(const char *dir, const golden_case *c) {
    const golden_policy *p = &policies[c->p];
    char path[4096], sst[4096], err[512];
    snprintf(path, sizeof path, "%s/%s-%s-%zu.bin", dir, p->name, c->bpk, c->n);
    snprintf(sst, sizeof sst, "%s/tmp-%s-%s-%zu.sst", dir, p->name, c->bpk, c->n);
    char (*names)[16] = malloc(c->n * sizeof *names);
    const uint8_t **ptrs = malloc(c->n * sizeof *ptrs);
    size_t *lens = malloc(c->n * sizeof *lens);
    keyset ks;
    memset(&ks, 0, sizeof ks);
    if (!names || !ptrs || !lens) { printf("FAIL %s: out of memory\n", path); failed++; goto out; }
    for (size_t i = 0; i < c->n; i++) {
        lens[i] = (size_t)snprintf(names[i], sizeof names[i], "key%06zu", i);
        ptrs[i] = (const uint8_t *)names[i];
    }
    if (keyset_from(&ks, ptrs, lens, c->n) != 0) { printf("FAIL %s: keyset\n", path); failed++; goto out; }
    keyset_sort_dedup(&ks); /* already sorted and unique: a no-op */
    if (rdb_write_sst(sst, &ks, p->policy, strtod(c->bpk, NULL), p->format_version, err, sizeof err) != 0) {
        printf("FAIL %s: %s\n", path, err);
        failed++;
        goto out;
    }
    sst_filter_info info;
    memset(&info, 0, sizeof info);
    int r = sst_extract_filter(sst, &info);
    remove_file(sst);
    if (r != 1) {
        printf("FAIL %s: no full filter block (%s)\n", path, r < 0 ? info.error : "none");
        failed++;
    } else if (write_file(path, info.filter, info.filter_len) != 0) {
        printf("FAIL %s: write\n", path);
        failed++;
    } else {
        printf("ok   %s (%zu bytes, oracle kind %d)\n", path, info.filter_len,
               oracle_filter_kind(info.filter, info.filter_len));
        passed++;
    }
    sst_filter_info_free(&info);
out:
    keyset_free(&ks);
    free(names);
    free(ptrs);
    free(lens);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    hashes(argv[1]);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) block(argv[1], &cases[i]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#ifdef RFCT_COUNTS
void RFCT_COUNTS(int *p, int *f) { *p = passed; *f = failed; }
#endif
