// Tests of include/rocksfilter.hpp (the C++17 wrapper), built by `make cpp-test`
// with AddressSanitizer and UBSan. Writes real SST files with RocksDB's C API
// (librocksdb-dev) for the Sst wrapper.

// The info/properties structs have tags, so they can be forward-declared
// before the header is seen (and the definitions later must agree).
struct rocksfilter_filter_info;
struct rocksfilter_sst_properties;
static unsigned forward_declared_kind(const struct rocksfilter_filter_info *info);

#include <rocksfilter.hpp>

#include <rocksdb/c.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <vector>

static unsigned forward_declared_kind(const struct rocksfilter_filter_info *info) { return info->kind; }

// ---- allocation counter: the query paths must not allocate -----------------
static std::atomic<long> g_news{0};
void *operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void *operator new[](std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

// ---- minimal harness -------------------------------------------------------
static int g_pass = 0, g_fail = 0;
#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (cond) {                                                \
      g_pass++;                                                \
    } else {                                                   \
      g_fail++;                                                \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                       \
      std::fputc('\n', stderr);                                \
    }                                                          \
  } while (0)

// Runs fn, which must throw rocksfilter::Error with `want`; returns its message.
template <class Fn>
static std::string expect_error(const char *what, rocksfilter_status want, Fn &&fn) {
  try {
    fn();
    CHECK(false, "%s: no exception (wanted %s)", what, rocksfilter::status_name(want));
  } catch (const rocksfilter::Error &e) {
    CHECK(e.status() == want, "%s: status %s, wanted %s (%s)", what, rocksfilter::status_name(e.status()),
          rocksfilter::status_name(want), e.what());
    std::string msg = e.what();
    // The library's message starts with the status in words.
    CHECK(msg.rfind(rocksfilter::status_name(want), 0) == 0, "%s: message '%s' does not start with '%s'", what,
          msg.c_str(), rocksfilter::status_name(want));
    CHECK(msg.size() > std::strlen(rocksfilter::status_name(want)) + 2, "%s: message '%s' says nothing more", what,
          msg.c_str());
    return msg;
  } catch (...) {
    CHECK(false, "%s: threw something other than rocksfilter::Error", what);
  }
  return std::string();
}

static std::vector<std::string> make_keys(const char *prefix, int n) {
  std::vector<std::string> v;
  v.reserve(n);
  for (int i = 0; i < n; i++) v.push_back(prefix + std::to_string(i));
  return v;
}

static std::vector<std::uint8_t> c_api_block(rocksfilter_policy p, double bpk, const std::vector<std::string> &keys) {
  rocksfilter_builder *b = nullptr;
  std::vector<std::uint8_t> out;
  if (rocksfilter_builder_new(p, bpk, &b, nullptr) != ROCKSFILTER_OK) return out;
  for (const auto &k : keys) rocksfilter_builder_add_key(b, reinterpret_cast<const std::uint8_t *>(k.data()), k.size());
  std::uint8_t *data = nullptr;
  std::size_t len = 0;
  if (rocksfilter_builder_finish(b, &data, &len, nullptr) == ROCKSFILTER_OK) out.assign(data, data + len);
  rocksfilter_bytes_free(data, len);
  rocksfilter_builder_free(b);
  return out;
}

// Writes an SST with RocksDB's own writer: full Bloom filter, format_version 5,
// keys as given, optional fixed-length prefix extractor.
static bool write_sst(const std::string &path, const std::vector<std::string> &keys, std::size_t prefix_len,
                      bool partitioned = false) {
  char *err = nullptr;
  rocksdb_options_t *opts = rocksdb_options_create();
  rocksdb_block_based_table_options_t *bbto = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_filter_policy(bbto, rocksdb_filterpolicy_create_bloom_full(10.0));
  rocksdb_block_based_options_set_format_version(bbto, 5);
  if (partitioned) {
    // Partitions of about 256 bytes: hundreds of them.
    rocksdb_block_based_options_set_partition_filters(bbto, 1);
    rocksdb_block_based_options_set_index_type(bbto, rocksdb_block_based_table_index_type_two_level_index_search);
    rocksdb_block_based_options_set_metadata_block_size(bbto, 256);
  }
  rocksdb_options_set_block_based_table_factory(opts, bbto);
  rocksdb_options_set_compression(opts, rocksdb_no_compression);
  if (prefix_len > 0) rocksdb_options_set_prefix_extractor(opts, rocksdb_slicetransform_create_fixed_prefix(prefix_len));
  rocksdb_envoptions_t *env = rocksdb_envoptions_create();
  rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(env, opts);
  rocksdb_sstfilewriter_open(w, path.c_str(), &err);
  for (std::size_t i = 0; err == nullptr && i < keys.size(); i++)
    rocksdb_sstfilewriter_put(w, keys[i].data(), keys[i].size(), "v", 1, &err);
  if (err == nullptr) rocksdb_sstfilewriter_finish(w, &err);
  const bool ok = err == nullptr;
  if (!ok) std::fprintf(stderr, "rocksdb sstfilewriter (%s): %s\n", path.c_str(), err);
  rocksdb_free(err);
  rocksdb_sstfilewriter_destroy(w);
  rocksdb_envoptions_destroy(env);
  rocksdb_block_based_options_destroy(bbto);
  rocksdb_options_destroy(opts);
  return ok;
}

