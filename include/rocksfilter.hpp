/*
 * rocksfilter.hpp -- C++17 wrapper of rocksfilter.h (header-only).
 *
 * Every class owns one C handle and frees it with the matching `_free`
 * function in its destructor. Handles are move-only; a moved-from object
 * holds no handle (queries on it answer true, as the C functions do on NULL;
 * fallible calls on it throw rocksfilter::Error with
 * ROCKSFILTER_INVALID_ARGUMENT).
 *
 * Errors: a failing C call becomes a rocksfilter::Error carrying the C
 * status (status()) and the library's message (what(), e.g. "corruption:
 * ..."). The message is read only after the call has returned, then freed.
 *
 * Queries (may_match, may_match_hash, the batch calls, kind, estimated_fp_rate,
 * hash64) are noexcept and call straight through: no allocation, no copy of
 * the key. The string_view batch overloads convert keys on the stack in
 * chunks of kBatchChunk.
 *
 * Threads: as in rocksfilter.h. A Filter or Sst may be queried from many
 * threads at once; a Builder belongs to one thread at a time.
 *
 * Keys are std::string_view (any bytes, NULs included). Byte buffers are
 * (pointer, length) pairs or std::string_view.
 */
#ifndef ROCKSFILTER_HPP
#define ROCKSFILTER_HPP

#if !defined(__cplusplus) || (__cplusplus < 201703L && (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L))
#error "rocksfilter.hpp needs C++17 or later (use rocksfilter.h from C)"
#endif

