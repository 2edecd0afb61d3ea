#include "agent/fs/coverage.h"

#include <algorithm>

namespace iofleet::agent {

void FileCoverage::Add(const std::string& file, uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  auto& ranges = files_[file];
  auto it = ranges.upper_bound(begin);
  if (it != ranges.begin() && std::prev(it)->second >= begin) --it;  // touches the one before
  while (it != ranges.end() && it->first <= end) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges.erase(it);
  }
  ranges.emplace(begin, end);
}

std::vector<std::pair<uint64_t, uint64_t>> FileCoverage::Holes(const std::string& file, uint64_t begin,
                                                               uint64_t end) const {
  std::vector<std::pair<uint64_t, uint64_t>> holes;
  auto found = files_.find(file);
  uint64_t at = begin;
  if (found != files_.end()) {
    const auto& ranges = found->second;
    auto it = ranges.upper_bound(begin);
    if (it != ranges.begin()) --it;
    for (; it != ranges.end() && it->first < end; ++it) {
      if (it->second <= at) continue;
      if (it->first > at) holes.emplace_back(at, it->first);
      at = std::max(at, it->second);
    }
  }
  if (at < end) holes.emplace_back(at, end);
  return holes;
}

}  // namespace iofleet::agent