static std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---- tests -----------------------------------------------------------------
static void test_types() {
  static_assert(!std::is_copy_constructible_v<rocksfilter::Builder>, "Builder is move-only");
  static_assert(!std::is_copy_assignable_v<rocksfilter::Filter>, "Filter is move-only");
  static_assert(!std::is_copy_constructible_v<rocksfilter::Sst>, "Sst is move-only");
  static_assert(!std::is_copy_constructible_v<rocksfilter::Bytes>, "Bytes is move-only");
  static_assert(std::is_nothrow_move_constructible_v<rocksfilter::Builder>, "");
  static_assert(std::is_nothrow_move_assignable_v<rocksfilter::Filter>, "");
  static_assert(std::is_nothrow_move_assignable_v<rocksfilter::Sst>, "");
  static_assert(std::is_nothrow_move_assignable_v<rocksfilter::Bytes>, "");
  static_assert(std::is_base_of_v<std::runtime_error, rocksfilter::Error>, "");
  static_assert(std::is_same_v<rocksfilter::FilterInfo, rocksfilter_filter_info>, "");
  static_assert(sizeof(rocksfilter_filter_info) == 48 && offsetof(rocksfilter_filter_info, bytes) == 8, "layout");
  static_assert(static_cast<int>(rocksfilter::Policy::ribbon) == ROCKSFILTER_POLICY_RIBBON, "");
  static_assert(static_cast<int>(rocksfilter::Kind::legacy_bloom) == ROCKSFILTER_KIND_LEGACY_BLOOM, "");
  static_assert(rocksfilter::header_version() == ROCKSFILTER_VERSION_STRING, "");
  CHECK(rocksfilter::version() == rocksfilter::header_version(), "library %s, header %s",
        std::string(rocksfilter::version()).c_str(), ROCKSFILTER_VERSION_STRING);
  CHECK(rocksfilter::hash64("") == 0x5342c3010fe1dd04ULL, "hash64(\"\") = %llx",
        static_cast<unsigned long long>(rocksfilter::hash64("")));
  const std::string_view k("user:1001");
  CHECK(rocksfilter::hash64(k) == rocksfilter_hash64(reinterpret_cast<const std::uint8_t *>(k.data()), k.size()),
        "hash64 differs from the C call");
  CHECK(rocksfilter::legacy_hash32(k) ==
            rocksfilter_legacy_hash32(reinterpret_cast<const std::uint8_t *>(k.data()), k.size()),
        "legacy_hash32 differs from the C call");
  const std::string with_nul("a\0b", 3);
  CHECK(rocksfilter::hash64(with_nul) != rocksfilter::hash64("a"), "keys with NUL bytes are hashed whole");
}