#include "rocksfilter.h"

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rocksfilter {

/* Which filter a Builder writes (rocksfilter_policy). */
enum class Policy : int {
  bloom = ROCKSFILTER_POLICY_BLOOM,
  ribbon = ROCKSFILTER_POLICY_RIBBON,
  legacy_bloom = ROCKSFILTER_POLICY_LEGACY_BLOOM,
};

/* What a loaded block holds (rocksfilter_kind). */
enum class Kind : int {
  always_false = ROCKSFILTER_KIND_ALWAYS_FALSE,
  always_true = ROCKSFILTER_KIND_ALWAYS_TRUE,
  fast_local_bloom = ROCKSFILTER_KIND_FAST_LOCAL_BLOOM,
  standard128_ribbon = ROCKSFILTER_KIND_STANDARD128_RIBBON,
  legacy_bloom = ROCKSFILTER_KIND_LEGACY_BLOOM,
};

/* An SST file's filter (ROCKSFILTER_SST_FILTER_*). */
enum class SstFilterType : std::uint32_t {
  none = ROCKSFILTER_SST_FILTER_NONE,
  full = ROCKSFILTER_SST_FILTER_FULL,
  partitioned = ROCKSFILTER_SST_FILTER_PARTITIONED,
  unsupported = ROCKSFILTER_SST_FILTER_UNSUPPORTED,
  block_based = ROCKSFILTER_SST_FILTER_BLOCK_BASED,
};

/* Flags for Sst::open / Sst::open_memory / Sst::open_source. */
inline constexpr std::uint32_t kSstSkipChecksums = ROCKSFILTER_SST_SKIP_CHECKSUMS;
/* Sst::open only: map the file instead of reading it (see ROCKSFILTER_SST_MMAP
 * in rocksfilter.h for what it risks). */
inline constexpr std::uint32_t kSstMmap = ROCKSFILTER_SST_MMAP;
/* With SstOptions::cache: whole full filters go to the cache too. */
inline constexpr std::uint32_t kSstCacheFullFilters = ROCKSFILTER_SST_CACHE_FULL_FILTERS;

/* The C structs, under C++ names (same types). */
using FilterInfo = rocksfilter_filter_info;
using SstProperties = rocksfilter_sst_properties;
using SstOpenStats = rocksfilter_sst_open_stats;
using CacheStats = rocksfilter_cache_stats;

/* The status in words, as the library's messages start ("corruption"). */
inline const char *status_name(rocksfilter_status s) noexcept {
  switch (s) {
    case ROCKSFILTER_OK: return "ok";
    case ROCKSFILTER_INVALID_ARGUMENT: return "invalid argument";
    case ROCKSFILTER_CORRUPTION: return "corruption";
    case ROCKSFILTER_NOT_SUPPORTED: return "not supported";
    case ROCKSFILTER_IO_ERROR: return "I/O error";
    case ROCKSFILTER_NOT_FOUND: return "not found";
    case ROCKSFILTER_INTERNAL: return "internal error";
  }
  return "unknown status";
}

/* A failed call: the C status and the library's message. */
class Error : public std::runtime_error {
 public:
  Error(rocksfilter_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  rocksfilter_status status() const noexcept { return status_; }

 private:
  rocksfilter_status status_;
};

namespace detail {

/* Owns a message stored through a `char **errptr`; frees it in every case
 * (including when building the exception throws). */
class ErrPtr {
 public:
  ErrPtr() noexcept = default;
  ErrPtr(const ErrPtr &) = delete;
  ErrPtr &operator=(const ErrPtr &) = delete;
  ~ErrPtr() { rocksfilter_string_free(msg_); }
  /* The argument for the C call's errptr parameter. */
  char **out() noexcept { return &msg_; }
  const char *get() const noexcept { return msg_; }

 private:
  char *msg_ = nullptr;
};

/* Throws for a non-OK status. `err` is read here, after the C call has
 * returned in an earlier full expression, never as a sibling argument of
 * that call. `what` names the call when the library gave no message. */
inline void check(rocksfilter_status status, const ErrPtr &err, const char *what) {
  if (status == ROCKSFILTER_OK) return;
  if (err.get() != nullptr) throw Error(status, std::string(err.get()));
  throw Error(status, std::string(status_name(status)) + ": " + what);
}

inline void check(rocksfilter_status status, const char *what) {
  if (status == ROCKSFILTER_OK) return;
  throw Error(status, std::string(status_name(status)) + ": " + what);
}

inline const std::uint8_t *bytes(std::string_view s) noexcept {
  return reinterpret_cast<const std::uint8_t *>(s.data());
}

/* Calls fn(ptrs, lens, count, offset) over stack chunks of `n` keys, where
 * key_at(i) gives key i as a std::string_view. No heap allocation. */
template <std::size_t Chunk, class KeyAt, class Fn>
void for_each_chunk(std::size_t n, KeyAt &&key_at, Fn &&fn) noexcept {
  const std::uint8_t *ptrs[Chunk];
  std::size_t lens[Chunk];
  for (std::size_t off = 0; off < n; off += Chunk) {
    const std::size_t m = (n - off < Chunk) ? n - off : Chunk;
    for (std::size_t j = 0; j < m; j++) {
      const std::string_view k = key_at(off + j);
      ptrs[j] = bytes(k);
      lens[j] = k.size();
    }
    fn(ptrs, lens, m, off);
  }
}

}  // namespace detail

/* The library's version ("MAJOR.MINOR.PATCH"). */
inline std::string_view version() noexcept { return rocksfilter_version(); }

/* The version of the header this code was compiled against. */
inline constexpr std::string_view header_version() noexcept { return ROCKSFILTER_VERSION_STRING; }

/* RocksDB's 64-bit filter hash (rocksfilter_hash64). */
inline std::uint64_t hash64(std::string_view key) noexcept {
  return rocksfilter_hash64(detail::bytes(key), key.size());
}

/* RocksDB's legacy Bloom hash (rocksfilter_legacy_hash32). */
inline std::uint32_t legacy_hash32(std::string_view key) noexcept {
  return rocksfilter_legacy_hash32(detail::bytes(key), key.size());
}

/* A malloc()ed buffer returned by the library, freed with
 * rocksfilter_bytes_free(). Move-only. Empty (data() NULL, size() 0) for
 * RocksDB's empty filter. */
class Bytes {
 public:
  Bytes() noexcept = default;
  /* Takes ownership of a buffer returned by the library. */
  Bytes(std::uint8_t *data, std::size_t size) noexcept : data_(data), size_(size) {}
  Bytes(Bytes &&o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Bytes &operator=(Bytes &&o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  Bytes(const Bytes &) = delete;
  Bytes &operator=(const Bytes &) = delete;
  ~Bytes() { reset(); }

  const std::uint8_t *data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const std::uint8_t *begin() const noexcept { return data_; }
  const std::uint8_t *end() const noexcept { return data_ + size_; }
  std::string_view view() const noexcept {
    return size_ == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char *>(data_), size_);
  }
  std::vector<std::uint8_t> to_vector() const { return std::vector<std::uint8_t>(begin(), end()); }

  /* Gives up ownership; the caller frees with rocksfilter_bytes_free(). */
  std::uint8_t *release() noexcept {
    size_ = 0;
    return std::exchange(data_, nullptr);
  }
  void reset() noexcept {
    rocksfilter_bytes_free(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }

 private:
  std::uint8_t *data_ = nullptr;
  std::size_t size_ = 0;
};

/* Keys per chunk in the string_view batch overloads (on the stack). */
inline constexpr std::size_t kBatchChunk = 64;

namespace detail {
/* Any contiguous container of elements convertible to std::string_view. */
template <class Keys>
using if_key_container =
    std::enable_if_t<std::is_convertible_v<decltype(*std::data(std::declval<const Keys &>())), std::string_view>>;

/* A container's keys, chunk by chunk, to a C batch call
 * `batch(handle, ptrs, lens, n, results)`. */
template <class Handle, class Keys>
void batch_container(void (*batch)(Handle, const std::uint8_t *const *, const std::size_t *, std::size_t, bool *),
                     Handle h, const Keys &keys, bool *results) noexcept {
  const auto *k = std::data(keys);
  for_each_chunk<kBatchChunk>(
      std::size(keys), [k](std::size_t i) { return std::string_view(k[i]); },
      [batch, h, results](const std::uint8_t *const *p, const std::size_t *l, std::size_t m, std::size_t off) {
        batch(h, p, l, m, results + off);
      });
}
}  // namespace detail

/* A loaded, immutable filter block (rocksfilter_filter). */
class Filter {
 public:
  Filter() noexcept = default;
  /* Takes ownership of a handle from the C API. */
  explicit Filter(rocksfilter_filter *handle) noexcept : h_(handle) {}
  Filter(Filter &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Filter &operator=(Filter &&o) noexcept {
    if (this != &o) {
      rocksfilter_filter_free(h_);
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Filter(const Filter &) = delete;
  Filter &operator=(const Filter &) = delete;
  ~Filter() { rocksfilter_filter_free(h_); }

  /* Loads a block, copying its bytes (rocksfilter_filter_load). */
  static Filter load(const void *data, std::size_t len) {
    rocksfilter_filter *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s =
        rocksfilter_filter_load(static_cast<const std::uint8_t *>(data), len, &out, err.out());
    detail::check(s, err, "rocksfilter_filter_load");
    return Filter(out);
  }
  static Filter load(std::string_view block) { return load(block.data(), block.size()); }
  static Filter load(const Bytes &block) { return load(block.data(), block.size()); }

  /* Loads a block without copying: `data` must stay valid and unmodified
   * until the Filter is destroyed (rocksfilter_filter_load_borrowed). */
  static Filter load_borrowed(const void *data, std::size_t len) {
    rocksfilter_filter *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s =
        rocksfilter_filter_load_borrowed(static_cast<const std::uint8_t *>(data), len, &out, err.out());
    detail::check(s, err, "rocksfilter_filter_load_borrowed");
    return Filter(out);
  }
  static Filter load_borrowed(std::string_view block) { return load_borrowed(block.data(), block.size()); }

  /* false is definite; true may be a false positive. */
  bool may_match(std::string_view key) const noexcept {
    return rocksfilter_filter_may_match(h_, detail::bytes(key), key.size());
  }
  bool may_match(const void *key, std::size_t len) const noexcept {
    return rocksfilter_filter_may_match(h_, static_cast<const std::uint8_t *>(key), len);
  }
  /* By a hash64() of the key; always true on legacy Bloom filters. */
  bool may_match_hash(std::uint64_t hash) const noexcept { return rocksfilter_filter_may_match_hash(h_, hash); }

  /* results[i] answers keys[i] for i < n (rocksfilter_filter_may_match_batch). */
  void may_match_batch(const std::uint8_t *const *keys, const std::size_t *lens, std::size_t n,
                       bool *results) const noexcept {
    rocksfilter_filter_may_match_batch(h_, keys, lens, n, results);
  }
  void may_match_batch(const std::string_view *keys, std::size_t n, bool *results) const noexcept {
    detail::for_each_chunk<kBatchChunk>(
        n, [keys](std::size_t i) { return keys[i]; },
        [this, results](const std::uint8_t *const *p, const std::size_t *l, std::size_t m, std::size_t off) {
          rocksfilter_filter_may_match_batch(h_, p, l, m, results + off);
        });
  }
  /* Any contiguous container (std::vector, std::array, C array) of elements
   * convertible to std::string_view; results must hold std::size(keys). */
  template <class Keys, class = detail::if_key_container<Keys>>
  void may_match_batch(const Keys &keys, bool *results) const noexcept {
    detail::batch_container(&rocksfilter_filter_may_match_batch, static_cast<const rocksfilter_filter *>(h_), keys,
                            results);
  }

  /* Packed batch: key i is buf[offsets[i] .. offsets[i+1]]; `offsets` has
   * n + 1 entries. Throws Error (INVALID_ARGUMENT) for bad offsets. */
  void may_match_packed(std::string_view buf, const std::size_t *offsets, std::size_t n, bool *results) const {
    detail::ErrPtr err;
    const rocksfilter_status s =
        rocksfilter_filter_may_match_packed(h_, detail::bytes(buf), buf.size(), offsets, n, results, err.out());
    detail::check(s, err, "rocksfilter_filter_may_match_packed");
  }

  Kind kind() const noexcept { return static_cast<Kind>(rocksfilter_filter_kind(h_)); }

  FilterInfo info() const {
    FilterInfo out{};
    const rocksfilter_status s = rocksfilter_filter_get_info(h_, &out);
    detail::check(s, "rocksfilter_filter_get_info on an empty Filter");
    return out;
  }

  /* The block bytes, owned by the filter (or the borrowed buffer). */
  std::string_view data() const {
    const std::uint8_t *p = nullptr;
    std::size_t len = 0;
    const rocksfilter_status s = rocksfilter_filter_data(h_, &p, &len);
    detail::check(s, "rocksfilter_filter_data on an empty Filter");
    return len == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char *>(p), len);
  }

  double estimated_fp_rate(std::size_t num_keys) const noexcept {
    return rocksfilter_filter_estimated_fp_rate(h_, num_keys);
  }

  rocksfilter_filter *get() const noexcept { return h_; }
  /* Gives up ownership; the caller frees with rocksfilter_filter_free(). */
  rocksfilter_filter *release() noexcept { return std::exchange(h_, nullptr); }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 private:
  rocksfilter_filter *h_ = nullptr;
};

/* A filter builder (rocksfilter_builder). One thread at a time. */
class Builder {
 public:
  /* Throws Error (INVALID_ARGUMENT) for bits_per_key below 0.5 or NaN. */
  Builder(Policy policy, double bits_per_key) {
    detail::ErrPtr err;
    const rocksfilter_status s =
        rocksfilter_builder_new(static_cast<rocksfilter_policy>(policy), bits_per_key, &h_, err.out());
    detail::check(s, err, "rocksfilter_builder_new");
  }
  /* Sized by `options` (rocksfilter_builder_options: value-initialise it, set struct_size =
     sizeof(rocksfilter_builder_options) and policy, then fp_rate or max_bytes, or bits_per_key).
     Throws Error (INVALID_ARGUMENT) for options the library refuses. */
  explicit Builder(const rocksfilter_builder_options &options) {
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_builder_new_with_options(&options, &h_, err.out());
    detail::check(s, err, "rocksfilter_builder_new_with_options");
  }
  /* Takes ownership of a handle from the C API. */
  explicit Builder(rocksfilter_builder *handle) noexcept : h_(handle) {}
  Builder(Builder &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Builder &operator=(Builder &&o) noexcept {
    if (this != &o) {
      rocksfilter_builder_free(h_);
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Builder(const Builder &) = delete;
  Builder &operator=(const Builder &) = delete;
  ~Builder() { rocksfilter_builder_free(h_); }

  void add_key(std::string_view key) noexcept { rocksfilter_builder_add_key(h_, detail::bytes(key), key.size()); }
  void add_key(const void *key, std::size_t len) noexcept {
    rocksfilter_builder_add_key(h_, static_cast<const std::uint8_t *>(key), len);
  }
  /* Adds keys[i] for i < n, in order. */
  void add_keys(const std::string_view *keys, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i++) add_key(keys[i]);
  }
  /* Any container of elements convertible to std::string_view, in order. */
  template <class Keys, class = decltype(std::begin(std::declval<const Keys &>()))>
  void add_keys(const Keys &keys) noexcept {
    for (const auto &k : keys) add_key(std::string_view(k));
  }
  /* RocksDB's AddKeyAndAlt (alt is typically the key's prefix). */
  void add_key_and_alt(std::string_view key, std::string_view alt) noexcept {
    rocksfilter_builder_add_key_and_alt(h_, detail::bytes(key), key.size(), detail::bytes(alt), alt.size());
  }
  /* Adds a key by its hash64() (not for legacy Bloom: finish then throws). */
  void add_hash(std::uint64_t hash) noexcept { rocksfilter_builder_add_hash(h_, hash); }
  std::size_t num_entries() const noexcept { return rocksfilter_builder_num_entries(h_); }

  /* Writes the block and empties the builder for reuse (also on failure). */
  Bytes finish() {
    std::uint8_t *data = nullptr;
    std::size_t len = 0;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_builder_finish(h_, &data, &len, err.out());
    detail::check(s, err, "rocksfilter_builder_finish");
    return Bytes(data, len);
  }

  rocksfilter_builder *get() const noexcept { return h_; }
  /* Gives up ownership; the caller frees with rocksfilter_builder_free(). */
  rocksfilter_builder *release() noexcept { return std::exchange(h_, nullptr); }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 private:
  rocksfilter_builder *h_ = nullptr;
};

/* A cache of filter blocks with a byte budget (rocksfilter_cache), shared by
 * the Ssts opened with it (SstOptions::cache). Thread-safe. Ssts keep their
 * own reference: destroying the Cache first is harmless. */
class Cache {
 public:
  explicit Cache(std::size_t capacity_bytes) : h_(rocksfilter_cache_new(capacity_bytes)) {
    if (h_ == nullptr) throw Error(ROCKSFILTER_INTERNAL, "rocksfilter_cache_new failed");
  }
  /* At most max_open_files files kept open for the Ssts opened by path
   * (rocksfilter_cache_new_with_open_files; 0: none). */
  Cache(std::size_t capacity_bytes, std::size_t max_open_files)
      : h_(rocksfilter_cache_new_with_open_files(capacity_bytes, max_open_files)) {
    if (h_ == nullptr) throw Error(ROCKSFILTER_INTERNAL, "rocksfilter_cache_new_with_open_files failed");
  }
  Cache(Cache &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Cache &operator=(Cache &&o) noexcept {
    if (this != &o) {
      rocksfilter_cache_free(h_);
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Cache(const Cache &) = delete;
  Cache &operator=(const Cache &) = delete;
  ~Cache() { rocksfilter_cache_free(h_); }

  /* Bytes held now; at most the capacity. */
  std::size_t bytes_held() const noexcept { return rocksfilter_cache_bytes_held(h_); }
  /* Counters and occupancy (rocksfilter_cache_stats). */
  CacheStats stats() const {
    CacheStats out{};
    out.struct_size = sizeof out;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_cache_get_stats(h_, &out, err.out());
    detail::check(s, err, "rocksfilter_cache_get_stats");
    return out;
  }
  rocksfilter_cache *get() const noexcept { return h_; }

 private:
  rocksfilter_cache *h_ = nullptr;
};

/* Options of Sst::open and Sst::open_source (rocksfilter_sst_options). */
struct SstOptions {
  /* kSstSkipChecksums, kSstMmap (Sst::open, not with a cache), kSstCacheFullFilters. */
  std::uint32_t flags = 0;
  /* nullptr: every filter block read at open, kept by the Sst. Otherwise
   * partitions (and with kSstCacheFullFilters full filters) are read into
   * this cache when a query needs them (see rocksfilter_sst_open_ex). */
  const Cache *cache = nullptr;
};

/* An opened SST file's filter (rocksfilter_sst). Immutable. */
class Sst {
 public:
  Sst() noexcept = default;
  /* Takes ownership of a handle from the C API. */
  explicit Sst(rocksfilter_sst *handle) noexcept : h_(handle) {}
  Sst(Sst &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Sst &operator=(Sst &&o) noexcept {
    if (this != &o) {
      rocksfilter_sst_free(h_);
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Sst(const Sst &) = delete;
  Sst &operator=(const Sst &) = delete;
  ~Sst() { rocksfilter_sst_free(h_); }

  /* Opens the file: reads what its filter needs into memory the Sst owns and
   * closes it (flags: kSstSkipChecksums, kSstMmap). */
  static Sst open(const char *path, std::uint32_t flags = 0) {
    rocksfilter_sst *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_sst_open_opts(path, flags, &out, err.out());
    detail::check(s, err, "rocksfilter_sst_open_opts");
    return Sst(out);
  }
  static Sst open(const std::string &path, std::uint32_t flags = 0) { return open(path.c_str(), flags); }

  /* Opens the file with options (rocksfilter_sst_open_ex): with a cache, the
   * Sst keeps the path and reads partitions into the cache on demand. */
  static Sst open(const char *path, const SstOptions &options) {
    const rocksfilter_sst_options o = c_options(options);
    rocksfilter_sst *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_sst_open_ex(path, &o, &out, err.out());
    detail::check(s, err, "rocksfilter_sst_open_ex");
    return Sst(out);
  }
  static Sst open(const std::string &path, const SstOptions &options) { return open(path.c_str(), options); }

  /* Reads a file held in memory without copying: `data` must outlive the
   * Sst and every Filter obtained from it. */
  static Sst open_memory(const void *data, std::size_t len, std::uint32_t flags = 0) {
    rocksfilter_sst *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s =
        rocksfilter_sst_open_memory_opts(static_cast<const std::uint8_t *>(data), len, flags, &out, err.out());
    detail::check(s, err, "rocksfilter_sst_open_memory_opts");
    return Sst(out);
  }
  static Sst open_memory(std::string_view file, std::uint32_t flags = 0) {
    return open_memory(file.data(), file.size(), flags);
  }

  /* Opens a file of `size` bytes through the caller's reads (rocksfilter_source):
   * `read_at(std::uint64_t offset, std::uint8_t *dst, std::size_t len)` copies
   * exactly len bytes at offset into dst and returns 0, or returns another int
   * for an I/O error. It is called only during this call, on this thread (a
   * 64 KiB suffix, then at most one range per filter). An exception it throws
   * is caught before it reaches the C library, and rethrown here once the open
   * has failed (flags: kSstSkipChecksums). */
  template <class ReadAt>
  static Sst open_source(std::uint64_t size, ReadAt &&read_at, std::uint32_t flags = 0) {
    struct Ctx {
      std::remove_reference_t<ReadAt> *read_at;
      std::exception_ptr error;
    } ctx{&read_at, nullptr};
    rocksfilter_source src{};
    src.struct_size = sizeof src;
    src.size = size;
    src.ctx = &ctx;
    src.read_at = [](void *c, std::uint64_t offset, std::uint8_t *dst, std::size_t len) noexcept -> int {
      Ctx *x = static_cast<Ctx *>(c);
      try {
        return static_cast<int>((*x->read_at)(offset, dst, len));
      } catch (...) {
        x->error = std::current_exception();
        return -1;
      }
    };
    rocksfilter_sst *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_sst_open_source(&src, flags, &out, err.out());
    Sst sst(out);
    if (ctx.error) std::rethrow_exception(ctx.error);
    detail::check(s, err, "rocksfilter_sst_open_source");
    return sst;
  }

  /* open_source with options (rocksfilter_sst_open_source_ex). With a cache,
   * the Sst keeps a copy of `read_at` (moved in) and calls it when a query
   * needs a filter block the cache does not hold, from the querying thread:
   * it must then be callable from many threads at once. An exception it
   * throws during the open is rethrown here; one thrown by a query's read is
   * caught and counts as a failed read (that query answers "may match"). The
   * copy is destroyed when the library releases it (with the Sst, or before
   * this returns when nothing is kept). */
  template <class ReadAt>
  static Sst open_source(std::uint64_t size, ReadAt read_at, const SstOptions &options) {
    struct Ctx {
      explicit Ctx(ReadAt &&f) : fn(std::move(f)) {}
      ReadAt fn;
      std::atomic<bool> opening{true};
      std::exception_ptr error;
    };
    // The library's release owns one reference, this call another (to
    // read `error` after a failed open, which has released already).
    auto ctx = std::make_shared<Ctx>(std::move(read_at));
    rocksfilter_source src{};
    src.struct_size = sizeof src;
    src.size = size;
    src.ctx = new std::shared_ptr<Ctx>(ctx);
    src.read_at = [](void *c, std::uint64_t offset, std::uint8_t *dst, std::size_t len) noexcept -> int {
      Ctx &x = **static_cast<std::shared_ptr<Ctx> *>(c);
      try {
        return static_cast<int>(x.fn(offset, dst, len));
      } catch (...) {
        // Only the opening thread reads during the open.
        if (x.opening.load(std::memory_order_relaxed)) x.error = std::current_exception();
        return -1;
      }
    };
    src.release = [](void *c) noexcept { delete static_cast<std::shared_ptr<Ctx> *>(c); };
    const rocksfilter_sst_options o = c_options(options);
    rocksfilter_sst *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_sst_open_source_ex(&src, &o, &out, err.out());
    ctx->opening.store(false, std::memory_order_relaxed);
    Sst sst(out);
    if (ctx->error) std::rethrow_exception(ctx->error);
    detail::check(s, err, "rocksfilter_sst_open_source_ex");
    return sst;
  }

  /* What the open read (calls, bytes) and the bytes this Sst holds. */
  SstOpenStats open_stats() const {
    SstOpenStats out{};
    out.struct_size = sizeof out;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_sst_get_open_stats(h_, &out, err.out());
    detail::check(s, err, "rocksfilter_sst_get_open_stats");
    return out;
  }

  /* Can the file hold this key? false is definite. */
  bool may_match(std::string_view key) const noexcept {
    return rocksfilter_sst_may_match(h_, detail::bytes(key), key.size());
  }
  bool may_match(const void *key, std::size_t len) const noexcept {
    return rocksfilter_sst_may_match(h_, static_cast<const std::uint8_t *>(key), len);
  }

  /* results[i] answers keys[i] for i < n, as may_match(keys[i]) would
   * (rocksfilter_sst_may_match_batch: hashed and prefetched ahead).
   * Any contiguous container of elements convertible to std::string_view;
   * results must hold std::size(keys). */
  template <class Keys, class = detail::if_key_container<Keys>>
  void may_match_batch(const Keys &keys, bool *results) const noexcept {
    detail::batch_container(&rocksfilter_sst_may_match_batch, static_cast<const rocksfilter_sst *>(h_), keys, results);
  }

  /* Can the file hold a key with this prefix? Throws NOT_SUPPORTED without
   * a prefix filter, INVALID_ARGUMENT for a prefix the extractor cannot make. */
  bool prefix_may_match(std::string_view prefix) const {
    bool out = true;
    detail::ErrPtr err;
    const rocksfilter_status s =
        rocksfilter_sst_prefix_may_match(h_, detail::bytes(prefix), prefix.size(), &out, err.out());
    detail::check(s, err, "rocksfilter_sst_prefix_may_match");
    return out;
  }

  /* The file's full filter, sharing the Sst's bytes (see rocksfilter.h).
   * Throws NOT_FOUND for partitioned or absent filters. */
  Filter full_filter() const {
    rocksfilter_filter *out = nullptr;
    detail::ErrPtr err;
    const rocksfilter_status s = rocksfilter_sst_full_filter(h_, &out, err.out());
    detail::check(s, err, "rocksfilter_sst_full_filter");
    return Filter(out);
  }

  SstFilterType filter_type() const noexcept { return static_cast<SstFilterType>(rocksfilter_sst_filter_type(h_)); }

  /* Strings in the result are owned by this Sst. */
  SstProperties properties() const {
    SstProperties out{};
    const rocksfilter_status s = rocksfilter_sst_get_properties(h_, &out);
    detail::check(s, "rocksfilter_sst_get_properties on an empty Sst");
    return out;
  }

  /* Raw bytes of table property `name`, owned by this Sst; nullopt when absent. */
  std::optional<std::string_view> property(const char *name) const noexcept {
    std::size_t len = 0;
    const std::uint8_t *p = rocksfilter_sst_property(h_, name, &len);
    if (p == nullptr) return std::nullopt;
    return std::string_view(reinterpret_cast<const char *>(p), len);
  }
  std::optional<std::string_view> property(const std::string &name) const noexcept { return property(name.c_str()); }

  rocksfilter_sst *get() const noexcept { return h_; }
  /* Gives up ownership; the caller frees with rocksfilter_sst_free(). */
  rocksfilter_sst *release() noexcept { return std::exchange(h_, nullptr); }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 private:
  static rocksfilter_sst_options c_options(const SstOptions &options) noexcept {
    rocksfilter_sst_options o{};
    o.struct_size = sizeof o;
    o.flags = options.flags;
    o.cache = options.cache != nullptr ? options.cache->get() : nullptr;
    return o;
  }

  rocksfilter_sst *h_ = nullptr;
};

}  // namespace rocksfilter

#endif /* ROCKSFILTER_HPP */
