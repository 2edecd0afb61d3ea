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
#include <string>

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

}  // namespace iofleet::testing
