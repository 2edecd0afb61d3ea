#include "agent/host/page_cache.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

namespace iofleet::agent {
namespace {

// Debian 12's kernel headers (6.1) predate cachestat (6.5): its ABI, from include/uapi/linux/mman.h.
#ifdef __NR_cachestat
constexpr long kSysCachestat = __NR_cachestat;
#elif defined(__x86_64__) || defined(__aarch64__)
constexpr long kSysCachestat = 451;  // the same number in both tables
#else
constexpr long kSysCachestat = -1;  // unknown here: mincore
#endif

struct CachestatRange {
  uint64_t off;
  uint64_t len;
};
struct Cachestat {
  uint64_t nr_cache;
  uint64_t nr_dirty;
  uint64_t nr_writeback;
  uint64_t nr_evicted;
  uint64_t nr_recently_evicted;
};

// mincore maps this much at a time: its vector stays small (256 KiB) whatever the file's size.
constexpr uint64_t kMincoreChunkPages = 1 << 18;

uint64_t PageSize() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

// The range clipped to the file's size; its first page and page count.
struct PageSpan {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t first_page = 0;
  uint64_t pages = 0;
};

Result<PageSpan> Clip(const FileRange& range) {
  struct stat st;
  if (fstat(range.fd, &st) < 0) return PosixError("page cache: fstat", errno);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  PageSpan span;
  span.offset = std::min(range.offset, size);
  span.length = std::min(range.length, size - span.offset);
  if (span.length == 0) return span;
  const uint64_t page = PageSize();
  span.first_page = span.offset / page;
  span.pages = (span.offset + span.length - 1) / page - span.first_page + 1;
  return span;
}

Result<CacheResidency> ByMincore(int fd, const PageSpan& span) {
  CacheResidency out;
  out.pages = span.pages;
  const uint64_t page = PageSize();
  std::vector<unsigned char> vec(static_cast<size_t>(std::min(span.pages, kMincoreChunkPages)));
  for (uint64_t done = 0; done < span.pages;) {
    const uint64_t n = std::min(span.pages - done, kMincoreChunkPages);
    const off_t at = static_cast<off_t>((span.first_page + done) * page);
    void* map = mmap(nullptr, n * page, PROT_READ, MAP_SHARED, fd, at);
    if (map == MAP_FAILED) return PosixError("page cache: mmap at offset " + std::to_string(at), errno);
    const int rc = mincore(map, n * page, vec.data());
    const int err = errno;
    munmap(map, n * page);
    if (rc < 0) return PosixError("page cache: mincore at offset " + std::to_string(at), err);
    for (uint64_t i = 0; i < n; ++i) out.resident_pages += vec[i] & 1;
    done += n;
  }
  return out;
}

}  // namespace

FileRange SequenceRange(int fd, const SequenceSpec& s) {
  const ByteSpan span = JobSpan(s);
  return {fd, span.begin, span.end - span.begin};
}

Result<CacheResidency> MeasureResidencyByMincore(const FileRange& range) {
  Result<PageSpan> span = Clip(range);
  if (!span.ok()) return span.status();
  if (span->pages == 0) return CacheResidency{};
  return ByMincore(range.fd, *span);
}

Result<CacheResidency> MeasureResidency(const FileRange& range) {
  Result<PageSpan> span = Clip(range);
  if (!span.ok()) return span.status();
  if (span->pages == 0) return CacheResidency{};
  if (kSysCachestat >= 0) {
    CachestatRange request{span->offset, span->length};
    Cachestat stat{};
    if (syscall(kSysCachestat, range.fd, &request, &stat, 0) == 0) {
      return CacheResidency{std::min(stat.nr_cache, span->pages), span->pages};
    }
    // ENOSYS: an older kernel; EPERM: a kernel that limits it to writers; EOPNOTSUPP: hugetlbfs.
    if (errno != ENOSYS && errno != EPERM && errno != EOPNOTSUPP) return PosixError("page cache: cachestat", errno);
  }
  return ByMincore(range.fd, *span);
}

std::optional<CacheResidency> MeasureResidency(std::span<const FileRange> ranges) {
  CacheResidency total;
  for (const FileRange& range : ranges) {
    Result<CacheResidency> one = MeasureResidency(range);
    if (!one.ok()) return std::nullopt;
    total.Add(*one);
  }
  if (total.pages == 0) return std::nullopt;
  return total;
}

void ReportResidency(const CacheResidency& residency, v1::StepResult& result) {
  result.mutable_cache()->set_resident_pages(residency.resident_pages);
  result.mutable_cache()->set_pages(residency.pages);
}

}  // namespace iofleet::agent
