/*
 * rocksfilter C compatibility test against real RocksDB.
 *
 *   build/compat {bloom|legacy|ribbon|prefix|sized|all}... [-v] [-k]
 *
 * Groups: bloom (format_version 5 FastLocalBloom), legacy (format_version 4
 * legacy Bloom), ribbon (ribbon_hybrid(bpk, -1)), prefix (all three policies
 * with a fixed-length prefix extractor: RocksDB adds key and prefix, we call
 * rocksfilter_builder_add_key_and_alt), sized (blocks sized by FP target,
 * byte budget or banding table, judged by the oracle alone: see run_sized).
 * "all" = all five.
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

typedef enum { SPECIAL_NONE = 0, SPECIAL_LEGACY_HASH_COLLISION = 1 } special_keys;

typedef struct {
    group g; /* policy */
    double bpk;
    size_t nkeys;
    key_shape shape;
    size_t prefix_len;    /* > 0: fixed prefix extractor, add_key_and_alt */
    special_keys special; /* special key set */
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

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Key set with two keys that share RocksDB's legacy 32-bit BloomHash and are
 * adjacent in sorted order (RocksDB's builders de-duplicate adjacent equal
 * hashes, so the legacy builder records one entry for both, which changes
 * the filter size), plus up to nfill random 8-byte keys not sorting between
 * them. */
static int collision_keyset(keyset *ks, size_t nfill, uint64_t seed) {
    enum { N = 1 << 19 };
    uint64_t *hk = malloc(N * sizeof *hk); /* hash << 32 | index */
    uint64_t *raw = malloc(N * sizeof *raw);
    if (!hk || !raw) {
        free(hk);
        free(raw);
        return -1;
    }
    uint64_t st = seed;
    for (size_t i = 0; i < N; i++) {
        raw[i] = prng_next(&st);
        hk[i] = (uint64_t)oracle_bloom_hash((const uint8_t *)&raw[i], 8) << 32 | i;
    }
    qsort(hk, N, sizeof *hk, cmp_u64);
    size_t a = N, b = N;
    for (size_t i = 1; i < N && a == N; i++)
        if (hk[i] >> 32 == hk[i - 1] >> 32 && raw[hk[i] & 0xffffffffu] != raw[hk[i - 1] & 0xffffffffu]) {
            a = (size_t)(hk[i - 1] & 0xffffffffu);
            b = (size_t)(hk[i] & 0xffffffffu);
        }
    free(hk);
    if (a == N) {
        free(raw);
        return -1;
    }
    uint8_t ka[8], kb[8];
    memcpy(ka, &raw[a], 8);
    memcpy(kb, &raw[b], 8);
    size_t n = nfill + 2;
    const uint8_t **keys = malloc(n * sizeof *keys);
    size_t *lens = malloc(n * sizeof *lens);
    if (!keys || !lens) return -1;
    keys[0] = ka;
    keys[1] = kb;
    lens[0] = lens[1] = 8;
    for (size_t i = 0; i < nfill; i++) {
        keys[2 + i] = (const uint8_t *)&raw[(a + b + 1 + 7919 * i) % N];
        lens[2 + i] = 8;
    }
    keyset tmp;
    int rc = keyset_from(&tmp, keys, lens, n);
    free(keys);
    free(lens);
    free(raw);
    if (rc) return rc;
    keyset_sort_dedup(&tmp);
    size_t ia = tmp.n, ib = tmp.n;
    for (size_t i = 0; i < tmp.n; i++) {
        if (!memcmp(keyset_key(&tmp, i), ka, 8)) ia = i;
        if (!memcmp(keyset_key(&tmp, i), kb, 8)) ib = i;
    }
    if (ia > ib) {
        size_t t = ia;
        ia = ib;
        ib = t;
    }
    /* drop keys strictly between the colliding pair */
    size_t m = 0;
    for (size_t i = 0; i < tmp.n; i++) {
        if (i > ia && i < ib) continue;
        tmp.off[m] = tmp.off[i];
        tmp.len[m] = tmp.len[i];
        tmp.ptr[m] = tmp.ptr[i];
        m++;
    }
    tmp.n = m;
    *ks = tmp;
    return 0;
}

/* ------------------------------------------------------------------ */

/* How keys reach the filter bits builder with a prefix extractor (whole-key
 * filtering on). RocksDB 7.8.3 FullFilterBlockBuilder::Add: AddKey(key)
 * unless equal to the last whole key, then AddKey(prefix) unless equal to
 * the last prefix; the bits builder drops a hash equal to the previous one.
 * Newer RocksDB (the 11.12 source here) instead calls AddKeyAndAlt(key, prefix): alt
 * first unless equal to the previous alt, the key or the previous entry;
 * then the key unless equal to the previous entry or previous alt. Without
 * a prefix extractor both are AddKey(key) per key. */
typedef enum { STYLE_ROCKSDB_7 = 0, STYLE_ADD_KEY_AND_ALT = 1 } feed_style;

