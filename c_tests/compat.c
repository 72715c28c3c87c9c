/*
 * rocksfilter C compatibility test against real RocksDB.
 *
 *   build/compat {bloom|legacy|ribbon|all} [-v] [-k]
 *
 * For each case: generate deterministic keys, write an SST with RocksDB
 * 7.8.3's SstFileWriter, extract its full filter block, build the same filter
 * with rocksfilter's C ABI and require identical bytes; then load both and
 * require every key to match (single, batch, by hash) and, on 100,000 absent
 * keys, rocksfilter's answers to equal the RocksDB oracle's (RocksDB's own
 * filter code, see oracle/) on RocksDB's bytes. rocksfilter_hash64 must equal
 * RocksDB's GetSliceHash64 on every key used.
 *
 * Output: one PASS/FAIL line per case, then "N passed, M failed".
 * Exit status 0 iff nothing failed. -k keeps the SST files (prints the dir).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oracle.h"
#include "rocksfilter.h"
#include "sst_extract.h"
#include "testutil.h"

#define NUM_ABSENT 100000u
#define ABSENT_CHUNK 4096u

typedef enum { G_BLOOM = 0, G_LEGACY, G_RIBBON, G_COUNT } group;

static const char *group_name[G_COUNT] = {"bloom", "legacy", "ribbon"};

typedef struct {
    group g;
    double bpk;
    size_t nkeys;
    key_shape shape;
} compat_case;

static int passed, failed;
static int verbose, keep_files;
static const char *tmpdir;

/* ------------------------------------------------------------------ */

typedef struct {
    char buf[1024];
    size_t used;
} msgbuf;

static void msg(msgbuf *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msg(msgbuf *m, const char *fmt, ...) {
    if (m->used >= sizeof m->buf - 1) return;
    if (m->used) {
        m->buf[m->used++] = ';';
        m->buf[m->used++] = ' ';
        m->buf[m->used] = 0;
        if (m->used >= sizeof m->buf - 1) return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->buf + m->used, sizeof m->buf - m->used, fmt, ap);
    va_end(ap);
    if (n > 0) m->used += (size_t)n;
    if (m->used > sizeof m->buf - 1) m->used = sizeof m->buf - 1;
}

static const char *status_name(rocksfilter_status s) {
    switch (s) {
    case ROCKSFILTER_OK: return "OK";
    case ROCKSFILTER_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ROCKSFILTER_CORRUPTION: return "CORRUPTION";
    case ROCKSFILTER_NOT_SUPPORTED: return "NOT_SUPPORTED";
    case ROCKSFILTER_IO_ERROR: return "IO_ERROR";
    case ROCKSFILTER_NOT_FOUND: return "NOT_FOUND";
    case ROCKSFILTER_INTERNAL: return "INTERNAL";
    }
    return "?";
}

static void hexdump(char *out, size_t outlen, const uint8_t *p, size_t len) {
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < len && o + 3 < outlen; i++)
        o += (size_t)snprintf(out + o, outlen - o, "%02x", p[i]);
}

/* Describes the filter geometry from its trailer (as RocksDB reads it). */
static void describe_trailer(char *out, size_t outlen, const uint8_t *b, size_t len) {
    if (len <= 5) {
        snprintf(out, outlen, "empty");
        return;
    }
    int8_t m = (int8_t)b[len - 5];
    if (m == -1)
        snprintf(out, outlen, "probes=%d", b[len - 3] & 31);
    else if (m == -2)
        snprintf(out, outlen, "seed=%u blocks=%u", b[len - 4],
                 (unsigned)b[len - 3] | (unsigned)b[len - 2] << 8 | (unsigned)b[len - 1] << 16);
    else if (m > 0)
        snprintf(out, outlen, "probes=%d lines=%u", m,
                 (unsigned)b[len - 4] | (unsigned)b[len - 3] << 8 | (unsigned)b[len - 2] << 16 |
                     (unsigned)b[len - 1] << 24);
    else
        snprintf(out, outlen, "marker=%d", m);
}

static rocksfilter_policy lib_policy(group g) {
    switch (g) {
    case G_BLOOM: return ROCKSFILTER_POLICY_BLOOM;
    case G_LEGACY: return ROCKSFILTER_POLICY_LEGACY_BLOOM;
    default: return ROCKSFILTER_POLICY_RIBBON;
    }
}

static int group_fv(group g) { return g == G_LEGACY ? 4 : 5; }

static int not_supported_seen[G_COUNT];

