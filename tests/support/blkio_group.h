// A cgroup v1 blkio group of its own, for tests that slow a real device down (a loop device's
// reads throttled for an agent process); removed at the end, once its processes are gone.
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "tests/support/loop_fs.h"
#include "tests/support/process.h"

namespace iofleet::testing {

class BlkioGroup {
 public:
  BlkioGroup()
      : dir_(std::filesystem::path("/sys/fs/cgroup/blkio") / ("iofleet-test-" + std::to_string(getpid()))) {
    std::error_code ec;
    made_ = std::filesystem::create_directory(dir_, ec) && std::filesystem::exists(dir_ / "blkio.throttle.read_bps_device");
  }
  ~BlkioGroup() {
    if (made_) rmdir(dir_.c_str());
  }
  BlkioGroup(const BlkioGroup&) = delete;
  BlkioGroup& operator=(const BlkioGroup&) = delete;

  bool ok() const { return made_; }
  bool Add(pid_t pid) { return Write("cgroup.procs", std::to_string(pid)); }
  bool ThrottleReads(const std::string& device, uint64_t bytes_per_sec) {
    struct stat st {};
    if (stat(device.c_str(), &st) != 0) return false;
    return Write("blkio.throttle.read_bps_device",
                 std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev)) + " " + std::to_string(bytes_per_sec));
  }

 private:
  bool Write(const std::string& file, const std::string& text) {
    std::ofstream out(dir_ / file);
    out << text << "\n";
    out.flush();
    return static_cast<bool>(out);
  }
  std::filesystem::path dir_;
  bool made_ = false;
};

// A real slow disk for an agent: a loop-mounted ext4 (at DIR/mnt) read by an agent process in
// a blkio group of its own, whose reads Throttle slows down. Members go in reverse: the agent,
// then its group, then the file system.
class ThrottledDiskAgent {
 public:
  ThrottledDiskAgent(const std::filesystem::path& dir, const std::string& size, const std::string& name)
      : loop_(dir / "disk.img", dir / "mnt", size) {
    if (!loop_.ok()) {
      skip_ = "cannot make a loop-mounted ext4 here (losetup/mount refused)";
      return;
    }
    if (!group_.ok()) {
      skip_ = "no cgroup v1 blkio controller with read throttling here";
      return;
    }
    std::filesystem::create_directories(dir / "mnt" / "data");
    agent_ = std::make_unique<AgentProcess>(dir / "mnt" / "data", name, dir);
    if (!group_.Add(agent_->process().pid())) skip_ = "the blkio group refused the agent's process";
  }
  // Why the kernel refused a part of it (empty: all is set up).
  const std::string& skip() const { return skip_; }
  bool Throttle(uint64_t bytes_per_sec) { return group_.ThrottleReads(loop_.device(), bytes_per_sec); }
  AgentProcess& agent() { return *agent_; }
  void StopAgent() { agent_.reset(); }  // the group can go once its process has

 private:
  LoopFs loop_;
  BlkioGroup group_;
  std::unique_ptr<AgentProcess> agent_;
  std::string skip_;
};

}  // namespace iofleet::testing