static uint64_t entry_hash(const compat_case *c, const uint8_t *k, size_t kl) {
    return c->g == G_LEGACY ? oracle_bloom_hash(k, kl) : oracle_hash64(k, kl);
}

/* The exact entry sequence RocksDB's bits builder records; returns its
 * length, *out malloc()ed. */
static size_t entry_sequence(const keyset *ks, const compat_case *c, feed_style style, uint64_t **out) {
    size_t plen = c->prefix_len, m = 0;
    uint64_t *h = malloc((2 * ks->n + 1) * sizeof *h);
    if (!h) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
#define PUSH(x)                                   \
    do {                                          \
        uint64_t x_ = (x);                        \
        if (m == 0 || h[m - 1] != x_) h[m++] = x_; \
    } while (0)
    const uint8_t *last_key = NULL, *last_prefix = NULL;
    size_t last_key_len = 0;
    int have_prev_alt = 0;
    uint64_t prev_alt = 0;
    for (size_t i = 0; i < ks->n; i++) {
        const uint8_t *k = keyset_key(ks, i);
        size_t kl = ks->len[i];
        uint64_t hk = entry_hash(c, k, kl);
        if (!plen || kl < plen) {
            PUSH(hk);
            continue;
        }
        uint64_t hp = entry_hash(c, k, plen);
        if (style == STYLE_ROCKSDB_7) {
            if (!last_key || last_key_len != kl || memcmp(last_key, k, kl) != 0) PUSH(hk);
            last_key = k;
            last_key_len = kl;
            if (!last_prefix || memcmp(last_prefix, k, plen) != 0) PUSH(hp);
            last_prefix = k;
        } else {
            /* XXPH3FilterBitsBuilder / LegacyBloomBitsBuilder::AddKeyAndAlt */
            int have_prev_key = m > 0;
            uint64_t prev_key = have_prev_key ? h[m - 1] : 0;
            int had_prev_alt = have_prev_alt;
            uint64_t old_prev_alt = prev_alt;
            if (!(had_prev_alt && hp == old_prev_alt) && hp != hk && !(have_prev_key && hp == prev_key))
                h[m++] = hp; /* AddHash: no further de-duplication */
            have_prev_alt = 1;
            prev_alt = hp;
            if (!(have_prev_key && hk == prev_key) && !(had_prev_alt && hk == old_prev_alt)) h[m++] = hk;
        }
    }
#undef PUSH
    *out = h;
    return m;
}

/* Feeds the keys to our builder in RocksDB 7.8.3's order with add_key. */
static void feed_rocksdb7(rocksfilter_builder *b, const keyset *ks, size_t plen) {
    const uint8_t *last_key = NULL, *last_prefix = NULL;
    size_t last_key_len = 0;
    for (size_t i = 0; i < ks->n; i++) {
        const uint8_t *k = keyset_key(ks, i);
        size_t kl = ks->len[i];
        if (!plen || kl < plen) {
            rocksfilter_builder_add_key(b, k, kl);
            continue;
        }
        if (!last_key || last_key_len != kl || memcmp(last_key, k, kl) != 0) rocksfilter_builder_add_key(b, k, kl);
        last_key = k;
        last_key_len = kl;
        if (!last_prefix || memcmp(last_prefix, k, plen) != 0) rocksfilter_builder_add_key(b, k, plen);
        last_prefix = k;
    }
}

/* Feeds the keys with add_key_and_alt(key, prefix) (newer RocksDB order, as in the 11.12 source). */
static void feed_key_and_alt(rocksfilter_builder *b, const keyset *ks, size_t plen) {
    for (size_t i = 0; i < ks->n; i++) {
        const uint8_t *k = keyset_key(ks, i);
        size_t kl = ks->len[i];
        if (plen && kl >= plen)
            rocksfilter_builder_add_key_and_alt(b, k, kl, k, plen);
        else
            rocksfilter_builder_add_key(b, k, kl);
    }
}

