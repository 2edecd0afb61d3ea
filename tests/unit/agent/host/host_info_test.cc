// Where a run's files live: this machine's own facts, and the parsing of mountinfo and sysfs on
// made-up trees (partitions, bind mounts, anonymous devices).
#include "agent/host/host_info.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

TEST(HostInfoTest, ThisMachinesRootFileSystem) {
  v1::HostInfo info = GatherHostInfo("/");
  EXPECT_FALSE(info.kernel().empty());
  EXPECT_FALSE(info.hostname().empty());
  EXPECT_GE(info.cpus(), 1u);
  EXPECT_GT(info.memory_bytes(), 0u);
  EXPECT_EQ(info.mount_point(), "/");
  EXPECT_FALSE(info.fs_type().empty());
  EXPECT_NE(info.mount_options().find("r"), std::string::npos);  // rw or ro at least
}

TEST(HostInfoTest, BuildTreeIsOnARealFileSystemWithItsDevicesQueue) {
  testing::TempDir tmp;
  v1::HostInfo info = GatherHostInfo(tmp.path().string());
  ASSERT_FALSE(info.fs_type().empty());
  EXPECT_NE(info.fs_type(), "tmpfs");
  struct stat st;
  ASSERT_EQ(stat(tmp.path().c_str(), &st), 0);
  // A file system on a block device names its queue's scheduler and read-ahead (this sandbox's
  // disk has both); one without a device (major 0) has neither.
  if (major(st.st_dev) != 0 && fs::exists("/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                                          std::to_string(minor(st.st_dev)))) {
    EXPECT_FALSE(info.block_device().empty());
    EXPECT_FALSE(info.scheduler().empty());
    EXPECT_TRUE(info.has_read_ahead_kb());
  }
}

TEST(HostInfoTest, TmpfsHasNoBlockQueue) {
  v1::HostInfo info = GatherHostInfo("/dev/shm");
  if (info.fs_type() != "tmpfs") GTEST_SKIP() << "/dev/shm is " << info.fs_type();
  EXPECT_TRUE(info.block_device().empty());
  EXPECT_TRUE(info.scheduler().empty());
  EXPECT_FALSE(info.has_read_ahead_kb());
}

constexpr char kMountinfo[] =
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
    "40 27 8:1 / /data rw,noatime shared:5 - xfs /dev/sda1 rw,attr2,inode64\n"
    "41 27 8:1 /sub /mnt/bind rw,noatime - xfs /dev/sda1 rw,attr2\n"
    "42 40 0:45 / /data/scratch rw - tmpfs tmp\\040fs rw,size=1024k\n"
    "43 27 0:50 / /vol rw - btrfs /dev/sdb rw,ssd\n";

TEST(FindMountTest, LongestMountPointOnTheSameDevice) {
  auto m = FindMount(kMountinfo, makedev(8, 1), "/data/run/x");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mount_point, "/data");
  EXPECT_EQ(m->fs_type, "xfs");
  EXPECT_EQ(m->source, "/dev/sda1");
  EXPECT_EQ(m->options, "rw,noatime,attr2,inode64");
  EXPECT_EQ(m->major, 8u);
  EXPECT_EQ(m->minor, 1u);
  // "/database" is not below "/data".
  m = FindMount(kMountinfo, makedev(254, 0), "/database");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mount_point, "/");
}

TEST(FindMountTest, EscapedNamesAndNestedMounts) {
  auto m = FindMount(kMountinfo, makedev(0, 45), "/data/scratch/f");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->fs_type, "tmpfs");
  EXPECT_EQ(m->source, "tmp fs");
  EXPECT_EQ(m->options, "rw,size=1024k");
}

TEST(FindMountTest, DeviceNotListedFallsBackToTheLongestPrefix) {
  // btrfs: a subvolume's st_dev is not the one in mountinfo.
  auto m = FindMount(kMountinfo, makedev(0, 99), "/vol/sub/run");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mount_point, "/vol");
  EXPECT_EQ(m->fs_type, "btrfs");
}

TEST(FindMountTest, MalformedLinesAreSkipped) {
  EXPECT_FALSE(FindMount("garbage\n1 2 3\n", makedev(8, 1), "/x"));
  auto m = FindMount("junk line here\n27 1 254:0 / / rw - ext4 /dev/vda rw\n", makedev(254, 0), "/x");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->fs_type, "ext4");
}

