/*
 * rocksfilter C compatibility tests: extract the full filter block from a
 * RocksDB block-based SST file (test utility only).
 *
 * Supports the footer RocksDB 7.8.3 writes for format_version 2..5:
 *   [checksum type: 1 byte]
 *   [metaindex BlockHandle][index BlockHandle]   (varint64 offset, varint64 size)
 *   [zero padding up to 40 bytes after the checksum byte]
 *   [format_version: fixed32][magic 0x88e241b785f4cff7: fixed64]
 *   = 53 bytes at the very end of the file.
 * Every block is followed by a 5-byte trailer (compression type + checksum)
 * not counted in its BlockHandle size.
 */
#ifndef ROCKSFILTER_SST_EXTRACT_H
#define ROCKSFILTER_SST_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SST_BLOCK_BASED_MAGIC 0x88e241b785f4cff7ULL
#define SST_FOOTER_LEN 53u
#define SST_BLOCK_TRAILER_LEN 5u
#define SST_FULL_FILTER_KEY "fullfilter.rocksdb.BuiltinBloomFilter"

typedef struct sst_filter_info {
    uint8_t *filter;       /* malloc()ed copy of the full filter block, or NULL */
    size_t filter_len;     /* BlockHandle size (trailer excluded) */
    uint64_t filter_offset;
    uint32_t format_version;
    uint8_t checksum_type;
    int has_full_filter;        /* "fullfilter.rocksdb.BuiltinBloomFilter" */
    int has_partitioned_filter; /* any "partitionedfilter.*" key */
    int has_block_filter;       /* any "filter.*" key (old block-based filter) */
    unsigned metaindex_entries;
    char error[256];            /* set when sst_extract_filter returns < 0 */
} sst_filter_info;

/* Returns 1 if a full filter block was found (info->filter set),
 * 0 if the file is valid but has no full filter (see has_* flags),
 * -1 on any error (info->error describes it). */
int sst_extract_filter(const char *path, sst_filter_info *info);

/* Same, on a file image in memory. */
int sst_extract_filter_mem(const uint8_t *file, size_t file_len,
                           sst_filter_info *info);

void sst_filter_info_free(sst_filter_info *info);

#ifdef __cplusplus
}
#endif

#endif /* ROCKSFILTER_SST_EXTRACT_H */
