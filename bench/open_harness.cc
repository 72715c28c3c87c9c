// Opening SST files: what it costs rocksfilter (by path with pread, through
// a read callback, and mapped with ROCKSFILTER_SST_MMAP) and RocksDB 11.12
// (SstFileReader::Open, which reads the footer, metaindex, properties,
// index and filter, as a table reader does), on the same files, in one
// process: microseconds per open (median of the rounds), and the reads and
// bytes each open made (ours from rocksfilter_sst_get_open_stats and the
// callback's own count, RocksDB's from a FileSystem wrapper that counts
// the reads of its RandomAccessFile). Files are in the page cache: this is
// the CPU and system-call cost of an open, not the disk's.
//
// Then the query speed after open: the owned copy (the default) against
// the mapping, single and batch, on present and absent keys, taking turns.
//
// RocksDB is linked from the static library sst_fixtures/rocksdb11/build.sh
// builds (its source from the rust-librocksdb-sys 0.49.0 crate, never
// copied here); bench/open builds this file against it.
//
// Usage: open_harness --keys N [--rounds R] [--kinds full_bloom,partitioned_bloom] --dir DIR
//   -> one JSON object per (kind, method) on stdout.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksfilter.h"
#include "harness_util.h"

namespace {

using bench::Die;
using bench::Has;
using bench::Key;
using bench::Median;
using bench::NowNs;
using bench::SplitMix;

// Counts the reads RocksDB's table reader makes of the files it opens.
std::atomic<uint64_t> g_reads{0}, g_bytes{0};

class CountingFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  using FSRandomAccessFileOwnerWrapper::FSRandomAccessFileOwnerWrapper;
  rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& o, rocksdb::Slice* result, char* scratch,
                         rocksdb::IODebugContext* dbg) const override {
    g_reads++;
    g_bytes += n;
    return target()->Read(offset, n, o, result, scratch, dbg);
  }
  rocksdb::IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* dbg) override {
    for (size_t i = 0; i < num; ++i) {
      g_reads++;
      g_bytes += reqs[i].len;
    }
    return target()->MultiRead(reqs, num, o, dbg);
  }
};

class CountingFs : public rocksdb::FileSystemWrapper {
 public:
  explicit CountingFs(const std::shared_ptr<rocksdb::FileSystem>& t) : FileSystemWrapper(t) {}
  const char* Name() const override { return "CountingFs"; }
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* dbg) override {
    std::unique_ptr<rocksdb::FSRandomAccessFile> file;
    rocksdb::IOStatus s = target()->NewRandomAccessFile(f, o, &file, dbg);
    if (s.ok()) r->reset(new CountingFile(std::move(file)));
    return s;
  }
};

rocksdb::Options TableOptions(const std::string& kind) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  if (kind.rfind("partitioned", 0) == 0) {
    t.partition_filters = true;
    t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  }
  rocksdb::Options o;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  return o;
}

struct CallbackCtx {
  int fd;
  uint64_t calls, bytes;
};

int ReadAt(void* ctx, uint64_t offset, uint8_t* dst, size_t len) {
  CallbackCtx* c = static_cast<CallbackCtx*>(ctx);
  c->calls++;
  c->bytes += len;
  size_t done = 0;
  while (done < len) {
    ssize_t r = pread(c->fd, dst + done, len - done, static_cast<off_t>(offset + done));
    if (r <= 0) return r == 0 ? -1 : errno;
    done += static_cast<size_t>(r);
  }
  return 0;
}

