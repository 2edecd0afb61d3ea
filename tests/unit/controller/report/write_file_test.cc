// Writing report files: what is written arrives whole, and each way a write can fail is an error
// naming the path, never a silent success.
#include "controller/report/write_file.h"

#include <gtest/gtest.h>

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

TEST(WriteTextFile, FailsWhenTheDataCannotBeWritten) {
  // /dev/full opens, then refuses every write with ENOSPC, as a full file system would.
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  Status s = WriteTextFile("/dev/full", "{}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "/dev/full: No space left on device (ENOSPC)");
}

}  // namespace
}  // namespace iofleet::controller
