// Where the tests find the build and the source tree, worked out at run time: the test binaries
// live in the build's bin/ beside iofleet and iofleet-agent, and the build's CMakeCache.txt names
// the source directory. These were compile definitions holding absolute paths, which made every
// test file's compile command differ from one checkout to the next, so ccache missed them all in
// a fresh clone (CI's): now the commands are the same wherever the clone is.
#pragma once

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace iofleet::testing::paths {

// The directory of the running test binary (build/bin).
inline const std::string& BinDir() {
  static const std::string dir = [] {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) std::abort();  // no way to find the build: nothing a test could do right
    std::string exe(buf, static_cast<size_t>(n));
    return exe.substr(0, exe.rfind('/'));
  }();
  return dir;
}

inline const std::string& BuildDir() {
  static const std::string dir = BinDir().substr(0, BinDir().rfind('/'));
  return dir;
}

// From the build's CMakeCache.txt (CMAKE_HOME_DIRECTORY).
inline const std::string& SourceDir() {
  static const std::string dir = [] {
    std::ifstream cache(BuildDir() + "/CMakeCache.txt");
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(cache, line);) {
      if (line.rfind(key, 0) == 0) return line.substr(key.size());
    }
    std::abort();  // a build without its cache: the tests cannot find their fixtures
  }();
  return dir;
}

// Tests write real files on the build tree's file system (not tmpfs).
inline const std::string& TestTmp() {
  static const std::string dir = BuildDir() + "/test-tmp";
  return dir;
}

}  // namespace iofleet::testing::paths

#define IOFLEET_TEST_TMP (::iofleet::testing::paths::TestTmp().c_str())
#define IOFLEET_BIN_DIR (::iofleet::testing::paths::BinDir().c_str())
#define IOFLEET_SOURCE_DIR (::iofleet::testing::paths::SourceDir().c_str())