rocksfilter_sst* OpenOurs(const std::string& path, int method, uint64_t* reads, uint64_t* bytes) {
  rocksfilter_sst* s = nullptr;
  char* err = nullptr;
  rocksfilter_status st;
  if (method == 2) {
    CallbackCtx c{open(path.c_str(), O_RDONLY), 0, 0};
    rocksfilter_source src{};
    src.struct_size = sizeof src;
    src.size = static_cast<uint64_t>(lseek(c.fd, 0, SEEK_END));
    src.ctx = &c;
    src.read_at = ReadAt;
    st = rocksfilter_sst_open_source(&src, 0, &s, &err);
    close(c.fd);
    *reads = c.calls;
    *bytes = c.bytes;
  } else {
    st = rocksfilter_sst_open_opts(path.c_str(), method == 3 ? ROCKSFILTER_SST_MMAP : 0, &s, &err);
    rocksfilter_sst_open_stats stats{};
    stats.struct_size = sizeof stats;
    if (st == ROCKSFILTER_OK) rocksfilter_sst_get_open_stats(s, &stats, nullptr);
    *reads = stats.reads;
    *bytes = stats.bytes_read;
  }
  if (st != ROCKSFILTER_OK) {
    fprintf(stderr, "open %s: %s\n", path.c_str(), err);
    exit(1);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 2000000, rounds = 21, qn = 200000;
  std::string kinds = "full_bloom,partitioned_bloom", dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); }
      return argv[++i];
    };
    if (a == "--keys") n = strtoull(next(), nullptr, 10);
    else if (a == "--rounds") rounds = strtoull(next(), nullptr, 10);
    else if (a == "--kinds") kinds = next();
    else if (a == "--dir") dir = next();
    else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (n == 0 || rounds == 0 || dir.empty()) {
    fprintf(stderr, "--keys and --rounds must be > 0 and --dir given\n");
    return 2;
  }
  qn = std::min(qn, n);
  std::unique_ptr<rocksdb::Env> env =
      rocksdb::NewCompositeEnv(std::make_shared<CountingFs>(rocksdb::FileSystem::Default()));

  for (const std::string kind : {"full_bloom", "partitioned_bloom"}) {
    if (!Has(kinds, kind)) continue;
    rocksdb::Options opts = TableOptions(kind);
    std::string path = dir + "/" + kind + ".sst";
    {
      rocksdb::SstFileWriter w(rocksdb::EnvOptions(), opts);
      rocksdb::Status st = w.Open(path);
      if (!st.ok()) Die("SstFileWriter::Open", st);
      for (size_t i = 0; i < n; ++i) {
        st = w.Put(Key(2 * i), "value-01");
        if (!st.ok()) Die("SstFileWriter::Put", st);
      }
      st = w.Finish();
      if (!st.ok()) Die("SstFileWriter::Finish", st);
    }
    int fd = open(path.c_str(), O_RDONLY);
    const uint64_t file_bytes = static_cast<uint64_t>(lseek(fd, 0, SEEK_END));
    close(fd);
    rocksdb::Options ropts = opts;
    ropts.env = env.get();

    // Opens, the four methods taking turns.
    const char* methods[] = {"rocksdb_sstfilereader", "ours_path", "ours_callback", "ours_mmap"};
    std::vector<double> us[4];
    uint64_t reads[4] = {0}, bytes[4] = {0};
    for (size_t r = 0; r < rounds; ++r) {
      for (int k = 0; k < 4; ++k) {
        int m = (k + r) % 4;
        if (m == 0) {
          g_reads = 0;
          g_bytes = 0;
          double t0 = NowNs();
          {
            rocksdb::SstFileReader reader(ropts);
            rocksdb::Status st = reader.Open(path);
            if (!st.ok()) Die("SstFileReader::Open", st);
          }
          us[0].push_back((NowNs() - t0) / 1000);
          reads[0] = g_reads;
          bytes[0] = g_bytes;
        } else {
          double t0 = NowNs();
          rocksfilter_sst* s = OpenOurs(path, m, &reads[m], &bytes[m]);
          rocksfilter_sst_free(s);
          us[m].push_back((NowNs() - t0) / 1000);
        }
      }
    }
    for (int m = 0; m < 4; ++m) {
      printf("{\"op\":\"open\",\"kind\":\"%s\",\"keys\":%zu,\"file_bytes\":%" PRIu64
             ",\"method\":\"%s\",\"us\":%.1f,\"reads\":%" PRIu64 ",\"bytes_read\":%" PRIu64 "}\n",
             kind.c_str(), n, file_bytes, methods[m], Median(us[m]), reads[m], bytes[m]);
    }

    // Queries after open: owned (default) against mapped.
    uint64_t r0, b0;
    rocksfilter_sst* owned = OpenOurs(path, 1, &r0, &b0);
    rocksfilter_sst* mapped = OpenOurs(path, 3, &r0, &b0);
    std::vector<std::string> q(2 * qn);
    uint64_t seed = 7;
    for (size_t i = 0; i < qn; ++i) {
      uint64_t k = SplitMix(&seed) % n;
      q[2 * i] = Key(2 * k);
      q[2 * i + 1] = Key(2 * k + 1);
    }
    bench::KeyViews views(q);
    const std::vector<const uint8_t*>& ptrs = views.ptrs;
    const std::vector<size_t>& lens = views.lens;
    const size_t batch = 1024, chunk = 16384;
    std::unique_ptr<bool[]> res(new bool[batch]);
    const char* qmethods[] = {"owned_single", "mapped_single", "owned_batch", "mapped_batch"};
    std::vector<double> ns[4];
    size_t hits[4] = {0};
    bench::TakeTurns(q.size(), chunk, 3, [&](int m, size_t c0, size_t c1) {
      return bench::OursQuery(m % 2 == 0 ? owned : mapped, ptrs, lens, c0, c1, m < 2, batch, res.get());
    }, ns, hits);
    if (hits[0] != hits[1] || hits[2] != hits[3] || hits[0] != hits[2]) {
      fprintf(stderr, "%s: owned and mapped answers differ (%zu %zu %zu %zu)\n", kind.c_str(), hits[0], hits[1], hits[2],
              hits[3]);
      return 1;
    }
    for (int m = 0; m < 4; ++m) {
      printf("{\"op\":\"query\",\"kind\":\"%s\",\"keys\":%zu,\"method\":\"%s\",\"ns_per_key\":%.2f,\"may_match\":%zu}\n",
             kind.c_str(), n, qmethods[m], Median(ns[m]), hits[m]);
    }
    rocksfilter_sst_free(owned);
    rocksfilter_sst_free(mapped);
    std::remove(path.c_str());
  }
  return 0;
}