/* ------------------------------------------------------------------ */

static void run_case(const compat_case *c, unsigned case_no) {
    msgbuf m = {{0}, 0};
    double t0 = now_seconds();
    int fv = group_fv(c->g);
    char label[200];
    keyset ks;
    uint64_t seed = 0x5eed0000ULL + (uint64_t)c->g * 100003ULL + case_no;
    if (keyset_generate(&ks, c->shape, c->nkeys, seed) != 0) {
        fprintf(stderr, "out of memory generating keys\n");
        exit(2);
    }
    keyset_sort_dedup(&ks);
    snprintf(label, sizeof label, "%s fv=%d keys=%zu bpk=%g keylen=%s", group_name[c->g], fv,
             ks.n, c->bpk, shape_name(c->shape));

    if (not_supported_seen[c->g]) {
        printf("FAIL %s: not run (rocksfilter_builder_new returned NOT_SUPPORTED for this policy)\n",
               label);
        failed++;
        keyset_free(&ks);
        return;
    }

    uint8_t *ours = NULL;
    size_t ours_len = 0;
    rocksfilter_builder *b = NULL;
    rocksfilter_filter *f_ours = NULL, *f_rdb = NULL;
    sst_filter_info info;
    memset(&info, 0, sizeof info);
    char *err = NULL;
    bool *res = NULL;
    double fp = NAN, ofp = NAN;
    char geom[96] = "";

    /* 1. Build with rocksfilter (first, so NOT_SUPPORTED is cheap). */
    rocksfilter_status st = rocksfilter_builder_new(lib_policy(c->g), c->bpk, &b, &err);
    if (st != ROCKSFILTER_OK) {
        msg(&m, "rocksfilter_builder_new(policy=%d, bpk=%g) -> %s: %s", (int)lib_policy(c->g),
            c->bpk, status_name(st), err ? err : "(no message)");
        if (st == ROCKSFILTER_NOT_SUPPORTED) {
            not_supported_seen[c->g] = 1;
            msg(&m, "remaining %s cases will not be run", group_name[c->g]);
        }
        rocksfilter_string_free(err);
        err = NULL;
        goto done;
    }
    for (size_t i = 0; i < ks.n; i++) rocksfilter_builder_add_key(b, keyset_key(&ks, i), ks.len[i]);
    st = rocksfilter_builder_finish(b, &ours, &ours_len, &err);
    if (st != ROCKSFILTER_OK) {
        msg(&m, "rocksfilter_builder_finish -> %s: %s", status_name(st), err ? err : "(no message)");
        rocksfilter_string_free(err);
        err = NULL;
        goto done;
    }

    /* 2. Write the SST with RocksDB and extract its filter block. */
    char path[600], rerr[600];
    snprintf(path, sizeof path, "%s/%s-%u.sst", tmpdir, group_name[c->g], case_no);
    if (rdb_write_sst(path, &ks, c->g == G_RIBBON ? RDB_RIBBON_HYBRID : RDB_BLOOM_FULL, c->bpk, fv,
                      rerr, sizeof rerr) != 0) {
        msg(&m, "RocksDB: %s", rerr);
        goto done;
    }
    int xrc = sst_extract_filter(path, &info);
    if (!keep_files) remove_file(path);
    if (xrc < 0) {
        msg(&m, "sst_extract: %s", info.error);
        goto done;
    }
    if (xrc == 0) {
        msg(&m, "RocksDB wrote no full filter (partitioned=%d block-based=%d, %u metaindex entries)",
            info.has_partitioned_filter, info.has_block_filter, info.metaindex_entries);
        goto done;
    }
    if (info.format_version != (uint32_t)fv) msg(&m, "SST footer format_version=%u", info.format_version);
    describe_trailer(geom, sizeof geom, info.filter, info.filter_len);

    /* 3. Bytes identical? */
    int bytes_equal = ours_len == info.filter_len &&
                      (ours_len == 0 || memcmp(ours, info.filter, ours_len) == 0);
    if (!bytes_equal) {
        size_t d = 0;
        while (d < ours_len && d < info.filter_len && ours[d] == info.filter[d]) d++;
        char ot[16], rt[16], og[96];
        hexdump(ot, sizeof ot, ours_len >= 5 ? ours + ours_len - 5 : ours, ours_len >= 5 ? 5 : ours_len);
        hexdump(rt, sizeof rt, info.filter + info.filter_len - (info.filter_len >= 5 ? 5 : info.filter_len),
                info.filter_len >= 5 ? 5 : info.filter_len);
        describe_trailer(og, sizeof og, ours, ours_len);
        msg(&m,
            "BYTES DIFFER: ours len=%zu rocksdb len=%zu first differing offset=%zu "
            "(ours 0x%02x rocksdb 0x%02x); trailers ours=%s [%s] rocksdb=%s [%s]",
            ours_len, info.filter_len, d, d < ours_len ? ours[d] : 0,
            d < info.filter_len ? info.filter[d] : 0, ot, og, rt, geom);
    }

    /* 4. Load: ours copied, RocksDB's borrowed. */
    st = rocksfilter_filter_load(ours, ours_len, &f_ours, &err);
    if (st != ROCKSFILTER_OK) {
        msg(&m, "rocksfilter_filter_load(ours) -> %s: %s", status_name(st), err ? err : "");
        rocksfilter_string_free(err);
        err = NULL;
        f_ours = NULL;
    }
    st = rocksfilter_filter_load_borrowed(info.filter, info.filter_len, &f_rdb, &err);
    if (st != ROCKSFILTER_OK) {
        msg(&m, "rocksfilter_filter_load_borrowed(rocksdb) -> %s: %s", status_name(st), err ? err : "");
        rocksfilter_string_free(err);
        err = NULL;
        f_rdb = NULL;
        goto done;
    }
    /* free our builder's bytes now: the copied filter must not depend on them */
    rocksfilter_bytes_free(ours, ours_len);
    ours = NULL;

    int okind = oracle_filter_kind(info.filter, info.filter_len);
    int lkind = (int)rocksfilter_filter_kind(f_rdb);
    if (okind != lkind) msg(&m, "kind on RocksDB bytes: ours=%d rocksdb=%d", lkind, okind);
    if (f_ours && bytes_equal && (int)rocksfilter_filter_kind(f_ours) != okind)
        msg(&m, "kind of our loaded copy=%d rocksdb=%d", (int)rocksfilter_filter_kind(f_ours), okind);
    bool use_hash = okind != ROCKSFILTER_KIND_LEGACY_BLOOM;

    /* 5. Every present key must match. */
    size_t miss_single = 0, miss_batch = 0, miss_hash = 0, miss_ours = 0, miss_oracle = 0,
           hash_diff = 0;
    size_t first_hash_diff = (size_t)-1;
    res = malloc((ks.n > ABSENT_CHUNK ? ks.n : ABSENT_CHUNK) * sizeof *res);
    if (!res) { fprintf(stderr, "out of memory\n"); exit(2); }
    for (size_t i = 0; i < ks.n; i++) {
        const uint8_t *k = keyset_key(&ks, i);
        size_t kl = ks.len[i];
        uint64_t h = rocksfilter_hash64(k, kl);
        if (h != oracle_hash64(k, kl)) {
            if (!hash_diff) first_hash_diff = kl;
            hash_diff++;
        }
        if (!rocksfilter_filter_may_match(f_rdb, k, kl)) miss_single++;
        if (f_ours && !rocksfilter_filter_may_match(f_ours, k, kl)) miss_ours++;
        if (use_hash && !rocksfilter_filter_may_match_hash(f_rdb, h)) miss_hash++;
        if (!oracle_filter_may_match(info.filter, info.filter_len, k, kl)) miss_oracle++;
    }
    memset(res, 0, ks.n * sizeof *res);
    rocksfilter_filter_may_match_batch(f_rdb, ks.ptr, ks.len, ks.n, res);
    for (size_t i = 0; i < ks.n; i++) miss_batch += !res[i];
    if (miss_single) msg(&m, "%zu/%zu present keys rejected by may_match on RocksDB bytes", miss_single, ks.n);
    if (miss_ours) msg(&m, "%zu/%zu present keys rejected by may_match on our bytes", miss_ours, ks.n);
    if (miss_batch) msg(&m, "%zu/%zu present keys rejected by may_match_batch", miss_batch, ks.n);
    if (miss_hash) msg(&m, "%zu/%zu present keys rejected by may_match_hash(hash64)", miss_hash, ks.n);
    if (miss_oracle) msg(&m, "ORACLE: %zu/%zu present keys rejected by oracle (oracle or extractor bug)", miss_oracle, ks.n);

    /* 6. Absent keys: ours == oracle on RocksDB's bytes. */
    size_t diff_single = 0, diff_batch = 0, diff_hash = 0, diff_ours = 0, q = 0, hits = 0, ohits = 0;
    char first_diff[200] = "";
    for (size_t start = 0; start < NUM_ABSENT; start += ABSENT_CHUNK) {
        size_t n = NUM_ABSENT - start < ABSENT_CHUNK ? NUM_ABSENT - start : ABSENT_CHUNK;
        keyset ab;
        if (keyset_generate_at(&ab, c->shape, start, n, ~seed + start * 0x10001ULL) != 0) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        memset(res, 0, n * sizeof *res);
        rocksfilter_filter_may_match_batch(f_rdb, ab.ptr, ab.len, n, res);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *k = keyset_key(&ab, i);
            size_t kl = ab.len[i];
            uint64_t h = rocksfilter_hash64(k, kl);
            if (h != oracle_hash64(k, kl)) {
                if (!hash_diff) first_hash_diff = kl;
                hash_diff++;
            }
            bool mine = rocksfilter_filter_may_match(f_rdb, k, kl);
            bool want = oracle_filter_may_match(info.filter, info.filter_len, k, kl) != 0;
            if (mine != want) {
                if (!diff_single)
                    snprintf(first_diff, sizeof first_diff, "absent key #%zu len=%zu: ours=%d oracle=%d",
                             start + i, kl, mine, want);
                diff_single++;
            }
            if (res[i] != want) diff_batch++;
            if (use_hash && rocksfilter_filter_may_match_hash(f_rdb, h) !=
                                (oracle_filter_hash_may_match(info.filter, info.filter_len, h) != 0))
                diff_hash++;
            if (f_ours && bytes_equal && rocksfilter_filter_may_match(f_ours, k, kl) != want) diff_ours++;
            if (!keyset_contains(&ks, k, kl)) {
                q++;
                hits += mine;
                ohits += want;
            }
        }
        keyset_free(&ab);
    }
    if (diff_single) msg(&m, "%zu/%u absent-key answers differ from oracle (first: %s)", diff_single, NUM_ABSENT, first_diff);
    if (diff_batch) msg(&m, "%zu/%u batch answers differ from oracle", diff_batch, NUM_ABSENT);
    if (diff_hash) msg(&m, "%zu/%u may_match_hash answers differ from oracle HashMayMatch", diff_hash, NUM_ABSENT);
    if (diff_ours) msg(&m, "%zu/%u answers on our loaded copy differ from oracle", diff_ours, NUM_ABSENT);
    if (hash_diff) msg(&m, "rocksfilter_hash64 != GetSliceHash64 on %zu keys (first at key length %zu)", hash_diff, first_hash_diff);
    if (q) {
        fp = (double)hits / (double)q;
        ofp = (double)ohits / (double)q;
    }

