#include "agent/host/readahead.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

// A regular file stands in for /sys/block/<dev>/queue/read_ahead_kb.
class ReadaheadKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sysfs_ = (tmp_ / "read_ahead_kb").string();
    std::ofstream(sysfs_) << "128\n";
    state_dir_ = (tmp_ / "state").string();  // made by the keeper on the first Set
  }
  std::string record() const { return state_dir_ + "/readahead.record"; }

  testing::TempDir tmp_;
  std::string sysfs_;
  std::string state_dir_;
};

TEST_F(ReadaheadKeeperTest, SetRecordsTheOriginalBeforeChangingIt) {
  ReadaheadKeeper keeper(state_dir_);
  auto previous = keeper.Set(sysfs_, 4096);
  ASSERT_TRUE(previous.ok()) << previous.status().message();
  EXPECT_EQ(*previous, 128u);
  EXPECT_EQ(testing::ReadAll(sysfs_), "4096");
  ASSERT_TRUE(fs::exists(record()));
  EXPECT_EQ(testing::ReadAll(record()), "128\t" + sysfs_ + "\n");
  EXPECT_EQ(fs::status(state_dir_).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST_F(ReadaheadKeeperTest, SecondSetKeepsTheFirstOriginal) {
  ReadaheadKeeper keeper(state_dir_);
  ASSERT_TRUE(keeper.Set(sysfs_, 4096).ok());
  auto previous = keeper.Set(sysfs_, 256);
  ASSERT_TRUE(previous.ok()) << previous.status().message();
  EXPECT_EQ(*previous, 4096u);  // what it replaced this time
  EXPECT_EQ(testing::ReadAll(sysfs_), "256");
  EXPECT_EQ(testing::ReadAll(record()), "128\t" + sysfs_ + "\n");  // still the value before the run
  keeper.RestoreAll();
  EXPECT_EQ(testing::ReadAll(sysfs_), "128");
}

TEST_F(ReadaheadKeeperTest, RestoreAllPutsBackAndRemovesTheRecord) {
  std::string other = (tmp_ / "other_read_ahead_kb").string();
  std::ofstream(other) << "512\n";
  ReadaheadKeeper keeper(state_dir_);
  ASSERT_TRUE(keeper.Set(sysfs_, 8).ok());
  ASSERT_TRUE(keeper.Set(other, 16384).ok());
  std::string text = testing::ReadAll(record());
  EXPECT_NE(text.find("128\t" + sysfs_ + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("512\t" + other + "\n"), std::string::npos) << text;
  keeper.RestoreAll();
  EXPECT_EQ(testing::ReadAll(sysfs_), "128");
  EXPECT_EQ(testing::ReadAll(other), "512");
  EXPECT_FALSE(fs::exists(record()));
  // Nothing left to restore: a second call changes nothing.
  std::ofstream(sysfs_) << "64";
  keeper.RestoreAll();
  EXPECT_EQ(testing::ReadAll(sysfs_), "64");
  // After RestoreAll the next Set records afresh.
  auto previous = keeper.Set(sysfs_, 1024);
  ASSERT_TRUE(previous.ok());
  EXPECT_EQ(*previous, 64u);
  EXPECT_EQ(testing::ReadAll(record()), "64\t" + sysfs_ + "\n");
}

TEST_F(ReadaheadKeeperTest, RestoreFromRecordAfterACrash) {
  {
    ReadaheadKeeper crashed(state_dir_);
    ASSERT_TRUE(crashed.Set(sysfs_, 4096).ok());
    // The process dies here: no RestoreAll.
  }
  EXPECT_EQ(testing::ReadAll(sysfs_), "4096");
  ASSERT_TRUE(fs::exists(record()));

  ReadaheadKeeper restarted(state_dir_);
  std::vector<std::string> notes = restarted.RestoreFromRecord();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("restored read-ahead 128 KiB to " + sysfs_), std::string::npos) << notes[0];
  EXPECT_EQ(testing::ReadAll(sysfs_), "128");
  EXPECT_FALSE(fs::exists(record()));
  // Nothing more to do on the next start.
  EXPECT_TRUE(restarted.RestoreFromRecord().empty());
}

TEST_F(ReadaheadKeeperTest, RestoreFromRecordWithoutRecordDoesNothing) {
  ReadaheadKeeper keeper(state_dir_);
  EXPECT_TRUE(keeper.RestoreFromRecord().empty());
  EXPECT_EQ(testing::ReadAll(sysfs_), "128\n");
}

TEST_F(ReadaheadKeeperTest, RestoreFromRecordKeepsTheRecordWhenAWriteFails) {
  std::string gone = (tmp_ / "gone_read_ahead_kb").string();
  fs::create_directories(state_dir_);
  std::ofstream(record()) << "256\t" << gone << "\n" << "128\t" << sysfs_ << "\n";
  std::ofstream(sysfs_) << "4096";
  ReadaheadKeeper keeper(state_dir_);
  std::vector<std::string> notes = keeper.RestoreFromRecord();
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("could not restore"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("restored read-ahead 128 KiB"), std::string::npos) << notes[1];
  EXPECT_EQ(testing::ReadAll(sysfs_), "128");
  EXPECT_TRUE(fs::exists(record()));  // kept for the next start
}

TEST_F(ReadaheadKeeperTest, SetOnAMissingFileFailsAndRecordsNothing) {
  ReadaheadKeeper keeper(state_dir_);
  std::string missing = (tmp_ / "no_such_read_ahead_kb").string();
  auto previous = keeper.Set(missing, 4096);
  ASSERT_FALSE(previous.ok());
  EXPECT_NE(previous.status().message().find(missing), std::string::npos) << previous.status().message();
  EXPECT_FALSE(fs::exists(record()));
  EXPECT_FALSE(fs::exists(missing));
  keeper.RestoreAll();  // nothing to restore, nothing created
  EXPECT_FALSE(fs::exists(missing));
}

TEST_F(ReadaheadKeeperTest, SetFailsWithoutChangingWhenTheRecordCannotBeWritten) {
  std::ofstream(tmp_ / "not-a-dir") << "x";
  ReadaheadKeeper keeper((tmp_ / "not-a-dir").string());  // state_dir is a file
  auto previous = keeper.Set(sysfs_, 4096);
  ASSERT_FALSE(previous.ok());
  EXPECT_NE(previous.status().message().find("cannot record the original read-ahead"), std::string::npos)
      << previous.status().message();
  EXPECT_EQ(testing::ReadAll(sysfs_), "128\n");
}

TEST(ReadaheadFileFor, TmpfsHasNoDevice) {
  if (!fs::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  std::string tmpl = "/dev/shm/iofleet-readahead-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) GTEST_SKIP() << "cannot create a file in /dev/shm";
  auto file = ReadaheadFileFor(fd);
  close(fd);
  unlink(tmpl.c_str());
  ASSERT_FALSE(file.ok()) << *file;
  EXPECT_EQ(file.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(file.status().message().find("no block device or backing device"), std::string::npos)
      << file.status().message();
}

TEST(ReadaheadFileFor, BadDescriptorFails) {
  auto file = ReadaheadFileFor(-1);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("fstat"), std::string::npos) << file.status().message();
}

}  // namespace
}  // namespace iofleet::agent

namespace iofleet::agent {
namespace {

TEST_F(ReadaheadKeeperTest, AFailedRestoreKeepsTheOriginalForTheNextChange) {
  const std::string gone = (tmp_ / "missing-dir" / "read_ahead_kb").string();
  fs::create_directories(state_dir_);
  std::ofstream(record()) << "512\t" << gone << "\n" << "77\t/etc/passwd\n";
  ReadaheadKeeper keeper(state_dir_);
  std::vector<std::string> notes = keeper.RestoreFromRecord();
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("could not restore"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("not a read-ahead record"), std::string::npos) << notes[1];  // never written
  // The unrestored original stays on record, for the next start or the next restore.
  EXPECT_EQ(testing::ReadAll(record()), "512\t" + gone + "\n");
}

TEST_F(ReadaheadKeeperTest, AgentsSharingAStateDirKeepSeparateRecords) {
  ReadaheadKeeper a(state_dir_, "node1"), b(state_dir_, "node2");
  ASSERT_TRUE(a.Set(sysfs_, 256).ok());
  EXPECT_TRUE(fs::exists(state_dir_ + "/readahead-node1.record"));
  EXPECT_FALSE(fs::exists(state_dir_ + "/readahead-node2.record"));
  a.RestoreAll();
  EXPECT_EQ(testing::ReadAll(sysfs_), "128");
}

}  // namespace
}  // namespace iofleet::agent
