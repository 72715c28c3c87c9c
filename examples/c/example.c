/* Build a RocksDB Bloom filter block, load it back, and query it.
 * Builds with:  cc example.c $(pkg-config --cflags --libs rocksfilter) */
#include <rocksfilter.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  rocksfilter_builder *b = NULL;
  char *err = NULL;
  if (rocksfilter_builder_new(ROCKSFILTER_POLICY_BLOOM, 10.0, &b, &err) != ROCKSFILTER_OK) {
    fprintf(stderr, "builder: %s\n", err);
    rocksfilter_string_free(err);
    return 1;
  }
  const char *keys[] = {"apple", "banana", "cherry"};
  for (int i = 0; i < 3; i++)
    rocksfilter_builder_add_key(b, (const uint8_t *)keys[i], strlen(keys[i]));

  uint8_t *block = NULL;
  size_t len = 0;
  rocksfilter_status s = rocksfilter_builder_finish(b, &block, &len, &err);
  rocksfilter_builder_free(b);
  if (s != ROCKSFILTER_OK) {
    fprintf(stderr, "finish: %s\n", err);
    rocksfilter_string_free(err);
    return 1;
  }

  rocksfilter_filter *f = NULL;
  if (rocksfilter_filter_load(block, len, &f, &err) != ROCKSFILTER_OK) {
    fprintf(stderr, "load: %s\n", err);
    rocksfilter_string_free(err);
    return 1;
  }
  rocksfilter_bytes_free(block, len); /* load copied it */

  int bad = 0;
  for (int i = 0; i < 3; i++)
    bad |= !rocksfilter_filter_may_match(f, (const uint8_t *)keys[i], strlen(keys[i]));
  printf("rocksfilter %s: %zu-byte block, kind %d, \"banana\" %s, \"durian\" %s\n",
         rocksfilter_version(), len, (int)rocksfilter_filter_kind(f),
         rocksfilter_filter_may_match(f, (const uint8_t *)"banana", 6) ? "may match" : "absent",
         rocksfilter_filter_may_match(f, (const uint8_t *)"durian", 6) ? "may match" : "absent");
  rocksfilter_filter_free(f);
  return bad; /* 0: every added key matched */
}