done:
    if (f_ours) rocksfilter_filter_free(f_ours);
    if (f_rdb) rocksfilter_filter_free(f_rdb);
    if (b) rocksfilter_builder_free(b);
    rocksfilter_bytes_free(ours, ours_len);
    free(res);
    double dt = now_seconds() - t0;
    if (m.used == 0) {
        printf("PASS %s bytes=%zu %s fp=%.4f (oracle fp=%.4f)%s", label, info.filter_len, geom, fp, ofp,
               verbose ? "" : "\n");
        if (verbose) printf(" %.2fs\n", dt);
        passed++;
    } else {
        printf("FAIL %s: %s\n", label, m.buf);
        failed++;
    }
    fflush(stdout);
    sst_filter_info_free(&info);
    keyset_free(&ks);
}

/* ------------------------------------------------------------------ */
/* Case matrix                                                          */

static compat_case *cases;
static size_t ncases, capcases;

static void add(group g, double bpk, size_t nkeys, key_shape shape) {
    if (ncases == capcases) {
        capcases = capcases ? 2 * capcases : 256;
        cases = realloc(cases, capcases * sizeof *cases);
        if (!cases) { perror("realloc"); exit(2); }
    }
    cases[ncases++] = (compat_case){g, bpk, nkeys, shape};
}