static void test_build_load_query() {
  const auto keys = make_keys("key", 1000);
  const auto absent = make_keys("absent", 10000);
  for (auto policy : {rocksfilter::Policy::bloom, rocksfilter::Policy::ribbon, rocksfilter::Policy::legacy_bloom}) {
    const int p = static_cast<int>(policy);
    rocksfilter::Builder b(policy, 10.0);
    CHECK(static_cast<bool>(b), "policy %d: builder holds a handle", p);
    b.add_keys(keys);
    b.add_key(keys.back());  // adjacent duplicate collapses
    CHECK(b.num_entries() == keys.size(), "policy %d: num_entries %zu", p, b.num_entries());
    rocksfilter::Bytes block = b.finish();
    CHECK(b.num_entries() == 0, "policy %d: finish empties the builder", p);
    const auto want = c_api_block(static_cast<rocksfilter_policy>(p), 10.0, keys);
    CHECK(block.size() == want.size() && block.size() > 0 &&
              std::memcmp(block.data(), want.data(), want.size()) == 0,
          "policy %d: %zu-byte block differs from the C API's %zu bytes", p, block.size(), want.size());

    rocksfilter::Filter f = rocksfilter::Filter::load(block);
    const rocksfilter::Kind want_kind = policy == rocksfilter::Policy::bloom ? rocksfilter::Kind::fast_local_bloom
                                        : policy == rocksfilter::Policy::ribbon
                                            ? rocksfilter::Kind::standard128_ribbon
                                            : rocksfilter::Kind::legacy_bloom;
    CHECK(f.kind() == want_kind, "policy %d: kind %d", p, static_cast<int>(f.kind()));
    const rocksfilter::FilterInfo info = f.info();
    CHECK(forward_declared_kind(&info) == static_cast<unsigned>(want_kind), "policy %d: info.kind %u", p, info.kind);
    CHECK(info.bytes == block.size(), "policy %d: info.bytes %llu", p, static_cast<unsigned long long>(info.bytes));
    CHECK(f.data() == block.view() && f.data().data() != block.view().data(), "policy %d: load copies the block", p);
    int missing = 0, fps = 0;
    for (const auto &k : keys) missing += !f.may_match(k);
    for (const auto &k : absent) fps += f.may_match(k.data(), k.size());
    CHECK(missing == 0, "policy %d: %d added keys do not match", p, missing);
    CHECK(fps < 300, "policy %d: %d/10000 false positives at 10 bits/key", p, fps);
    const double est = f.estimated_fp_rate(keys.size());
    CHECK(est > 0.0 && est < 0.03, "policy %d: estimated_fp_rate %g", p, est);
    if (policy != rocksfilter::Policy::legacy_bloom) {
      int by_hash = 0;
      for (const auto &k : keys) by_hash += f.may_match_hash(rocksfilter::hash64(k));
      CHECK(by_hash == 1000, "policy %d: may_match_hash finds %d of 1000", p, by_hash);
    }
    // Rebuilding from hashes gives the same bytes (not for legacy Bloom).
    if (policy != rocksfilter::Policy::legacy_bloom) {
      for (const auto &k : keys) b.add_hash(rocksfilter::hash64(k));
      rocksfilter::Bytes again = b.finish();
      CHECK(again.view() == block.view(), "policy %d: add_hash gives a different block", p);
    }
  }

  // Borrowed: the filter reads the caller's buffer.
  rocksfilter::Builder b(rocksfilter::Policy::bloom, 10.0);
  const std::string_view few[] = {"apple", "banana", "cherry"};
  b.add_keys(few);
  b.add_keys(few, 1);  // "apple" again, not adjacent: counted again
  CHECK(b.num_entries() == 4, "num_entries %zu", b.num_entries());
  rocksfilter::Bytes block = b.finish();
  {
    rocksfilter::Filter f = rocksfilter::Filter::load_borrowed(block.data(), block.size());
    CHECK(f.data().data() == reinterpret_cast<const char *>(block.data()), "load_borrowed does not copy");
    CHECK(f.may_match("banana") && !f.may_match("durian"), "borrowed filter answers");
  }

  // Key and alt (prefix) entries.
  b.add_key_and_alt("user:1001", "user");
  b.add_key_and_alt("user:1002", "user");
  CHECK(b.num_entries() == 3, "key_and_alt: %zu entries, want 3 (the repeated alt collapses)", b.num_entries());
  rocksfilter::Filter pf = rocksfilter::Filter::load(b.finish());
  CHECK(pf.may_match("user") && pf.may_match("user:1002"), "key_and_alt entries match");

  // Empty builder: RocksDB's empty, always-false filter.
  rocksfilter::Bytes none = b.finish();
  CHECK(none.empty() && none.data() == nullptr, "empty finish gives no bytes");
  rocksfilter::Filter empty = rocksfilter::Filter::load(none);
  CHECK(empty.kind() == rocksfilter::Kind::always_false && !empty.may_match("x"), "empty block is always-false");
  CHECK(empty.estimated_fp_rate(10) == 0.0, "always-false fp rate %g", empty.estimated_fp_rate(10));
}

