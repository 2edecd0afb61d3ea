// Page-cache residency on a real file on the build tree's file system (not tmpfs, whose pages
// cannot be dropped): written and synced it is resident, dropped with POSIX_FADV_DONTNEED it is not.
#include "agent/host/page_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

constexpr size_t kFileBytes = 8 << 20;

class PageCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fd_ = open((tmp_ / "data").c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ASSERT_GE(fd_, 0);
    std::vector<char> block(1 << 20, 'x');
    for (size_t at = 0; at < kFileBytes; at += block.size()) {
      ASSERT_EQ(pwrite(fd_, block.data(), block.size(), static_cast<off_t>(at)), static_cast<ssize_t>(block.size()));
    }
    ASSERT_EQ(fsync(fd_), 0);  // clean pages: DONTNEED drops them
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
  }
  void Drop() { ASSERT_EQ(posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED), 0); }
  FileRange Whole() const { return {fd_, 0, kFileBytes}; }

  testing::TempDir tmp_;
  int fd_ = -1;
};

TEST_F(PageCacheTest, WrittenFileIsResidentAndDroppedFileIsNot) {
  auto before = MeasureResidency(Whole());
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(before->pages, kFileBytes / static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_GT(before->fraction(), 0.9);
  Drop();
  auto after = MeasureResidency(Whole());
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->pages, before->pages);
  EXPECT_LT(after->fraction(), 0.1);
}

TEST_F(PageCacheTest, MincoreFallbackAgrees) {
  auto before = MeasureResidencyByMincore(Whole());
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_GT(before->fraction(), 0.9);
  Drop();
  auto after = MeasureResidencyByMincore(Whole());
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(after->fraction(), 0.1);
}

TEST_F(PageCacheTest, PartlyReadBackFileIsPartlyResident) {
  Drop();
  // No read-ahead (this disk's may be larger than the file): only what is read comes in.
  ASSERT_EQ(posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM), 0);
  std::vector<char> buffer(kFileBytes / 4);
  ASSERT_EQ(pread(fd_, buffer.data(), buffer.size(), 0), static_cast<ssize_t>(buffer.size()));
  auto some = MeasureResidency(Whole());
  ASSERT_TRUE(some.ok());
  EXPECT_GT(some->fraction(), 0.24);
  EXPECT_LT(some->fraction(), 0.3);
  // The range measured alone: the quarter read is all there.
  auto quarter = MeasureResidency(FileRange{fd_, 0, kFileBytes / 4});
  ASSERT_TRUE(quarter.ok());
  EXPECT_GT(quarter->fraction(), 0.99);
}

TEST_F(PageCacheTest, RangeIsClippedToTheFile) {
  auto past = MeasureResidency(FileRange{fd_, kFileBytes - 4096, 1 << 30});
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(past->pages, 4096 / static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  auto beyond = MeasureResidency(FileRange{fd_, kFileBytes * 2, 4096});
  ASSERT_TRUE(beyond.ok());
  EXPECT_EQ(beyond->pages, 0u);
}

TEST_F(PageCacheTest, SeveralRangesAddUpAndAnUnmeasurableOneGivesNothing) {
  FileRange halves[] = {{fd_, 0, kFileBytes / 2}, {fd_, kFileBytes / 2, kFileBytes / 2}};
  auto both = MeasureResidency(std::span<const FileRange>(halves));
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->pages, kFileBytes / static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  FileRange bad[] = {{fd_, 0, kFileBytes}, {-1, 0, 4096}};
  EXPECT_FALSE(MeasureResidency(std::span<const FileRange>(bad)).has_value());
  EXPECT_FALSE(MeasureResidency(std::span<const FileRange>()).has_value());
}

TEST(SequenceRangeTest, ContiguousAndStridedJobs) {
  SequenceSpec contiguous;
  contiguous.base = 1 << 20;
  contiguous.slots = 16;
  contiguous.slot_size = 4096;
  FileRange r = SequenceRange(3, contiguous);
  EXPECT_EQ(r.offset, 1u << 20);
  EXPECT_EQ(r.length, 16u * 4096);
  SequenceSpec strided;
  strided.slots = 4;
  strided.slot_size = 4096;
  strided.stride = 3;
  strided.first = 2;  // file slots 2, 5, 8, 11
  r = SequenceRange(3, strided);
  EXPECT_EQ(r.offset, 2u * 4096);
  EXPECT_EQ(r.length, 10u * 4096);
}

}  // namespace
}  // namespace iofleet::agent