#define COUNT(a) (sizeof(a) / sizeof *(a))

static void bloom_like_cases(group g) {
    static const double bpks[] = {0.7, 1, 1.5, 2, 3, 5, 7.4999, 9.9, 10, 16, 23.45, 99.99, 150};
    static const size_t counts[] = {1, 87, 2087};
    static const key_shape shapes[] = {SHAPE_FIXED4, SHAPE_FIXED20, SHAPE_CYCLE_0_300};
    for (size_t b = 0; b < COUNT(bpks); b++)
        for (size_t c = 0; c < COUNT(counts); c++)
            for (size_t s = 0; s < COUNT(shapes); s++) add(g, bpks[b], counts[c], shapes[s]);
    /* other key shapes at a few settings */
    static const double few[] = {1, 10, 23.45};
    static const key_shape more[] = {SHAPE_FIXED19, SHAPE_BINARY, SHAPE_RANGE_241_4096, SHAPE_RANGE_0_5000};
    for (size_t b = 0; b < COUNT(few); b++)
        for (size_t s = 0; s < COUNT(more); s++) {
            add(g, few[b], 87, more[s]);
            add(g, few[b], 2087, more[s]);
        }
    add(g, 10, 20000, SHAPE_RANGE_241_4096);
    add(g, 7.4999, 20000, SHAPE_RANGE_0_5000);
    /* 1M keys, 20-byte keys, a few bpk */
    add(g, 1, 1000000, SHAPE_FIXED20);
    add(g, 10, 1000000, SHAPE_FIXED20);
    add(g, 23.45, 1000000, SHAPE_FIXED20);
}