static void test_errors() {
  std::string m = expect_error("bits_per_key 0.1", ROCKSFILTER_INVALID_ARGUMENT,
                               [] { rocksfilter::Builder b(rocksfilter::Policy::bloom, 0.1); });
  expect_error("bits_per_key NaN", ROCKSFILTER_INVALID_ARGUMENT,
               [] { rocksfilter::Builder b(rocksfilter::Policy::ribbon, std::nan("")); });
  expect_error("unknown policy", ROCKSFILTER_INVALID_ARGUMENT,
               [] { rocksfilter::Builder b(static_cast<rocksfilter::Policy>(99), 10.0); });

  // Degenerate geometry: a FastLocalBloom with 32 data bytes reads as
  // always-true, as in RocksDB (corruption is exercised on SST bytes below).
  std::uint8_t odd[37] = {0};
  const std::uint8_t trailer[5] = {0xff, 0, 6, 0, 0};
  std::memcpy(odd + 32, trailer, 5);
  CHECK(rocksfilter::Filter::load(odd, sizeof odd).kind() == rocksfilter::Kind::always_true, "short block: always true");
  CHECK(rocksfilter::Filter::load_borrowed(odd, sizeof odd).may_match("anything"), "short block, borrowed");

  // Legacy Bloom cannot take hashes: finish fails, and the builder is emptied and reusable.
  rocksfilter::Builder legacy(rocksfilter::Policy::legacy_bloom, 10.0);
  legacy.add_hash(42);
  expect_error("legacy add_hash", ROCKSFILTER_INVALID_ARGUMENT, [&] { legacy.finish(); });
  CHECK(legacy.num_entries() == 0, "builder emptied after a failed finish");
  legacy.add_key("k");
  CHECK(rocksfilter::Filter::load(legacy.finish()).may_match("k"), "builder reusable after a failed finish");

  // A NULL key with a non-zero length is recorded, and finish reports it.
  rocksfilter::Builder nk(rocksfilter::Policy::bloom, 10.0);
  nk.add_key(nullptr, 3);
  expect_error("NULL key", ROCKSFILTER_INVALID_ARGUMENT, [&] { nk.finish(); });

  // Catchable as std::exception too, with the same message.
  try {
    rocksfilter::Builder b(rocksfilter::Policy::bloom, -1.0);
    CHECK(false, "bits_per_key -1 accepted");
  } catch (const std::exception &e) {
    CHECK(std::strstr(e.what(), "invalid argument") == e.what(), "std::exception what(): %s", e.what());
  }
  CHECK(!m.empty(), "message of bits_per_key 0.1 error is kept");

  // Builder options: a target FP rate meets it; both a rate and a budget are refused.
  rocksfilter_builder_options o{};
  o.struct_size = sizeof o;
  o.policy = static_cast<std::uint32_t>(rocksfilter::Policy::ribbon);
  o.fp_rate = 0.01;
  o.ribbon_failure_one_in = 1000;
  rocksfilter::Builder sized(o);
  for (int i = 0; i < 5000; i++) sized.add_key(std::to_string(i));
  rocksfilter::Filter f = rocksfilter::Filter::load(sized.finish());
  CHECK(f.estimated_fp_rate(5000) <= 0.01 * 1.001, "options: estimate %g for a 1%% target", f.estimated_fp_rate(5000));
  CHECK(f.may_match("42"), "options: a key is absent");
  o.max_bytes = 4096;
  expect_error("fp_rate and max_bytes", ROCKSFILTER_INVALID_ARGUMENT, [&] { rocksfilter::Builder b(o); });
}

