// A loop device with a fresh ext4 on it, for tests that need a real block device of their own
// (read-ahead, disk full, blkio throttling); removed at the end.
#pragma once

#include <sys/mount.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace iofleet::testing {

namespace fs = std::filesystem;

// Mounted at `mount_point`; ok() says whether the kernel allowed it.
class LoopFs {
 public:
  LoopFs(const fs::path& image, const fs::path& mount_point, const std::string& size = "128M") : mount_point_(mount_point) {
    fs::create_directories(mount_point);
    if (std::system(("truncate -s " + size + " " + Quoted(image.string())).c_str()) != 0) return;
    FILE* p = popen(("losetup -f --show " + Quoted(image.string()) + " 2>/dev/null").c_str(), "r");
    char buf[128] = {};
    if (p && fgets(buf, sizeof(buf), p)) device_ = std::string(buf).substr(0, std::string(buf).find('\n'));
    if (p) pclose(p);
    if (device_.empty()) return;
    if (std::system(("mkfs.ext4 -q -F " + device_ + " >/dev/null 2>&1").c_str()) != 0 ||
        mount(device_.c_str(), mount_point.c_str(), "ext4", 0, nullptr) != 0) {
      Detach();
      return;
    }
    mounted_ = true;
  }
  ~LoopFs() {
    if (mounted_) umount2(mount_point_.c_str(), MNT_DETACH);
    Detach();
  }
  bool ok() const { return mounted_; }
  // For the shell: a checkout may lie in a path with spaces (or quotes) in it.
  static std::string Quoted(const std::string& path) {
    std::string out = "'";
    for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  const std::string& device() const { return device_; }
  fs::path ReadaheadFile() const { return fs::path("/sys/block") / fs::path(device_).filename() / "queue/read_ahead_kb"; }

 private:
  void Detach() {
    if (!device_.empty()) (void)std::system(("losetup -d " + device_ + " 2>/dev/null").c_str());
    device_.clear();
  }
  fs::path mount_point_;
  std::string device_;
  bool mounted_ = false;
};

}  // namespace iofleet::testing
