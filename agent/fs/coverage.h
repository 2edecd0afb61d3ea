// Which byte ranges of each file this run has written, so a read step can first fill exactly
// what it would otherwise read as holes. Ranges merge as they are added.
//
// Thread-safety: none; used by one step at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace iofleet::agent {

class FileCoverage {
 public:
  void Add(const std::string& file, uint64_t begin, uint64_t end);
  // The file is gone (unlinked): nothing of it is written any more.
  void Forget(const std::string& file) { files_.erase(file); }
  // The parts of [begin, end) of `file` not yet written, in order.
  std::vector<std::pair<uint64_t, uint64_t>> Holes(const std::string& file, uint64_t begin, uint64_t end) const;

 private:
  std::map<std::string, std::map<uint64_t, uint64_t>> files_;  // begin -> end, disjoint
};

}  // namespace iofleet::agent