static void test_moves() {
  rocksfilter::Builder a(rocksfilter::Policy::bloom, 10.0);
  a.add_key("moved");
  rocksfilter_builder *raw = a.get();
  rocksfilter::Builder b(std::move(a));
  CHECK(!a && a.get() == nullptr && b.get() == raw, "move construction transfers the handle");
  CHECK(a.num_entries() == 0 && b.num_entries() == 1, "entries follow the handle");
  a.add_key("ignored");  // no-op on an empty object, as the C API on NULL
  expect_error("finish on a moved-from Builder", ROCKSFILTER_INVALID_ARGUMENT, [&] { a.finish(); });
  a = std::move(b);
  CHECK(a.get() == raw && !b, "move assignment transfers the handle");
  rocksfilter::Builder &alias = a;
  a = std::move(alias);  // self-move keeps the handle
  CHECK(a.get() == raw, "self move-assignment keeps the handle");

  rocksfilter::Bytes block = a.finish();
  const std::uint8_t *bytes = block.data();
  rocksfilter::Bytes block2(std::move(block));
  CHECK(block.data() == nullptr && block.size() == 0 && block2.data() == bytes, "Bytes moves");

  rocksfilter::Filter f = rocksfilter::Filter::load(block2);
  rocksfilter::Filter g = rocksfilter::Filter::load(block2);
  rocksfilter_filter *fh = f.get();
  g = std::move(f);  // frees g's old filter (ASan reports a leak otherwise)
  CHECK(g.get() == fh && !f, "Filter move assignment");
  CHECK(f.may_match("anything") && f.kind() == rocksfilter::Kind::always_true,
        "a moved-from Filter answers true (never a false negative)");
  expect_error("info on a moved-from Filter", ROCKSFILTER_INVALID_ARGUMENT, [&] { f.info(); });
  expect_error("data on a moved-from Filter", ROCKSFILTER_INVALID_ARGUMENT, [&] { (void)f.data(); });

  // release() and adoption round-trip.
  rocksfilter_filter *released = g.release();
  CHECK(!g && released == fh, "release gives the handle up");
  rocksfilter::Filter adopted(released);
  CHECK(adopted.may_match("moved"), "adopted handle works");
  std::uint8_t *rb = block2.release();
  CHECK(block2.empty(), "Bytes::release empties");
  rocksfilter_bytes_free(rb, 0);

  std::vector<rocksfilter::Filter> many;
  for (int i = 0; i < 20; i++) many.push_back(rocksfilter::Filter::load(adopted.data()));  // reallocations move
  int ok = 0;
  for (const auto &x : many) ok += x.may_match("moved");
  CHECK(ok == 20, "filters in a growing vector: %d of 20", ok);
}

static void test_batch_and_no_alloc() {
  const auto keys = make_keys("batch", 1000);
  rocksfilter::Builder b(rocksfilter::Policy::ribbon, 8.0);
  b.add_keys(keys);
  rocksfilter::Filter f = rocksfilter::Filter::load(b.finish());

  // 2000 queries: 1000 present + 1000 absent; not a multiple of the chunk size.
  std::vector<std::string> q = keys;
  for (const auto &k : make_keys("nobatch", 1000)) q.push_back(k);
  static_assert(2000 % rocksfilter::kBatchChunk != 0, "exercise a partial chunk");
  std::vector<std::string_view> views(q.begin(), q.end());
  std::vector<const std::uint8_t *> ptrs;
  std::vector<std::size_t> lens, offsets{0};
  std::string packed;
  for (const auto &k : q) {
    ptrs.push_back(reinterpret_cast<const std::uint8_t *>(k.data()));
    lens.push_back(k.size());
    packed += k;
    offsets.push_back(packed.size());
  }
  std::unique_ptr<bool[]> single(new bool[q.size()]), r1(new bool[q.size()]), r2(new bool[q.size()]),
      r3(new bool[q.size()]), r4(new bool[q.size()]), r5(new bool[q.size()]);

  const long before = g_news.load();
  for (std::size_t i = 0; i < q.size(); i++) single[i] = f.may_match(views[i]);
  f.may_match_batch(views.data(), views.size(), r1.get());
  f.may_match_batch(q, r2.get());      // container of std::string
  f.may_match_batch(views, r3.get());  // container of std::string_view
  f.may_match_batch(ptrs.data(), lens.data(), q.size(), r4.get());
  f.may_match_packed(packed, offsets.data(), q.size(), r5.get());
  bool h = f.may_match_hash(rocksfilter::hash64(views[0]));
  (void)f.kind();
  (void)f.estimated_fp_rate(1000);
  const long allocs = g_news.load() - before;
  CHECK(allocs == 0, "query paths made %ld operator new calls", allocs);
  CHECK(h, "may_match_hash");

  int diff = 0, present = 0;
  for (std::size_t i = 0; i < q.size(); i++) {
    diff += (r1[i] != single[i]) + (r2[i] != single[i]) + (r3[i] != single[i]) + (r4[i] != single[i]) +
            (r5[i] != single[i]);
    present += i < keys.size() && single[i];
  }
  CHECK(diff == 0, "%d batch answers differ from single queries", diff);
  CHECK(present == 1000, "%d of 1000 added keys match", present);

  std::vector<std::size_t> bad_offsets = offsets;
  bad_offsets[5] = packed.size() + 1;
  r5[0] = false;
  expect_error("packed offsets beyond the buffer", ROCKSFILTER_INVALID_ARGUMENT, [&] {
    f.may_match_packed(packed, bad_offsets.data(), q.size(), r5.get());
  });
  CHECK(!r5[0], "results untouched on a packed error");

  // Empty batch is fine.
  f.may_match_batch(static_cast<const std::string_view *>(nullptr), 0, r1.get());
}

