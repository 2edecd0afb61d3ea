// Read-ahead of the device behind a file system (read_ahead_kb in sysfs), changed by readahead
// steps and always put back: at run end, at lease expiry, and, from a record kept on disk
// before each change, when the agent starts again after a crash.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace iofleet::agent {

// The read_ahead_kb file for the device backing the file system `fd` is on: the disk's queue
// (a partition's parent), or the backing device info of a network file system, below `sysfs`.
Result<std::string> ReadaheadFileFor(int fd, const std::string& sysfs = "/sys");

class ReadaheadKeeper {
 public:
  // `owner` (the agent's name) names the record, so agents sharing a host and state_dir keep
  // separate records.
  explicit ReadaheadKeeper(std::string state_dir, const std::string& owner = "");

  // Puts back what an earlier agent process changed and did not restore (it crashed). One line
  // per value restored, for the agent's log.
  std::vector<std::string> RestoreFromRecord();
  // Sets `kib`, recording the original first (once per file until RestoreAll). Returns the
  // value it replaced.
  Result<uint32_t> Set(const std::string& file, uint32_t kib);
  // Restores every original and removes the record.
  void RestoreAll();

 private:
  Status SaveRecordLocked();

  const std::string state_dir_;
  const std::string record_path_;
  std::mutex mu_;
  std::map<std::string, std::string> originals_;  // file -> its value before this run
};

}  // namespace iofleet::agent