/* rocksfilter's SST reader vs our extractor and RocksDB's write options. */
static void check_sst(msgbuf *m, const rocksfilter_sst *sst, const compat_case *c, int fv,
                      const sst_filter_info *info) {
    rocksfilter_sst_properties p;
    memset(&p, 0, sizeof p);
    rocksfilter_status st = rocksfilter_sst_get_properties(sst, &p);
    if (st != ROCKSFILTER_OK) {
        msg(m, "sst_get_properties -> %s", status_name(st));
        return;
    }
    if (p.format_version != (uint32_t)fv) msg(m, "sst properties: format_version=%u", p.format_version);
    if (p.checksum_type != info->checksum_type)
        msg(m, "sst properties: checksum_type=%u, footer says %u", p.checksum_type, info->checksum_type);
    if (p.filter_type != ROCKSFILTER_SST_FILTER_FULL || p.num_partitions != 1)
        msg(m, "sst properties: filter_type=%u num_partitions=%u", p.filter_type, p.num_partitions);
    if (!p.filter_block_name || strcmp(p.filter_block_name, SST_FULL_FILTER_KEY) != 0)
        msg(m, "sst properties: filter_block_name=%s", p.filter_block_name ? p.filter_block_name : "(null)");
    if (!p.whole_key_filtering) msg(m, "sst properties: whole_key_filtering false");
    if (p.filter_size != info->filter_len)
        msg(m, "sst properties: filter_size=%llu, block is %zu bytes", (unsigned long long)p.filter_size,
            info->filter_len);
    if (c->prefix_len) {
        char want[64];
        snprintf(want, sizeof want, "rocksdb.FixedPrefix.%zu", c->prefix_len);
        if (!p.has_prefix_filter || !p.prefix_extractor || strcmp(p.prefix_extractor, want) != 0)
            msg(m, "sst properties: has_prefix_filter=%d prefix_extractor=%s (want %s)", p.has_prefix_filter,
                p.prefix_extractor ? p.prefix_extractor : "(null)", want);
    } else if (p.has_prefix_filter) {
        msg(m, "sst properties: has_prefix_filter without a prefix extractor");
    }
    rocksfilter_filter *f = NULL;
    st = rocksfilter_sst_full_filter(sst, &f, NULL);
    if (st != ROCKSFILTER_OK) {
        msg(m, "sst_full_filter -> %s", status_name(st));
        return;
    }
    const uint8_t *d = NULL;
    size_t dl = 0;
    st = rocksfilter_filter_data(f, &d, &dl);
    if (st != ROCKSFILTER_OK || dl != info->filter_len || (dl && memcmp(d, info->filter, dl) != 0))
        msg(m, "sst_full_filter bytes differ from the extracted block (%s, %zu vs %zu bytes)", status_name(st), dl,
            info->filter_len);
    rocksfilter_filter_free(f);
}

/* rocksfilter_filter_get_info vs the trailer. */
static void check_info(msgbuf *m, const rocksfilter_filter *f, const uint8_t *b, size_t len, int okind) {
    rocksfilter_filter_info fi;
    memset(&fi, 0, sizeof fi);
    rocksfilter_status st = rocksfilter_filter_get_info(f, &fi);
    if (st != ROCKSFILTER_OK) {
        msg(m, "filter_get_info -> %s", status_name(st));
        return;
    }
    if ((int)fi.kind != okind || fi.bytes != len) msg(m, "get_info: kind=%u bytes=%llu", fi.kind, (unsigned long long)fi.bytes);
    if (len <= 5) return;
    int8_t mk = (int8_t)b[len - 5];
    if (okind == ROCKSFILTER_KIND_FAST_LOCAL_BLOOM && (fi.num_probes != (uint32_t)(b[len - 3] & 31) || fi.line_bytes != 64))
        msg(m, "get_info: num_probes=%u line_bytes=%u", fi.num_probes, fi.line_bytes);
    if (okind == ROCKSFILTER_KIND_LEGACY_BLOOM) {
        uint32_t lines = (uint32_t)b[len - 4] | (uint32_t)b[len - 3] << 8 | (uint32_t)b[len - 2] << 16 |
                         (uint32_t)b[len - 1] << 24;
        if (fi.num_probes != (uint32_t)mk || fi.num_lines != lines || fi.line_bytes * lines != len - 5)
            msg(m, "get_info: num_probes=%u num_lines=%u line_bytes=%u", fi.num_probes, fi.num_lines, fi.line_bytes);
    }
    if (okind == ROCKSFILTER_KIND_STANDARD128_RIBBON) {
        uint32_t blocks = (uint32_t)b[len - 3] | (uint32_t)b[len - 2] << 8 | (uint32_t)b[len - 1] << 16;
        if (fi.seed != b[len - 4] || fi.num_blocks != blocks) msg(m, "get_info: seed=%u num_blocks=%u", fi.seed, fi.num_blocks);
        /* solution bytes = 16 * (num_blocks * lower_cols + (num_blocks - upper_start)) */
        uint64_t segs = (uint64_t)blocks * fi.lower_num_columns + (blocks - fi.upper_start_block);
        if (fi.upper_start_block > blocks || segs != (len - 5) / 16)
            msg(m, "get_info: lower_num_columns=%u upper_start_block=%u inconsistent with %zu data bytes",
                fi.lower_num_columns, fi.upper_start_block, len - 5);
    }
}