static void test_sst(const std::string &dir) {
  // RocksDB's writer takes keys in comparator order.
  std::vector<std::string> sorted = make_keys("sstkey", 500);
  std::sort(sorted.begin(), sorted.end());
  const std::string path = dir + "/full.sst", ppath = dir + "/prefix.sst";
  if (!write_sst(path, sorted, 0) || !write_sst(ppath, sorted, 4)) {
    CHECK(false, "could not write SST files in %s", dir.c_str());
    return;
  }

  rocksfilter::Filter kept;
  {
    rocksfilter::Sst sst = rocksfilter::Sst::open(path);
    int missing = 0, fps = 0;
    for (const auto &k : sorted) missing += !sst.may_match(k);
    for (const auto &k : make_keys("notinsst", 1000)) fps += sst.may_match(k);
    {
      std::vector<std::string> probe = make_keys("notinsst", 1000);
      probe.insert(probe.end(), sorted.begin(), sorted.end());
      std::unique_ptr<bool[]> got(new bool[probe.size()]);
      sst.may_match_batch(probe, got.get());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < probe.size(); i++) differ += got[i] != sst.may_match(probe[i]);
      CHECK(differ == 0, "Sst::may_match_batch differs from may_match on %zu of %zu keys", differ, probe.size());
    }
    CHECK(missing == 0, "%d SST keys do not match", missing);
    CHECK(fps < 50, "%d/1000 SST false positives", fps);
    CHECK(sst.filter_type() == rocksfilter::SstFilterType::full, "filter_type %u",
          static_cast<unsigned>(sst.filter_type()));
    const rocksfilter::SstProperties p = sst.properties();
    CHECK(p.format_version == 5, "format_version %u", p.format_version);
    CHECK(p.num_entries == 500, "num_entries %llu", static_cast<unsigned long long>(p.num_entries));
    CHECK(p.filter_policy && std::string(p.filter_policy) == "bloomfilter", "filter_policy %s",
          p.filter_policy ? p.filter_policy : "(null)");
    CHECK(p.whole_key_filtering && !p.has_prefix_filter, "whole-key filter, no prefix filter");
    auto cmp = sst.property("rocksdb.comparator");
    CHECK(cmp && *cmp == "leveldb.BytewiseComparator", "comparator property");
    CHECK(!sst.property(std::string("no.such.property")), "absent property is nullopt");
    expect_error("prefix_may_match without a prefix filter", ROCKSFILTER_NOT_SUPPORTED,
                 [&] { sst.prefix_may_match("sstk"); });
    kept = sst.full_filter();
    CHECK(kept.kind() == rocksfilter::Kind::fast_local_bloom, "full filter kind %d", static_cast<int>(kept.kind()));
  }
  // The full filter of a file opened by path outlives the Sst.
  int kept_missing = 0;
  for (const auto &k : sorted) kept_missing += !kept.may_match(k);
  CHECK(kept_missing == 0, "%d keys missing from the full filter after the Sst is gone", kept_missing);

  {
    rocksfilter::Sst sst = rocksfilter::Sst::open(ppath.c_str(), rocksfilter::kSstSkipChecksums);
    CHECK(sst.properties().has_prefix_filter, "prefix SST has a prefix filter");
    CHECK(sst.prefix_may_match("sstk"), "prefix of every key matches");
    CHECK(!sst.prefix_may_match("zzzz"), "absent prefix is definite");
    expect_error("prefix of the wrong length", ROCKSFILTER_INVALID_ARGUMENT, [&] { sst.prefix_may_match("ss"); });
  }

  // In memory: the buffer must outlive the handle.
  const std::string bytes = read_file(path);
  {
    rocksfilter::Sst mem = rocksfilter::Sst::open_memory(bytes);
    CHECK(mem.may_match(sorted[7]) && mem.may_match(sorted[7].data(), sorted[7].size()), "open_memory answers");
    rocksfilter::Sst moved(std::move(mem));
    CHECK(!mem && moved.may_match(sorted[9]), "Sst moves");
    CHECK(mem.may_match("x") && mem.filter_type() == rocksfilter::SstFilterType::unsupported,
          "moved-from Sst answers true");
    expect_error("properties of a moved-from Sst", ROCKSFILTER_INVALID_ARGUMENT, [&] { mem.properties(); });
  }

  // Through the caller's reads: the same answers; a failing read, a thrown
  // exception and a truncation after open.
  {
    int calls = 0;
    auto read = [&](std::uint64_t off, std::uint8_t *dst, std::size_t len) {
      calls++;
      if (off + len > bytes.size()) return 5;
      std::memcpy(dst, bytes.data() + off, len);
      return 0;
    };
    rocksfilter::Sst src = rocksfilter::Sst::open_source(bytes.size(), read);
    int differ = 0;
    for (const auto &k : sorted) differ += !src.may_match(k);
    rocksfilter::Sst by_path = rocksfilter::Sst::open(path);
    for (const auto &k : make_keys("notinsst", 1000)) differ += src.may_match(k) != by_path.may_match(k);
    const rocksfilter::SstOpenStats st = src.open_stats();
    CHECK(differ == 0 && calls >= 1 && st.reads == static_cast<std::uint64_t>(calls) && st.bytes_held > 0,
          "open_source: %d answers differ, %d calls, %llu reads", differ, calls, static_cast<unsigned long long>(st.reads));
    std::string msg = expect_error("a failing read", ROCKSFILTER_IO_ERROR, [&] {
      rocksfilter::Sst::open_source(bytes.size(), [](std::uint64_t, std::uint8_t *, std::size_t) { return 7; });
    });
    CHECK(msg.find("read_at returned 7") != std::string::npos, "IO error names the code: %s", msg.c_str());
    bool rethrown = false;
    try {
      rocksfilter::Sst::open_source(bytes.size(), [](std::uint64_t, std::uint8_t *, std::size_t) -> int {
        throw std::out_of_range("object store said 503");
      });
    } catch (const std::out_of_range &e) {
      rethrown = std::string(e.what()) == "object store said 503";
    }
    CHECK(rethrown, "an exception thrown by read_at is rethrown by open_source");
    // Truncate the file under an open handle: the answers stay.
    FILE *f = std::fopen(path.c_str(), "w");
    CHECK(f != nullptr, "truncate %s", path.c_str());
    if (f) std::fclose(f);
    int lost = 0;
    for (const auto &k : sorted) lost += !by_path.may_match(k);
    CHECK(lost == 0, "%d keys lost after the file was truncated under its handle", lost);
  }

  std::string m = expect_error("missing file", ROCKSFILTER_IO_ERROR,
                               [&] { rocksfilter::Sst::open(dir + "/does-not-exist.sst"); });
  CHECK(m.find("does-not-exist.sst") != std::string::npos, "IO error names the path: %s", m.c_str());
  const std::string junk(4096, '\x5a');
  expect_error("junk bytes", ROCKSFILTER_CORRUPTION, [&] { rocksfilter::Sst::open_memory(junk); });
  std::string truncated = bytes.substr(0, bytes.size() - 1);
  expect_error("truncated file", ROCKSFILTER_CORRUPTION, [&] { rocksfilter::Sst::open_memory(truncated); });
  std::remove(path.c_str());
  std::remove(ppath.c_str());
}