TEST(SchedulerTest, TheBracketedOne) {
  EXPECT_EQ(ActiveScheduler("none [mq-deadline] kyber bfq"), "mq-deadline");
  EXPECT_EQ(ActiveScheduler("[none] mq-deadline"), "none");
  EXPECT_EQ(ActiveScheduler("none"), "none");
  EXPECT_EQ(ActiveScheduler(""), "");
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

TEST(BlockQueueTest, APartitionUsesItsDisksQueue) {
  testing::TempDir tmp;
  fs::path sys = tmp.path() / "sys";
  Write(sys / "devices/pci/block/sda/queue/scheduler", "none [bfq]");
  Write(sys / "devices/pci/block/sda/queue/read_ahead_kb", "4096");
  Write(sys / "devices/pci/block/sda/sda1/partition", "1");
  fs::create_directories(sys / "dev/block");
  fs::create_symlink("../../devices/pci/block/sda/sda1", sys / "dev/block/8:1");
  fs::create_symlink("../../devices/pci/block/sda", sys / "dev/block/8:0");
  for (unsigned minor : {0u, 1u}) {
    auto q = FindBlockQueue(8, minor, sys.string());
    ASSERT_TRUE(q) << minor;
    EXPECT_EQ(q->disk, "sda");
    EXPECT_EQ(q->scheduler, "bfq");
    ASSERT_TRUE(q->read_ahead_kb);
    EXPECT_EQ(*q->read_ahead_kb, 4096u);
  }
  EXPECT_FALSE(FindBlockQueue(8, 2, sys.string()));  // no such device
  EXPECT_FALSE(FindBlockQueue(0, 45, sys.string()));  // anonymous: tmpfs, overlay, nfs
}

// O_DIRECT on tmpfs reported RAM speed without a word.
TEST(MemoryBackedTest, MemoryFileSystemsAndRamDevices) {
  EXPECT_EQ(MemoryBacked({0, 45, "/mnt/t", "tmpfs", "rw", "tmpfs"}, ""), "tmpfs");
  EXPECT_EQ(MemoryBacked({0, 46, "/mnt/r", "ramfs", "rw", "none"}, ""), "ramfs");
  EXPECT_EQ(MemoryBacked({252, 0, "/mnt/z", "ext4", "rw", "/dev/zram0"}, "zram0"), "zram0 (compressed RAM)");
  EXPECT_EQ(MemoryBacked({1, 0, "/mnt/b", "xfs", "rw", "/dev/ram0"}, "ram0"), "ram0 (brd RAM disk)");
  EXPECT_EQ(MemoryBacked({254, 0, "/", "ext4", "rw", "/dev/vda"}, "vda"), "");
  EXPECT_EQ(MemoryBacked({8, 0, "/", "ext4", "rw", "/dev/ramblock"}, "ramblock"), "") << "not a brd name";
  if (GatherHostInfo("/dev/shm").fs_type() == "tmpfs") EXPECT_EQ(GatherHostInfo("/dev/shm").memory_backed(), "tmpfs");
  testing::TempDir build_tree;
  EXPECT_EQ(GatherHostInfo(build_tree.path().string()).memory_backed(), "") << "the build tree is on a disk";
}

TEST(MemoryBackedTest, ALoopDeviceOrOverlayOverTmpfs) {
  if (GatherHostInfo("/dev/shm").fs_type() != "tmpfs") GTEST_SKIP() << "/dev/shm is not tmpfs here";
  testing::TempDir in_ram(fs::path("/dev/shm"));
  testing::TempDir on_disk;
  std::ofstream(in_ram / "image") << "x";
  std::ofstream(on_disk / "image") << "x";
  const fs::path sys = on_disk / "sys";
  fs::create_directories(sys / "block/loop7/loop");
  fs::create_directories(sys / "block/loop8/loop");
  std::ofstream(sys / "block/loop7/loop/backing_file") << (in_ram / "image").string() << "\n";
  std::ofstream(sys / "block/loop8/loop/backing_file") << (on_disk / "image").string() << "\n";
  const MountEntry ext4{7, 7, "/mnt/l", "ext4", "rw", "/dev/loop7"};
  EXPECT_EQ(MemoryBacked(ext4, "loop7", sys.string()), "loop7 over tmpfs (" + (in_ram / "image").string() + ")");
  EXPECT_EQ(MemoryBacked(ext4, "loop8", sys.string()), "");
  EXPECT_EQ(MemoryBacked(ext4, "loop9", sys.string()), "") << "no such loop device";
  const MountEntry overlay{0, 50, "/merged", "overlay", "rw,lowerdir=/l,upperdir=" + (in_ram / "up").string() + ",workdir=/w", "overlay"};
  fs::create_directories(in_ram / "up");
  EXPECT_EQ(MemoryBacked(overlay, ""), "overlay over tmpfs (upperdir " + (in_ram / "up").string() + ")");
  const MountEntry disk_overlay{0, 51, "/merged", "overlay", "rw,upperdir=" + on_disk.path().string(), "overlay"};
  EXPECT_EQ(MemoryBacked(disk_overlay, ""), "");
}

}  // namespace
}  // namespace iofleet::agent
