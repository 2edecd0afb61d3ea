// The NFS client's counters from /proc/self/mountstats and the mount found through
// /proc/self/mountinfo. This machine's kernel has no NFS client (/proc/filesystems lists no nfs),
// so the texts are the kernel's format (fs/nfs/super.c nfs_show_stats, net/sunrpc/stats.c) as
// written by hand; the integration suite checks only that a run directory on a block device gets
// no `nfs`.
#include "agent/host/nfs_mountstats.h"

#include <gtest/gtest.h>

#include "agent/host/resource_sample.h"

namespace iofleet::agent {
namespace {

std::string Entry(const std::string& server, const std::string& mount, const std::string& fstype, const std::string& bytes,
                  const std::string& read, const std::string& write) {
  return "device " + server + " mounted on " + mount + " with fstype " + fstype + " statvers=1.1\n"
         "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys\n"
         "\tage:\t5163\n"
         "\tcaps:\tcaps=0x3ffbffff,wtmult=512,dtsize=1048576,bsize=0,namlen=255\n"
         "\tsec:\tflavor=1,pseudoflavor=1\n"
         "\tevents:\t0 9 0 0 1 4 16 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
         "\tbytes:\t" + bytes + "\n"
         "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
         "\txprt:\ttcp 0 0 1 0 2 1205 1205 0 2410 0 2 0 0\n"
         "\tper-op statistics\n"
         "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
         "\t        READ: " + read + "\n"
         "\t       WRITE: " + write + "\n"
         "\t      COMMIT: 1 1 0 164 100 0 5 5 0\n\n";
}

const std::string kMountstats =
    "device proc mounted on /proc with fstype proc\n"
    "device /dev/vda1 mounted on / with fstype ext4\n" +
    Entry("10.0.0.1:/other", "/mnt/other", "nfs", "9 9 9 9 9 9 9 9", "9 9 9 9 9 9 9 9 9", "9 9 9 9 9 9 9 9 9") +
    Entry("10.0.0.2:/export", "/mnt/nfs\\040data", "nfs4", "1048576 2097152 4096 0 524288 2097152 128 512",
          "8 10 1 1312 525440 3 40 47 0", "32 33 0 2101504 4608 2 320 325 0");

TEST(NfsMountstats, TheEntryOfTheMountWithItsBytesAndOperations) {
  const auto nfs = ParseNfsMountstats(kMountstats, "/mnt/nfs\\040data");
  ASSERT_TRUE(nfs);
  EXPECT_EQ(nfs->server, "10.0.0.2:/export");
  EXPECT_EQ(nfs->version, "4.2");
  ASSERT_TRUE(nfs->has_bytes);
  EXPECT_EQ(nfs->normal_read_bytes, 1048576u);
  EXPECT_EQ(nfs->normal_write_bytes, 2097152u);
  EXPECT_EQ(nfs->direct_read_bytes, 4096u);
  EXPECT_EQ(nfs->server_read_bytes, 524288u);
  EXPECT_EQ(nfs->server_write_bytes, 2097152u);
  ASSERT_TRUE(nfs->has_read && nfs->has_write && nfs->has_commit);
  EXPECT_EQ(nfs->read.ops, 8u);
  EXPECT_EQ(nfs->read.transmissions, 10u);
  EXPECT_EQ(nfs->read.major_timeouts, 1u);
  EXPECT_EQ(nfs->read.queue_ms, 3u);
  EXPECT_EQ(nfs->read.rtt_ms, 40u);
  EXPECT_EQ(nfs->read.execute_ms, 47u);
  EXPECT_EQ(nfs->write.ops, 32u);
  EXPECT_EQ(nfs->commit.execute_ms, 5u);
}

TEST(NfsMountstats, NoEntryForAnotherMountOrAnotherFileSystem) {
  EXPECT_FALSE(ParseNfsMountstats(kMountstats, "/mnt/nfs"));
  EXPECT_FALSE(ParseNfsMountstats(kMountstats, "/")) << "ext4 is not NFS";
  EXPECT_FALSE(ParseNfsMountstats("", "/mnt/nfs\\040data"));
  EXPECT_EQ(ParseNfsMountstats(kMountstats, "/mnt/other")->server, "10.0.0.1:/other") << "the entry ends at the next device line";
}

TEST(NfsMountstats, LinesThatDoNotParseGiveNoFigureNeverAWrongOne) {
  // An older kernel's per-op lines have 8 numbers (no errors column): still read. A short or
  // non-numeric line gives no figure.
  auto nfs = ParseNfsMountstats(Entry("s:/e", "/m", "nfs", "1 2 3 4 5 6", "8 8 0 1 2 3 4 5", "32 x 0 1 2 3 4 5 0"), "/m");
  ASSERT_TRUE(nfs);
  EXPECT_TRUE(nfs->has_bytes);  // the page counts at the end are not needed
  EXPECT_TRUE(nfs->has_read);
  EXPECT_EQ(nfs->read.execute_ms, 5u);
  EXPECT_FALSE(nfs->has_write);
  EXPECT_EQ(nfs->write.ops, 0u);
  nfs = ParseNfsMountstats(Entry("s:/e", "/m", "nfs", "1 2 3", "8 8", "-1 0 0 0 0 0 0 0"), "/m");
  ASSERT_TRUE(nfs);
  EXPECT_FALSE(nfs->has_bytes);
  EXPECT_EQ(nfs->normal_read_bytes, 0u);
  EXPECT_FALSE(nfs->has_read);
  EXPECT_FALSE(nfs->has_write);
}

TEST(NfsMountstats, TheMountPointOfTheDirectorysNfsMount) {
  const std::string mountinfo =
      "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
      "40 22 0:45 / /mnt/nfs\\040data rw,relatime shared:20 - nfs4 10.0.0.2:/export rw,vers=4.2\n"
      "41 40 0:45 /sub /mnt/nfs\\040data/inner rw,relatime shared:20 - nfs4 10.0.0.2:/export/sub rw,vers=4.2\n"
      "42 22 0:46 / /mnt/nfsish rw,relatime - tmpfs tmpfs rw\n"
      "43 22 0:47 / /mnt/tagged rw master:3 shared:9 - nfs 10.0.0.3:/x rw,vers=3\n";
  EXPECT_EQ(NfsMountPoint(mountinfo, 0, 45, "/mnt/nfs data/run-1"), "/mnt/nfs\\040data");
  EXPECT_EQ(NfsMountPoint(mountinfo, 0, 45, "/mnt/nfs data/inner/run-1"), "/mnt/nfs\\040data/inner") << "the longest mount holding it";
  EXPECT_EQ(NfsMountPoint(mountinfo, 0, 45, "/mnt/nfs database/run-1"), "") << "a mount point is a whole path component";
  EXPECT_EQ(NfsMountPoint(mountinfo, 0, 46, "/mnt/nfsish/run"), "") << "tmpfs";
  EXPECT_EQ(NfsMountPoint(mountinfo, 0, 47, "/mnt/tagged/run"), "/mnt/tagged") << "optional fields before the separator";
  EXPECT_EQ(NfsMountPoint(mountinfo, 254, 1, "/root/run"), "") << "ext4 on a block device";
}

// The window's figures are the differences of two readings; a remount (a counter going back)
// gives none.
TEST(NfsMountstats, TheWindowsFiguresAreTheDifferences) {
  ResourceTargets targets;
  ResourceReading start, end;
  start.read = end.read = true;
  start.at_ns = 1'000'000'000;
  end.at_ns = 3'000'000'000;
  start.nfs = ParseNfsMountstats(Entry("s:/e", "/m", "nfs", "100 200 0 0 50 200 0 0", "10 10 0 0 0 1 20 22 0", "5 5 0 0 0 0 10 11 0"), "/m");
  end.nfs = ParseNfsMountstats(Entry("s:/e", "/m", "nfs", "1100 200 0 0 1050 200 0 0", "20 21 1 0 0 3 40 46 0", "5 5 0 0 0 0 10 11 0"), "/m");
  v1::ResourceStats out;
  ResourceDelta(targets, start, end, out);
  ASSERT_TRUE(out.has_nfs());
  EXPECT_EQ(out.nfs().server(), "s:/e");
  EXPECT_EQ(out.nfs().version(), "4.2");
  EXPECT_EQ(out.nfs().normal_read_bytes(), 1000u);
  EXPECT_EQ(out.nfs().server_read_bytes(), 1000u);
  EXPECT_EQ(out.nfs().read().ops(), 10u);
  EXPECT_EQ(out.nfs().read().transmissions(), 11u);
  EXPECT_EQ(out.nfs().read().major_timeouts(), 1u);
  EXPECT_EQ(out.nfs().read().queue_ms(), 2u);
  EXPECT_EQ(out.nfs().read().rtt_ms(), 20u);
  EXPECT_EQ(out.nfs().read().execute_ms(), 24u);
  EXPECT_EQ(out.nfs().write().ops(), 0u);

  end.nfs = ParseNfsMountstats(Entry("s:/e", "/m", "nfs", "10 200 0 0 5 200 0 0", "1 1 0 0 0 0 1 1 0", "5 5 0 0 0 0 10 11 0"), "/m");
  v1::ResourceStats remounted;
  ResourceDelta(targets, start, end, remounted);
  EXPECT_FALSE(remounted.has_nfs());
  end.nfs.reset();
  v1::ResourceStats unmounted;
  ResourceDelta(targets, start, end, unmounted);
  EXPECT_FALSE(unmounted.has_nfs());
}

}  // namespace
}  // namespace iofleet::agent
