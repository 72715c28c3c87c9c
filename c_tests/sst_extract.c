/*
 * rocksfilter C compatibility tests: extract the full filter block from a
 * RocksDB block-based SST file. See sst_extract.h. Every length and offset
 * read from the file is bounds-checked before use.
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "sst_extract.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct src {
    int fd;               /* >= 0: read from file */
    const uint8_t *mem;   /* else: from memory */
    uint64_t size;
} src;

static int fail(sst_filter_info *info, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(sst_filter_info *info, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->error, sizeof info->error, fmt, ap);
    va_end(ap);
    free(info->filter);
    info->filter = NULL;
    info->filter_len = 0;
    return -1;
}

/* Reads exactly len bytes at off; 0 on success. Caller checked bounds. */
static int read_at(const src *s, uint64_t off, uint8_t *buf, size_t len) {
    if (off > s->size || len > s->size - off) return -1;
    if (s->fd < 0) {
        if (len) memcpy(buf, s->mem + off, len);
        return 0;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(s->fd, buf + done, len - done, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p) {
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Decodes a varint of at most max_bytes bytes from [*p, end). */
static int get_varint(const uint8_t **p, const uint8_t *end, unsigned max_bytes,
                      uint64_t *v) {
    uint64_t result = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (*p >= end) return -1;
        uint8_t b = *(*p)++;
        result |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            /* reject bits beyond 64 / 32 */
            if (max_bytes == 10 && i == 9 && b > 1) return -1;
            if (max_bytes == 5 && i == 4 && b > 15) return -1;
            *v = result;
            return 0;
        }
    }
    return -1;
}

static int get_varint32(const uint8_t **p, const uint8_t *end, uint32_t *v) {
    uint64_t x;
    if (get_varint(p, end, 5, &x)) return -1;
    *v = (uint32_t)x;
    return 0;
}

static int get_handle(const uint8_t **p, const uint8_t *end, uint64_t *off,
                      uint64_t *size) {
    if (get_varint(p, end, 10, off)) return -1;
    if (get_varint(p, end, 10, size)) return -1;
    return 0;
}

/* Checks that the block [off, off+size) plus its trailer lies inside
 * [0, limit). */
static int block_in_bounds(uint64_t off, uint64_t size, uint64_t limit) {
    if (off > limit) return 0;
    if (size > limit - off) return 0;
    if (SST_BLOCK_TRAILER_LEN > limit - off - size) return 0;
    return 1;
}

static int starts_with(const uint8_t *k, size_t klen, const char *prefix) {
    size_t n = strlen(prefix);
    return klen >= n && memcmp(k, prefix, n) == 0;
}

static int extract(const src *s, sst_filter_info *info) {
    uint8_t footer[SST_FOOTER_LEN];
    if (s->size < SST_FOOTER_LEN)
        return fail(info, "file too short for a footer (%llu bytes)",
                    (unsigned long long)s->size);
    uint64_t footer_off = s->size - SST_FOOTER_LEN;
    if (read_at(s, footer_off, footer, sizeof footer))
        return fail(info, "cannot read footer: %s", strerror(errno));

    uint64_t magic = le64(footer + SST_FOOTER_LEN - 8);
    if (magic == 0xdb4775248b80fb57ULL)
        return fail(info, "legacy block-based magic (format_version 0/1 footer) not supported");
    if (magic != SST_BLOCK_BASED_MAGIC)
        return fail(info, "bad table magic 0x%016llx (want 0x%016llx)",
                    (unsigned long long)magic,
                    (unsigned long long)SST_BLOCK_BASED_MAGIC);
    info->format_version = le32(footer + SST_FOOTER_LEN - 12);
    if (info->format_version < 2 || info->format_version > 5)
        return fail(info, "unsupported format_version %u (this parser handles 2..5)",
                    info->format_version);
    info->checksum_type = footer[0];
    if (info->checksum_type > 4)
        return fail(info, "bad checksum type %u", info->checksum_type);

    /* Part 2: two BlockHandles within 40 bytes, then zero padding. */
    const uint8_t *p = footer + 1, *part2_end = footer + 41;
    uint64_t mi_off, mi_size, ix_off, ix_size;
    if (get_handle(&p, part2_end, &mi_off, &mi_size))
        return fail(info, "bad metaindex handle in footer");
    if (get_handle(&p, part2_end, &ix_off, &ix_size))
        return fail(info, "bad index handle in footer");
    for (; p < part2_end; p++)
        if (*p != 0) return fail(info, "non-zero footer padding");
    if (!block_in_bounds(mi_off, mi_size, footer_off))
        return fail(info, "metaindex handle (%llu,%llu) out of bounds (footer at %llu)",
                    (unsigned long long)mi_off, (unsigned long long)mi_size,
                    (unsigned long long)footer_off);
    if (!block_in_bounds(ix_off, ix_size, footer_off))
        return fail(info, "index handle out of bounds");
    if (mi_size < 4 || mi_size > (64u << 20))
        return fail(info, "implausible metaindex size %llu",
                    (unsigned long long)mi_size);

    size_t mlen = (size_t)mi_size;
    uint8_t *mb = malloc(mlen + SST_BLOCK_TRAILER_LEN);
    if (!mb) return fail(info, "out of memory");
    if (read_at(s, mi_off, mb, mlen + SST_BLOCK_TRAILER_LEN)) {
        free(mb);
        return fail(info, "cannot read metaindex block");
    }
    if (mb[mlen] != 0) {
        unsigned ct = mb[mlen];
        free(mb);
        return fail(info, "metaindex block is compressed (type %u)", ct);
    }

    /* Block: entries, restart array (u32 each), u32 num_restarts. The top bit
     * of num_restarts may carry the data block index type; mask it. */
    uint32_t num_restarts = le32(mb + mlen - 4) & 0x7fffffffu;
    if (num_restarts == 0 || num_restarts > (mlen - 4) / 4) {
        free(mb);
        return fail(info, "bad metaindex num_restarts %u", num_restarts);
    }
    size_t entries_end = mlen - 4 - 4 * (size_t)num_restarts;
    for (uint32_t i = 0; i < num_restarts; i++) {
        if (le32(mb + entries_end + 4 * (size_t)i) >= (entries_end ? entries_end : 1)) {
            free(mb);
            return fail(info, "metaindex restart point %u out of range", i);
        }
    }

    uint8_t key[1024];
    size_t key_len = 0;
    uint64_t f_off = 0, f_size = 0;
    int found = 0;
    p = mb;
    const uint8_t *end = mb + entries_end;
    while (p < end) {
        uint32_t shared, non_shared, value_len;
        if (get_varint32(&p, end, &shared) || get_varint32(&p, end, &non_shared) ||
            get_varint32(&p, end, &value_len)) {
            size_t at = (size_t)(p - mb);
            free(mb);
            return fail(info, "bad metaindex entry header at %zu", at);
        }
        if (shared > key_len || non_shared > sizeof key - shared ||
            (size_t)(end - p) < (size_t)non_shared ||
            (size_t)(end - p) - non_shared < (size_t)value_len) {
            free(mb);
            return fail(info, "metaindex entry out of bounds (shared %u non_shared %u value %u)",
                        shared, non_shared, value_len);
        }
        memcpy(key + shared, p, non_shared);
        key_len = (size_t)shared + non_shared;
        p += non_shared;
        const uint8_t *val = p, *val_end = p + value_len;
        p = val_end;
        info->metaindex_entries++;

        if (key_len == strlen(SST_FULL_FILTER_KEY) &&
            memcmp(key, SST_FULL_FILTER_KEY, key_len) == 0) {
            if (get_handle(&val, val_end, &f_off, &f_size)) {
                free(mb);
                return fail(info, "bad full filter BlockHandle");
            }
            info->has_full_filter = 1;
            found = 1;
        } else if (starts_with(key, key_len, "partitionedfilter.")) {
            info->has_partitioned_filter = 1;
        } else if (starts_with(key, key_len, "filter.")) {
            info->has_block_filter = 1;
        }
    }
    free(mb);
    if (!found) return 0;

    if (!block_in_bounds(f_off, f_size, footer_off))
        return fail(info, "filter handle (%llu,%llu) out of bounds (footer at %llu)",
                    (unsigned long long)f_off, (unsigned long long)f_size,
                    (unsigned long long)footer_off);
    if (f_size > (uint64_t)0xffffffffu)
        return fail(info, "filter block too large (%llu)", (unsigned long long)f_size);
    size_t flen = (size_t)f_size;
    uint8_t *fb = malloc(flen + SST_BLOCK_TRAILER_LEN);
    if (!fb) return fail(info, "out of memory");
    if (read_at(s, f_off, fb, flen + SST_BLOCK_TRAILER_LEN)) {
        free(fb);
        return fail(info, "cannot read filter block");
    }
    if (fb[flen] != 0) {
        unsigned ct = fb[flen];
        free(fb);
        return fail(info, "filter block trailer says compressed (type %u)", ct);
    }
    info->filter = fb;
    info->filter_len = flen;
    info->filter_offset = f_off;
    return 1;
}

static void info_init(sst_filter_info *info) {
    memset(info, 0, sizeof *info);
}

int sst_extract_filter_mem(const uint8_t *file, size_t file_len,
                           sst_filter_info *info) {
    info_init(info);
    if (!file && file_len) return fail(info, "NULL buffer");
    src s = {-1, file, file_len};
    return extract(&s, info);
}

int sst_extract_filter(const char *path, sst_filter_info *info) {
    info_init(info);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return fail(info, "open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(info, "fstat %s: %s", path, strerror(e));
    }
    src s = {fd, NULL, (uint64_t)st.st_size};
    int rc = extract(&s, info);
    close(fd);
    return rc;
}

void sst_filter_info_free(sst_filter_info *info) {
    if (!info) return;
    free(info->filter);
    info->filter = NULL;
    info->filter_len = 0;
}