// A partitioned file RocksDB wrote, read through a small Cache by path and by
// the caller's reads (from four threads at once): the answers of the file
// loaded at open; the budget holds; failing reads answer "may match" and are
// counted; the callable is released with the Sst.
static void test_cache(const std::string &dir) {
  std::vector<std::string> keys = make_keys("cachekey", 50000);
  std::sort(keys.begin(), keys.end());
  const std::string path = dir + "/partitioned.sst";
  if (!write_sst(path, keys, 0, true)) {
    CHECK(false, "could not write %s", path.c_str());
    return;
  }
  std::vector<std::string> probe = make_keys("absentkey", 20000);
  probe.insert(probe.end(), keys.begin(), keys.end());
  rocksfilter::Sst loaded = rocksfilter::Sst::open(path);
  CHECK(loaded.filter_type() == rocksfilter::SstFilterType::partitioned && loaded.properties().num_partitions > 100,
        "RocksDB wrote %u partitions", loaded.properties().num_partitions);
  std::vector<char> want(probe.size());
  for (std::size_t i = 0; i < probe.size(); i++) want[i] = loaded.may_match(probe[i]);

  rocksfilter::Cache cache(8 << 10);
  rocksfilter::SstOptions opts;
  opts.cache = &cache;
  rocksfilter::Sst by_path = rocksfilter::Sst::open(path, opts);
  const std::string bytes = read_file(path);
  std::atomic<int> fail{0}, alive{0};
  struct Reader {
    const std::string *bytes;
    std::atomic<int> *fail;
    std::shared_ptr<int> token;  // counts live copies through `alive`
    int operator()(std::uint64_t off, std::uint8_t *dst, std::size_t len) const {
      if (fail->load()) throw std::runtime_error("object store said 503");
      std::memcpy(dst, bytes->data() + off, len);
      return 0;
    }
  };
  static int shared_token = 0;
  std::shared_ptr<int> token(&shared_token, [&alive](int *) { alive--; });
  alive++;
  rocksfilter::Sst by_source = rocksfilter::Sst::open_source(bytes.size(), Reader{&bytes, &fail, token}, opts);
  token.reset();
  CHECK(alive.load() == 1, "the Sst keeps its copy of the reader");
  std::atomic<int> differ{0}, over{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      const rocksfilter::Sst &s = t % 2 ? by_path : by_source;
      for (std::size_t i = t; i < probe.size(); i += 2) {
        differ += s.may_match(probe[i]) != static_cast<bool>(want[i]);
        over += cache.bytes_held() > (8 << 10);
      }
    });
  }
  for (auto &th : threads) th.join();
  std::unique_ptr<bool[]> got(new bool[probe.size()]);
  by_path.may_match_batch(probe, got.get());
  for (std::size_t i = 0; i < probe.size(); i++) differ += got[i] != static_cast<bool>(want[i]);
  rocksfilter::CacheStats st = cache.stats();
  CHECK(differ == 0 && over == 0, "cached answers: %d differ, %d times over budget", differ.load(), over.load());
  CHECK(st.misses > 100 && st.evictions > 100 && st.hits > 0 && st.bytes_held <= st.capacity && st.read_errors == 0,
        "cache: %llu hits, %llu misses, %llu evictions", static_cast<unsigned long long>(st.hits),
        static_cast<unsigned long long>(st.misses), static_cast<unsigned long long>(st.evictions));
  // Reads that throw after the open: every written key may match, counted.
  fail = 1;
  int lost = 0;
  for (const auto &k : keys) lost += !by_source.may_match(k);
  CHECK(lost == 0 && cache.stats().read_errors > 0, "failing reads: %d keys lost", lost);
  // The reader is released with its Sst, the cache empties with both.
  { rocksfilter::Sst gone = std::move(by_source); }
  CHECK(alive.load() == 0, "the reader is released with the Sst");
  { rocksfilter::Sst gone = std::move(by_path); }
  CHECK(cache.bytes_held() == 0, "closed Ssts leave nothing in the cache");
  rocksfilter::SstOptions bad;
  bad.flags = rocksfilter::kSstCacheFullFilters;
  expect_error("kSstCacheFullFilters without a cache", ROCKSFILTER_INVALID_ARGUMENT, [&] { rocksfilter::Sst::open(path, bad); });
  std::remove(path.c_str());
}

int main() {
  char tmpl[] = "/tmp/rocksfilter-hpp-XXXXXX";
  const char *dir = mkdtemp(tmpl);
  if (dir == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  std::printf("rocksfilter %s C++ wrapper test\n", std::string(rocksfilter::version()).c_str());
  test_types();
  test_build_load_query();
  test_errors();
  test_moves();
  test_batch_and_no_alloc();
  test_sst(dir);
  test_cache(dir);
  rmdir(dir);
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
