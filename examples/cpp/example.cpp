// Build a RocksDB Bloom filter block, load it back, and query it (C++17).
#include <rocksfilter.hpp>

#include <cstdio>
#include <string_view>

int main() try {
  rocksfilter::Builder builder(rocksfilter::Policy::bloom, 10.0);
  const std::string_view keys[] = {"apple", "banana", "cherry"};
  builder.add_keys(keys);
  rocksfilter::Bytes block = builder.finish();  // freed by its destructor

  rocksfilter::Filter filter = rocksfilter::Filter::load(block);  // copies the bytes
  bool found[3];
  filter.may_match_batch(keys, found);
  const std::string_view version = rocksfilter::version();
  std::printf("rocksfilter %.*s: %zu-byte block, \"banana\" %s, \"durian\" %s\n",
              static_cast<int>(version.size()), version.data(), block.size(),
              filter.may_match("banana") ? "may match" : "absent",
              filter.may_match("durian") ? "may match" : "absent");
  return found[0] && found[1] && found[2] ? 0 : 1;  // 0: every added key matched
} catch (const rocksfilter::Error &e) {  // e.status() is the rocksfilter_status
  std::fprintf(stderr, "rocksfilter error %d: %s\n", static_cast<int>(e.status()), e.what());
  return 1;
}