static void run_case(const compat_case *c, unsigned case_no) {
    msgbuf m = {{0}, 0};
    double t0 = now_seconds();
    int fv = group_fv(c->g);
    char label[200];
    keyset ks;
    /* seed from the case parameters only, so a case reproduces whatever
     * groups are selected */
    uint64_t seed = 0x5eed0000ULL;
    {
        uint64_t mix[6] = {(uint64_t)c->g, (uint64_t)llround(c->bpk * 1e6), (uint64_t)c->nkeys,
                           (uint64_t)c->shape, (uint64_t)c->prefix_len, (uint64_t)c->special};
        for (int i = 0; i < 6; i++) {
            seed ^= mix[i];
            (void)prng_next(&seed);
            seed = prng_next(&seed);
        }
    }
    if (c->special == SPECIAL_LEGACY_HASH_COLLISION) {
        if (collision_keyset(&ks, c->nkeys, seed) != 0) {
            fprintf(stderr, "could not generate a BloomHash collision\n");
            exit(2);
        }
    } else {
        if (keyset_generate(&ks, c->shape, c->nkeys, seed) != 0) {
            fprintf(stderr, "out of memory generating keys\n");
            exit(2);
        }
        keyset_sort_dedup(&ks);
    }
    char extra[64] = "";
    if (c->prefix_len) snprintf(extra, sizeof extra, " prefix=%zu", c->prefix_len);
    if (c->special == SPECIAL_LEGACY_HASH_COLLISION) snprintf(extra, sizeof extra, " +bloomhash-collision");
    snprintf(label, sizeof label, "%s fv=%d keys=%zu bpk=%g keylen=%s%s", group_name[c->g], fv, ks.n,
             c->bpk, c->special ? "8" : shape_name(c->shape), extra);

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
    rocksfilter_sst *sst = NULL;
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
    /* Primary build: the keys (and prefixes) exactly as RocksDB 7.8.3 hands
     * them to its filter bits builder. */
    uint64_t *seq = NULL;
    size_t want_entries = entry_sequence(&ks, c, STYLE_ROCKSDB_7, &seq);
    free(seq);
    seq = NULL;
    feed_rocksdb7(b, &ks, c->prefix_len);
    size_t got_entries = rocksfilter_builder_num_entries(b);
    if (got_entries != want_entries)
        msg(&m, "builder_num_entries=%zu, RocksDB would count %zu", got_entries, want_entries);
    if (c->special == SPECIAL_LEGACY_HASH_COLLISION && c->g == G_LEGACY && want_entries != ks.n - 1)
        msg(&m, "harness: collision pair not adjacent (%zu entries for %zu keys)", want_entries, ks.n);
    st = rocksfilter_builder_finish(b, &ours, &ours_len, &err);
    if (st != ROCKSFILTER_OK) {
        msg(&m, "rocksfilter_builder_finish -> %s: %s", status_name(st), err ? err : "(no message)");
        rocksfilter_string_free(err);
        err = NULL;
        goto done;
    }

#ifdef COMPAT_TAMPER
    if (ours_len > 5) ours[ours_len / 2] ^= 0x10;
#endif

    /* 2. Write the SST with RocksDB and extract its filter block. */
    char path[600], rerr[600];
    snprintf(path, sizeof path, "%s/%s-%u.sst", tmpdir, group_name[c->g], case_no);
    if (rdb_write_sst_prefix(path, &ks, c->g == G_RIBBON ? RDB_RIBBON_HYBRID : RDB_BLOOM_FULL, c->bpk, fv,
                             c->prefix_len, rerr, sizeof rerr) != 0) {
        msg(&m, "RocksDB: %s", rerr);
        goto done;
    }
    int xrc = sst_extract_filter(path, &info);
    /* rocksfilter's own SST reader on the same file (mmap: stays valid after
     * the file is unlinked) */
    st = rocksfilter_sst_open(path, &sst, &err);
    if (st != ROCKSFILTER_OK) {
        msg(&m, "rocksfilter_sst_open -> %s: %s", status_name(st), err ? err : "");
        rocksfilter_string_free(err);
        err = NULL;
        sst = NULL;
    }
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
    if (sst) check_sst(&m, sst, c, fv, &info);

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

    /* 3b. Prefix cases: also build with add_key_and_alt(key, prefix). That
     * is newer RocksDB's order (11.12 source: alt first), so RocksDB 7.8.3's Ribbon seed can
     * differ; compare with the oracle's build of the exact AddKeyAndAlt entry
     * sequence (FastLocalBloom / Ribbon or its Bloom fallback), and for
     * legacy Bloom (order-insensitive) with RocksDB's bytes when the entry
     * counts agree. */
    if (c->prefix_len) {
        uint64_t *aseq = NULL;
        size_t am = entry_sequence(&ks, c, STYLE_ADD_KEY_AND_ALT, &aseq);
        rocksfilter_builder *b2 = NULL;
        uint8_t *alt = NULL, *refbuf = NULL;
        size_t alt_len = 0, ref_len = 0;
        const uint8_t *ref = NULL;
        const char *refname = NULL;
        if (rocksfilter_builder_new(lib_policy(c->g), c->bpk, &b2, NULL) == ROCKSFILTER_OK) {
            feed_key_and_alt(b2, &ks, c->prefix_len);
            size_t ae = rocksfilter_builder_num_entries(b2);
            if (ae != am) msg(&m, "add_key_and_alt: num_entries=%zu, RocksDB AddKeyAndAlt would count %zu", ae, am);
            if (rocksfilter_builder_finish(b2, &alt, &alt_len, NULL) != ROCKSFILTER_OK) {
                msg(&m, "add_key_and_alt: finish failed");
            } else if (c->g == G_LEGACY) {
                if (am == want_entries) {
                    ref = info.filter;
                    ref_len = info.filter_len;
                    refname = "RocksDB 7.8.3 bytes";
                }
            } else if (c->g == G_RIBBON && oracle_ribbon_build(aseq, am, c->bpk, &refbuf, &ref_len) == 1) {
                ref = refbuf;
                refname = "oracle Ribbon build of the AddKeyAndAlt sequence";
            } else {
                free(refbuf);
                refbuf = NULL;
                oracle_fastbloom_build(aseq, am, c->bpk, &refbuf, &ref_len);
                ref = refbuf;
                refname = "oracle FastLocalBloom build of the AddKeyAndAlt sequence";
            }
            if (refname && !(alt_len == ref_len && (alt_len == 0 || memcmp(alt, ref, alt_len) == 0))) {
                size_t d = 0;
                while (d < alt_len && d < ref_len && alt[d] == ref[d]) d++;
                char at[96] = "", rt[96] = "";
                describe_trailer(at, sizeof at, alt, alt_len);
                describe_trailer(rt, sizeof rt, ref, ref_len);
                msg(&m, "add_key_and_alt BYTES DIFFER from %s: len %zu vs %zu, first differing offset=%zu [%s] vs [%s]",
                    refname, alt_len, ref_len, d, at, rt);
            }
            rocksfilter_builder_free(b2);
        } else {
            msg(&m, "second rocksfilter_builder_new failed");
        }
        rocksfilter_bytes_free(alt, alt_len);
        free(refbuf);
        free(aseq);
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
#ifdef COMPAT_TAMPER /* harness self-check: must make (nearly) every case fail */
    uint8_t *tampered = malloc(info.filter_len + 1);
    memcpy(tampered, info.filter, info.filter_len);
    if (info.filter_len > 5) tampered[info.filter_len / 3] ^= 0xff;
    rocksfilter_filter_free(f_rdb);
    rocksfilter_filter_load(tampered, info.filter_len, &f_rdb, NULL);
    free(tampered);
#endif
    /* free our builder's bytes now: the copied filter must not depend on them */
    rocksfilter_bytes_free(ours, ours_len);
    ours = NULL;

    int okind = oracle_filter_kind(info.filter, info.filter_len);
    int lkind = (int)rocksfilter_filter_kind(f_rdb);
    if (okind != lkind) msg(&m, "kind on RocksDB bytes: ours=%d rocksdb=%d", lkind, okind);
    if (f_ours && bytes_equal && (int)rocksfilter_filter_kind(f_ours) != okind)
        msg(&m, "kind of our loaded copy=%d rocksdb=%d", (int)rocksfilter_filter_kind(f_ours), okind);
    check_info(&m, f_rdb, info.filter, info.filter_len, okind);
    bool use_hash = okind != ROCKSFILTER_KIND_LEGACY_BLOOM;

    /* 5. Every present key must match. */
    size_t miss_single = 0, miss_batch = 0, miss_hash = 0, miss_ours = 0, miss_oracle = 0,
           hash_diff = 0, legacy_hash_diff = 0, miss_prefix = 0, miss_sst = 0, miss_sst_prefix = 0;
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
        if (!rocksfilter_filter_may_match_hash(f_rdb, h)) miss_hash++;
        if (rocksfilter_legacy_hash32(k, kl) != oracle_bloom_hash(k, kl)) legacy_hash_diff++;
        if (!oracle_filter_may_match(info.filter, info.filter_len, k, kl)) miss_oracle++;
        if (sst && !rocksfilter_sst_may_match(sst, k, kl)) miss_sst++;
        if (c->prefix_len && kl >= c->prefix_len) {
            if (!rocksfilter_filter_may_match(f_rdb, k, c->prefix_len)) miss_prefix++;
            bool pm = false;
            if (sst && (rocksfilter_sst_prefix_may_match(sst, k, c->prefix_len, &pm, NULL) != ROCKSFILTER_OK || !pm))
                miss_sst_prefix++;
            if (!oracle_filter_may_match(info.filter, info.filter_len, k, c->prefix_len)) miss_oracle++;
        }
    }
    memset(res, 0, ks.n * sizeof *res);
    rocksfilter_filter_may_match_batch(f_rdb, ks.ptr, ks.len, ks.n, res);
    for (size_t i = 0; i < ks.n; i++) miss_batch += !res[i];
    size_t miss_sst_batch = 0;
    if (sst) {
        memset(res, 0, ks.n * sizeof *res);
        rocksfilter_sst_may_match_batch(sst, ks.ptr, ks.len, ks.n, res);
        for (size_t i = 0; i < ks.n; i++) miss_sst_batch += !res[i];
    }
    if (miss_sst_batch) msg(&m, "%zu/%zu present keys rejected by rocksfilter_sst_may_match_batch", miss_sst_batch, ks.n);
    if (miss_single) msg(&m, "%zu/%zu present keys rejected by may_match on RocksDB bytes", miss_single, ks.n);
    if (miss_ours) msg(&m, "%zu/%zu present keys rejected by may_match on our bytes", miss_ours, ks.n);
    if (miss_batch) msg(&m, "%zu/%zu present keys rejected by may_match_batch", miss_batch, ks.n);
    if (miss_hash) msg(&m, "%zu/%zu present keys rejected by may_match_hash(hash64)", miss_hash, ks.n);
    if (miss_sst) msg(&m, "%zu/%zu present keys rejected by rocksfilter_sst_may_match", miss_sst, ks.n);
    if (miss_sst_prefix) msg(&m, "%zu prefixes of present keys rejected by rocksfilter_sst_prefix_may_match", miss_sst_prefix);
    if (miss_prefix) msg(&m, "%zu prefixes of present keys rejected by may_match", miss_prefix);
    if (miss_oracle) msg(&m, "ORACLE: %zu/%zu present keys rejected by oracle (oracle or extractor bug)", miss_oracle, ks.n);

    /* 6. Absent keys: ours == oracle on RocksDB's bytes. */
    size_t diff_sst = 0, diff_sst_prefix = 0, diff_sst_batch = 0;
    bool *res_sst = malloc(ABSENT_CHUNK * sizeof *res_sst);
    if (!res_sst) { fprintf(stderr, "out of memory\n"); exit(2); }
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
        if (sst) rocksfilter_sst_may_match_batch(sst, ab.ptr, ab.len, n, res_sst);
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
            /* RocksDB's legacy reader cannot answer by 64-bit hash;
             * rocksfilter documents "always true" there. */
            bool want_h = use_hash ? oracle_filter_hash_may_match(info.filter, info.filter_len, h) != 0 : true;
            if (rocksfilter_filter_may_match_hash(f_rdb, h) != want_h) diff_hash++;
            if (rocksfilter_legacy_hash32(k, kl) != oracle_bloom_hash(k, kl)) legacy_hash_diff++;
            if (f_ours && bytes_equal && rocksfilter_filter_may_match(f_ours, k, kl) != want) diff_ours++;
            if (sst && rocksfilter_sst_may_match(sst, k, kl) != want) diff_sst++;
            if (sst && res_sst[i] != want) diff_sst_batch++;
            if (sst && c->prefix_len && kl >= c->prefix_len) {
                bool pm = false;
                bool pwant = oracle_filter_may_match(info.filter, info.filter_len, k, c->prefix_len) != 0;
                if (rocksfilter_sst_prefix_may_match(sst, k, c->prefix_len, &pm, NULL) != ROCKSFILTER_OK || pm != pwant)
                    diff_sst_prefix++;
            }
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
    if (diff_hash)
        msg(&m, "%zu/%u may_match_hash answers differ from %s", diff_hash, NUM_ABSENT,
            use_hash ? "oracle HashMayMatch" : "documented 'always true' on legacy Bloom");
    if (diff_sst) msg(&m, "%zu/%u rocksfilter_sst_may_match answers differ from oracle", diff_sst, NUM_ABSENT);
    free(res_sst);
    if (diff_sst_batch) msg(&m, "%zu/%u rocksfilter_sst_may_match_batch answers differ from oracle", diff_sst_batch, NUM_ABSENT);
    if (diff_sst_prefix) msg(&m, "%zu rocksfilter_sst_prefix_may_match answers differ from oracle", diff_sst_prefix);
    if (diff_ours) msg(&m, "%zu/%u answers on our loaded copy differ from oracle", diff_ours, NUM_ABSENT);
    if (legacy_hash_diff) msg(&m, "rocksfilter_legacy_hash32 != BloomHash on %zu keys", legacy_hash_diff);
    if (hash_diff) msg(&m, "rocksfilter_hash64 != GetSliceHash64 on %zu keys (first at key length %zu)", hash_diff, first_hash_diff);
    if (q) {
        fp = (double)hits / (double)q;
        ofp = (double)ohits / (double)q;
    }

done:
    rocksfilter_sst_free(sst);
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

static void add_full(group g, double bpk, size_t nkeys, key_shape shape, size_t prefix_len,
                     special_keys special) {
    if (ncases == capcases) {
        capcases = capcases ? 2 * capcases : 256;
        cases = realloc(cases, capcases * sizeof *cases);
        if (!cases) { perror("realloc"); exit(2); }
    }
    cases[ncases++] = (compat_case){g, bpk, nkeys, shape, prefix_len, special};
}

static void add(group g, double bpk, size_t nkeys, key_shape shape) {
    add_full(g, bpk, nkeys, shape, 0, SPECIAL_NONE);
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
    /* two keys with equal legacy BloomHash, adjacent in key order */
    add_full(g, 10, 0, SHAPE_FIXED20, 0, SPECIAL_LEGACY_HASH_COLLISION);
    add_full(g, 1, 87, SHAPE_FIXED20, 0, SPECIAL_LEGACY_HASH_COLLISION);
    add_full(g, 10, 87, SHAPE_FIXED20, 0, SPECIAL_LEGACY_HASH_COLLISION);
    add_full(g, 23.45, 2087, SHAPE_FIXED20, 0, SPECIAL_LEGACY_HASH_COLLISION);
}

/* Prefix extractor (RocksDB adds key and prefix: add_key_and_alt). */
static void prefix_cases(void) {
    static const group gs[] = {G_BLOOM, G_LEGACY, G_RIBBON};
    static const struct { size_t plen; key_shape shape; } ps[] = {
        {1, SHAPE_CYCLE_0_300}, {3, SHAPE_FIXED4},  {3, SHAPE_BINARY},
        {3, SHAPE_CYCLE_0_300}, {8, SHAPE_FIXED20}, {19, SHAPE_FIXED19},
    };
    static const size_t counts[] = {87, 2087, 50000};
    static const double bpks[] = {1, 10, 23.45};
    for (size_t gi = 0; gi < COUNT(gs); gi++)
        for (size_t p = 0; p < COUNT(ps); p++)
            for (size_t c = 0; c < COUNT(counts); c++)
                add_full(gs[gi], bpks[(p + c) % COUNT(bpks)], counts[c], ps[p].shape, ps[p].plen, SPECIAL_NONE);
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
    add_full(G_RIBBON, 10, 87, SHAPE_FIXED20, 0, SPECIAL_LEGACY_HASH_COLLISION);
}

/* ------------------------------------------------------------------ */
/* Group "sized": blocks sized by a target FP rate, a byte budget or a
 * Ribbon banding table (rocksfilter_builder_new_with_options) have no RocksDB
 * writer to compare with, so RocksDB 11.12's own reader code (the oracle)
 * judges them: it must pick the same kind of reader, find every key, and
 * answer exactly as rocksfilter on 100,000 absent keys; the FP rate it gives
 * must be within a binomial 4-sigma band (plus 3 / absent) of the block's
 * estimate, and of the target when there is one. */

static void run_sized(void) {
    static const struct {
        const char *name;
        rocksfilter_policy policy;
        double fp_rate;
        uint64_t max_bytes;
        uint32_t one_in;
    } opts[] = {
        {"bloom fp=1%", ROCKSFILTER_POLICY_BLOOM, 0.01, 0, 0},
        {"bloom fp=0.1%", ROCKSFILTER_POLICY_BLOOM, 0.001, 0, 0},
        {"bloom fp=30%", ROCKSFILTER_POLICY_BLOOM, 0.3, 0, 0},
        {"bloom max_bytes=8192", ROCKSFILTER_POLICY_BLOOM, 0, 8192, 0},
        {"ribbon fp=1%", ROCKSFILTER_POLICY_RIBBON, 0.01, 0, 0},
        {"ribbon fp=1% 1-in-1000", ROCKSFILTER_POLICY_RIBBON, 0.01, 0, 1000},
        {"ribbon fp=0.1% 1-in-2", ROCKSFILTER_POLICY_RIBBON, 0.001, 0, 2},
        {"ribbon fp=30%", ROCKSFILTER_POLICY_RIBBON, 0.3, 0, 0},
        {"ribbon max_bytes=8192", ROCKSFILTER_POLICY_RIBBON, 0, 8192, 0},
        {"ribbon max_bytes=8192 1-in-1000", ROCKSFILTER_POLICY_RIBBON, 0, 8192, 1000},
        {"ribbon 10 bits/key 1-in-1000", ROCKSFILTER_POLICY_RIBBON, 0, 0, 1000},
    };
    static const size_t counts[] = {1, 300, 5000, 40000};
    for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            size_t n = counts[c];
            msgbuf m = {0};
            keyset ks = {0}, absent = {0};
            keyset_generate(&ks, SHAPE_FIXED20, n, 0x51ed0000u + n);
            keyset_generate(&absent, SHAPE_FIXED19, NUM_ABSENT, 0xab5e0000u + n);
            rocksfilter_builder_options bo;
            memset(&bo, 0, sizeof bo);
            bo.struct_size = sizeof bo;
            bo.policy = opts[o].policy;
            bo.bits_per_key = 10;
            bo.fp_rate = opts[o].fp_rate;
            bo.max_bytes = opts[o].max_bytes;
            bo.ribbon_failure_one_in = opts[o].one_in;
            rocksfilter_builder *b = NULL;
            uint8_t *block = NULL;
            size_t len = 0;
            rocksfilter_filter *f = NULL;
            char *err = NULL;
            if (rocksfilter_builder_new_with_options(&bo, &b, &err) != ROCKSFILTER_OK) {
                msg(&m, "new_with_options: %s", err);
                goto done;
            }
            for (size_t i = 0; i < n; i++) rocksfilter_builder_add_key(b, keyset_key(&ks, i), ks.len[i]);
            if (rocksfilter_builder_finish(b, &block, &len, &err) != ROCKSFILTER_OK) {
                msg(&m, "finish: %s", err);
                goto done;
            }
            if (rocksfilter_filter_load(block, len, &f, &err) != ROCKSFILTER_OK) {
                msg(&m, "load: %s", err);
                goto done;
            }
#ifdef COMPAT_TAMPER /* the oracle sees another probe count / block count */
            if (len > 5) block[len - 3] ^= 0x01;
#endif
            int kind = (int)rocksfilter_filter_kind(f);
            if (oracle_filter_kind(block, len) != kind)
                msg(&m, "oracle reads kind %d, rocksfilter %d", oracle_filter_kind(block, len), kind);
            if (kind != ROCKSFILTER_KIND_FAST_LOCAL_BLOOM && kind != ROCKSFILTER_KIND_STANDARD128_RIBBON)
                msg(&m, "kind %d", kind);
            if (opts[o].max_bytes && len > opts[o].max_bytes) msg(&m, "%zu bytes over the budget", len);
            size_t missing = 0, differ = 0, fp = 0;
            for (size_t i = 0; i < n; i++) missing += !oracle_filter_may_match(block, len, keyset_key(&ks, i), ks.len[i]);
            for (size_t i = 0; i < absent.n; i++) {
                int o_ans = oracle_filter_may_match(block, len, keyset_key(&absent, i), absent.len[i]);
                int r_ans = rocksfilter_filter_may_match(f, keyset_key(&absent, i), absent.len[i]);
                differ += o_ans != r_ans;
                fp += (size_t)o_ans;
            }
            if (missing) msg(&m, "the oracle misses %zu of %zu keys", missing, n);
            if (differ) msg(&m, "%zu absent keys answered differently", differ);
            double measured = (double)fp / NUM_ABSENT, est = rocksfilter_filter_estimated_fp_rate(f, n);
            double band = 4 * sqrt(est * (1 - est) / NUM_ABSENT) + 3.0 / NUM_ABSENT;
            if (fabs(measured - est) > band) msg(&m, "oracle's FP rate %.5f, estimate %.5f", measured, est);
            if (opts[o].fp_rate) {
                double t = opts[o].fp_rate;
                if (est > t * 1.001) msg(&m, "estimate %.5f above the target", est);
                if (measured > t + 4 * sqrt(t * (1 - t) / NUM_ABSENT) + 3.0 / NUM_ABSENT)
                    msg(&m, "oracle's FP rate %.5f above the target", measured);
            }
            if (!m.used) {
                passed++;
                printf("PASS sized %-32s n=%-6zu %8zu bytes  kind %d  oracle FP %.4f%%  estimate %.4f%%\n",
                       opts[o].name, n, len, kind, 100 * measured, 100 * est);
            }
        done:
            if (m.used) {
                failed++;
                printf("FAIL sized %s n=%zu: %s\n", opts[o].name, n, m.buf);
            }
            rocksfilter_string_free(err);
            rocksfilter_filter_free(f);
            rocksfilter_bytes_free(block, len);
            rocksfilter_builder_free(b);
            keyset_free(&ks);
            keyset_free(&absent);
        }
}

