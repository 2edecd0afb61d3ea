// Writing report files: what is written arrives whole, and each way a write can fail is an error
// naming the path, never a silent success.
#include "controller/report/write_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

TEST(WriteTextFile, WritesAndReplacesTheWholeText) {
  testing::TempDir tmp;
  const std::string big(3 << 20, 'x');  // more than one write may take
  ASSERT_TRUE(WriteTextFile(tmp / "report.json", big).ok());
  EXPECT_EQ(testing::ReadAll(tmp / "report.json"), big);
  ASSERT_TRUE(WriteTextFile(tmp / "report.json", "{}\n").ok());
  EXPECT_EQ(testing::ReadAll(tmp / "report.json"), "{}\n");
}

TEST(WriteTextFile, FailsWhenThePathCannotBeCreated) {
  // The run directory is a regular file: nothing can be created under it (root or not).
  testing::TempDir tmp;
  std::ofstream(tmp / "run") << "not a directory";
  Status s = WriteTextFile(tmp / "run" / "report.json", "{}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), (tmp / "run" / "report.json").string() + ": Not a directory (ENOTDIR)");
  s = WriteTextFile(tmp / "missing" / "summary.csv", "x\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), (tmp / "missing" / "summary.csv").string() + ": No such file or directory (ENOENT)");
}

TEST(WriteTextFile, AFailedWriteLeavesNoPartialFile) {
  // A file size limit makes the write stop part way with EFBIG, as a full disk would with ENOSPC.
  testing::TempDir tmp;
  ASSERT_TRUE(WriteTextFile(tmp / "summary.csv", "old\n").ok());
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);  // else the signal ends the process
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  Status replaced = WriteTextFile(tmp / "summary.csv", std::string(10000, 'x'));
  Status created = WriteTextFile(tmp / "report.json", std::string(10000, 'x'));
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(replaced.ok());
  EXPECT_EQ(replaced.message(), (tmp / "summary.csv").string() + ": File too large (EFBIG)");
  EXPECT_EQ(testing::ReadAll(tmp / "summary.csv"), "old\n");  // left as it was
  ASSERT_FALSE(created.ok());
  EXPECT_FALSE(std::filesystem::exists(tmp / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "report.json.tmp"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "summary.csv.tmp"));
}

}  // namespace
}  // namespace iofleet::controller