static void ribbon_cases(void) {
    static const double bpks[] = {1.5, 2, 3, 5, 6.5, 9.9, 10, 16, 20, 23.45, 50, 99.99};
    static const size_t counts[] = {1, 87, 1000, 2087, 3000, 50000};
    for (size_t b = 0; b < COUNT(bpks); b++)
        for (size_t c = 0; c < COUNT(counts); c++) add(G_RIBBON, bpks[b], counts[c], SHAPE_FIXED19);
    static const double few[] = {1.5, 6.5, 10, 23.45, 99.99};
    static const size_t fewc[] = {87, 1000, 3000};
    static const key_shape shapes[] = {SHAPE_FIXED4, SHAPE_CYCLE_0_300, SHAPE_RANGE_241_4096};
    for (size_t b = 0; b < COUNT(few); b++)
        for (size_t c = 0; c < COUNT(fewc); c++)
            for (size_t s = 0; s < COUNT(shapes); s++) add(G_RIBBON, few[b], fewc[c], shapes[s]);
    add(G_RIBBON, 2, 50000, SHAPE_FIXED4);
    add(G_RIBBON, 10, 50000, SHAPE_CYCLE_0_300);
    add(G_RIBBON, 16, 50000, SHAPE_RANGE_241_4096);
    add(G_RIBBON, 10, 2087, SHAPE_BINARY);
    add(G_RIBBON, 10, 3000, SHAPE_RANGE_0_5000);
    add(G_RIBBON, 1.5, 1000000, SHAPE_FIXED19);
    add(G_RIBBON, 10, 1000000, SHAPE_FIXED19);
    add(G_RIBBON, 23.45, 1000000, SHAPE_FIXED19);
    add(G_RIBBON, 10, 1000000, SHAPE_FIXED4);
}

static void usage(const char *argv0) {
    fprintf(stderr, "usage: %s {bloom|legacy|ribbon|all} [-v] [-k]\n", argv0);
    exit(2);
}

int main(int argc, char **argv) {
    int want[G_COUNT] = {0, 0, 0};
    int any = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "-k")) keep_files = 1;
        else if (!strcmp(argv[i], "all")) want[G_BLOOM] = want[G_LEGACY] = want[G_RIBBON] = any = 1;
        else {
            int found = 0;
            for (int g = 0; g < G_COUNT; g++)
                if (!strcmp(argv[i], group_name[g])) want[g] = found = any = 1;
            if (!found) usage(argv[0]);
        }
    }
    if (!any) usage(argv[0]);

    if (want[G_BLOOM]) bloom_like_cases(G_BLOOM);
    if (want[G_LEGACY]) bloom_like_cases(G_LEGACY);
    if (want[G_RIBBON]) ribbon_cases();

    char *dir = make_temp_dir("rocksfilter-compat-");
    if (!dir) { perror("mkdtemp"); return 2; }
    tmpdir = dir;
    printf("rocksfilter %s vs RocksDB 7.8.3 SstFileWriter; %zu cases; tmp dir %s\n", rocksfilter_version(),
           ncases, dir);
    double t0 = now_seconds();
    for (size_t i = 0; i < ncases; i++) run_case(&cases[i], (unsigned)i);
    if (!keep_files) rmdir(dir);
    free(dir);
    free(cases);
    fprintf(stderr, "compat: %.1fs\n", now_seconds() - t0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