static void usage(const char *argv0) {
    fprintf(stderr, "usage: %s {bloom|legacy|ribbon|prefix|sized|all}... [-v] [-k]\n", argv0);
    exit(2);
}

int main(int argc, char **argv) {
    int want[G_COUNT] = {0, 0, 0};
    int any = 0, want_prefix = 0, want_sized = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "-k")) keep_files = 1;
        else if (!strcmp(argv[i], "all")) want[G_BLOOM] = want[G_LEGACY] = want[G_RIBBON] = want_prefix = want_sized = any = 1;
        else if (!strcmp(argv[i], "prefix")) want_prefix = any = 1;
        else if (!strcmp(argv[i], "sized")) want_sized = any = 1;
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
    if (want_prefix) prefix_cases();

    char *dir = make_temp_dir("rocksfilter-compat-");
    if (!dir) { perror("mkdtemp"); return 2; }
    tmpdir = dir;
    printf("rocksfilter %s vs RocksDB 7.8.3 SstFileWriter; %zu cases; tmp dir %s\n", rocksfilter_version(),
           ncases, dir);
    double t0 = now_seconds();
    for (size_t i = 0; i < ncases; i++) run_case(&cases[i], (unsigned)i);
    if (want_sized) run_sized();
    if (!keep_files) rmdir(dir);
    free(dir);
    free(cases);
    fprintf(stderr, "compat: %.1fs\n", now_seconds() - t0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#ifdef RFCT_COUNTS
/* For the Cargo tests (build.rs, tests/): the counts main printed. */
void RFCT_COUNTS(int *p, int *f) { *p = passed; *f = failed; }
#endif
