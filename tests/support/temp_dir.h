// A fresh directory on the build tree's file system (a real disk file system, not tmpfs), removed
// at the end of the test.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace iofleet::testing {

class TempDir {
 public:
  TempDir() {
    std::filesystem::path base = IOFLEET_TEST_TMP;
    std::filesystem::create_directories(base);
    std::string tmpl = (base / "t-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

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
