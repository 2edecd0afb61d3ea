// A fresh directory on the build tree's file system (a real disk file system, not tmpfs), removed
// at the end of the test.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include "tests/support/test_paths.h"

namespace iofleet::testing {

class TempDir {
 public:
  TempDir() : TempDir(IOFLEET_TEST_TMP) {}
  // Below `base` instead of the build tree's test-tmp.
  explicit TempDir(const std::filesystem::path& base) {
    std::filesystem::create_directories(base);
    std::string tmpl = (base / "t-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A directory that another user (a package's service user, a container's uid) can reach: a clone
// may sit below a folder only root can traverse (/root, a `mktemp -d` folder, mode 0700), so what
// such a process reads or writes goes below /var/tmp (a disk file system, as the build tree's, and
// not tmpfs), with the directory itself 0755. Removed at the end of the test.
inline TempDir TempDirReachableByAll() {
  TempDir dir(std::filesystem::path("/var/tmp") / "iofleet-test");
  namespace fs = std::filesystem;
  constexpr auto kTraversable = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(dir.path().parent_path(), kTraversable);
  fs::permissions(dir.path(), kTraversable);
  return dir;
}

// The whole file, byte for byte ("" when it cannot be read).
inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Every regular file and directory below `dir`, relative to it.
inline size_t CountEntries(const std::filesystem::path& dir) {
  size_t n = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir); it != std::filesystem::recursive_directory_iterator(); ++it) ++n;
  return n;
}

}  // namespace iofleet::testing
