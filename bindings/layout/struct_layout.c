/*
 * Prints the layout of every C struct the language bindings mirror by hand,
 * as the C compiler lays it out from include/rocksfilter.h:
 *
 *   struct NAME SIZEOF ALIGNOF
 *   field NAME MEMBER OFFSETOF SIZEOF
 *
 * one line each, members in declaration order. The Java binding's
 * StructLayoutTest compiles this against the header, runs it and compares
 * every line with its MemoryLayouts (and checks that the members listed here
 * are all the members the header declares). The Go binding reads these
 * structs through cgo (C.rocksfilter_...), so the Go compiler already uses
 * the header's layout.
 *
 *   cc -std=c11 -Wall -Wextra -Werror -Iinclude bindings/layout/struct_layout.c -o struct_layout
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>

#include "rocksfilter.h"

#define STRUCT(T) printf("struct %s %zu %zu\n", #T, sizeof(T), (size_t)alignof(T))
#define FIELD(T, m) printf("field %s %s %zu %zu\n", #T, #m, offsetof(T, m), sizeof(((T *)0)->m))

int main(void) {
  STRUCT(rocksfilter_filter_info_ex);
  FIELD(rocksfilter_filter_info_ex, struct_size);
  FIELD(rocksfilter_filter_info_ex, kind);
  FIELD(rocksfilter_filter_info_ex, bytes);
  FIELD(rocksfilter_filter_info_ex, num_probes);
  FIELD(rocksfilter_filter_info_ex, num_lines);
  FIELD(rocksfilter_filter_info_ex, line_bytes);
  FIELD(rocksfilter_filter_info_ex, num_blocks);
  FIELD(rocksfilter_filter_info_ex, seed);
  FIELD(rocksfilter_filter_info_ex, lower_num_columns);
  FIELD(rocksfilter_filter_info_ex, upper_start_block);
  FIELD(rocksfilter_filter_info_ex, reserved);

  STRUCT(rocksfilter_builder_options);
  FIELD(rocksfilter_builder_options, struct_size);
  FIELD(rocksfilter_builder_options, policy);
  FIELD(rocksfilter_builder_options, bits_per_key);
  FIELD(rocksfilter_builder_options, fp_rate);
  FIELD(rocksfilter_builder_options, max_bytes);
  FIELD(rocksfilter_builder_options, ribbon_failure_one_in);
  FIELD(rocksfilter_builder_options, reserved);

  STRUCT(rocksfilter_sst_properties);
  FIELD(rocksfilter_sst_properties, format_version);
  FIELD(rocksfilter_sst_properties, checksum_type);
  FIELD(rocksfilter_sst_properties, filter_type);
  FIELD(rocksfilter_sst_properties, num_partitions);
  FIELD(rocksfilter_sst_properties, whole_key_filtering);
  FIELD(rocksfilter_sst_properties, has_prefix_filter);
  FIELD(rocksfilter_sst_properties, num_entries);
  FIELD(rocksfilter_sst_properties, num_filter_entries);
  FIELD(rocksfilter_sst_properties, filter_size);
  FIELD(rocksfilter_sst_properties, creation_time);
  FIELD(rocksfilter_sst_properties, file_creation_time);
  FIELD(rocksfilter_sst_properties, filter_policy);
  FIELD(rocksfilter_sst_properties, comparator);
  FIELD(rocksfilter_sst_properties, prefix_extractor);
  FIELD(rocksfilter_sst_properties, filter_block_name);

  STRUCT(rocksfilter_source);
  FIELD(rocksfilter_source, struct_size);
  FIELD(rocksfilter_source, size);
  FIELD(rocksfilter_source, ctx);
  FIELD(rocksfilter_source, read_at);
  FIELD(rocksfilter_source, release);

  STRUCT(rocksfilter_sst_open_stats);
  FIELD(rocksfilter_sst_open_stats, struct_size);
  FIELD(rocksfilter_sst_open_stats, reserved);
  FIELD(rocksfilter_sst_open_stats, reads);
  FIELD(rocksfilter_sst_open_stats, bytes_read);
  FIELD(rocksfilter_sst_open_stats, bytes_held);

  STRUCT(rocksfilter_cache_stats);
  FIELD(rocksfilter_cache_stats, struct_size);
  FIELD(rocksfilter_cache_stats, reserved);
  FIELD(rocksfilter_cache_stats, capacity);
  FIELD(rocksfilter_cache_stats, bytes_held);
  FIELD(rocksfilter_cache_stats, entries);
  FIELD(rocksfilter_cache_stats, hits);
  FIELD(rocksfilter_cache_stats, misses);
  FIELD(rocksfilter_cache_stats, reads);
  FIELD(rocksfilter_cache_stats, bytes_read);
  FIELD(rocksfilter_cache_stats, read_errors);
  FIELD(rocksfilter_cache_stats, bad_blocks);
  FIELD(rocksfilter_cache_stats, evictions);
  FIELD(rocksfilter_cache_stats, uncached);
  FIELD(rocksfilter_cache_stats, open_files);

  STRUCT(rocksfilter_sst_options);
  FIELD(rocksfilter_sst_options, struct_size);
  FIELD(rocksfilter_sst_options, flags);
  FIELD(rocksfilter_sst_options, cache);
  return 0;
}
