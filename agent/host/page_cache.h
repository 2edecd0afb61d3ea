// How much of a step's data is in the page cache before the step starts.
// A flag like "likely served from page cache" must be a measurement. A size rule ("the data set
// is smaller than twice the RAM") says nothing right after a drop_caches, so the report gets the
// measured share of pages, or nothing when that could not be measured.
//
// cachestat(2) (Linux 6.5 and later) asks the kernel for a whole range in one call. On an
// older kernel the range is mapped and mincore(2) reports each page. Both count pages of the
// file's page cache whether or not this process has touched them (the agent runs as root, so
// the kernel's "owner or writer only" limits of both calls do not hide anything).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "agent/worker/io_sequence.h"
#include "core/base/status.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::agent {

struct CacheResidency {
  uint64_t resident_pages = 0;
  uint64_t pages = 0;  // measured: the range, clipped to the file's size, in pages

  double fraction() const { return pages ? static_cast<double>(resident_pages) / static_cast<double>(pages) : 0.0; }
  void Add(const CacheResidency& other) {
    resident_pages += other.resident_pages;
    pages += other.pages;
  }
};

struct FileRange {
  int fd = -1;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// The part of its file a job's sequence touches.
FileRange SequenceRange(int fd, const SequenceSpec& sequence);

// Pages of [offset, offset + length) of the open file that are in the page cache. The range is
// clipped to the file's size. cachestat(2), or mincore(2) where the kernel has no cachestat.
Result<CacheResidency> MeasureResidency(const FileRange& range);
// The same through mmap + mincore(2) only: the fallback, callable on its own for tests.
Result<CacheResidency> MeasureResidencyByMincore(const FileRange& range);

// Every range together; nothing when any one of them cannot be measured (a partial figure
// would be a guess) or when there is nothing to measure.
std::optional<CacheResidency> MeasureResidency(std::span<const FileRange> ranges);

// Into the step's result (StepResult.cache).
void ReportResidency(const CacheResidency& residency, v1::StepResult& result);

}  // namespace iofleet::agent
