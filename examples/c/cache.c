/* Many SST files, one memory budget for their filters: every file is opened
 * with one shared cache, so a partitioned filter's partitions are read when a
 * key needs them and evicted under the budget (each handle keeps only its
 * top-level partition index).
 *   usage: cache FILE.sst... -- KEY...
 * Builds with:  cc cache.c $(pkg-config --cflags --libs rocksfilter) */
#include <rocksfilter.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  rocksfilter_cache *cache = rocksfilter_cache_new(1 << 20); /* 1 MiB for all */
  rocksfilter_sst *ssts[64];
  int n = 0, i = 1, bad = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0 && n < 64; i++) {
    struct rocksfilter_sst_options opts = {0};
    opts.struct_size = sizeof opts;
    opts.cache = cache;
    char *err = NULL;
    if (rocksfilter_sst_open_ex(argv[i], &opts, &ssts[n], &err) != ROCKSFILTER_OK) {
      fprintf(stderr, "%s\n", err);
      rocksfilter_string_free(err);
      bad = 1;
      continue;
    }
    n++;
  }
  for (i++; i < argc; i++) {
    int maybe = 0;
    for (int f = 0; f < n; f++)
      maybe += rocksfilter_sst_may_match(ssts[f], (const uint8_t *)argv[i], strlen(argv[i]));
    printf("%s: %d of %d files may hold it\n", argv[i], maybe, n);
  }
  struct rocksfilter_cache_stats st = {0};
  st.struct_size = sizeof st;
  if (rocksfilter_cache_get_stats(cache, &st, NULL) == ROCKSFILTER_OK)
    printf("cache: %llu of %llu bytes held, %llu hits, %llu misses, %llu read errors\n",
           (unsigned long long)st.bytes_held, (unsigned long long)st.capacity, (unsigned long long)st.hits,
           (unsigned long long)st.misses, (unsigned long long)st.read_errors);
  for (int f = 0; f < n; f++) rocksfilter_sst_free(ssts[f]);
  rocksfilter_cache_free(cache);
  return bad;
}
