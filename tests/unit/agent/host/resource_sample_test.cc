// The kernel files' text to counters, on fixtures copied from a Debian 12 kernel (6.1), and the
// window's deltas; and, on this machine, the devices under a real directory.
#include "agent/host/resource_sample.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace iofleet::agent {
namespace {

constexpr char kDiskstats[] =
    " 253       0 vda 23405 1012 2188190 12070 871213 460027 49106744 2264536 0 655732 2307312 0 0 0 0 96283 30705\n"
    " 253       1 vda1 23290 1012 2183110 12035 871213 460027 49106744 2264536 0 655700 2276571 0 0 0 0 0 0\n"
    "   7       0 loop0 120 0 2048 35 0 0 0 0 2 40 50\n"  // a kernel before 4.18: 11 fields after the name
    "   7       1 loop1 12 0\n";                             // short: skipped

TEST(ResourceSample, DiskstatsGiveEachDevicesCounters) {
  auto disks = ParseDiskstats(kDiskstats);
  ASSERT_EQ(disks.size(), 3u);
  EXPECT_EQ(disks[0].name, "vda");
  EXPECT_EQ(disks[0].major, 253u);
  EXPECT_EQ(disks[0].reads, 23405u);
  EXPECT_EQ(disks[0].read_sectors, 2188190u);
  EXPECT_EQ(disks[0].read_ms, 12070u);
  EXPECT_EQ(disks[0].writes, 871213u);
  EXPECT_EQ(disks[0].write_sectors, 49106744u);
  EXPECT_EQ(disks[0].write_ms, 2264536u);
  EXPECT_EQ(disks[0].busy_ms, 655732u);
  EXPECT_EQ(disks[0].queue_ms, 2307312u);
  EXPECT_EQ(disks[2].name, "loop0");
  EXPECT_EQ(disks[2].busy_ms, 40u);
  EXPECT_EQ(disks[2].queue_ms, 50u);
}

TEST(ResourceSample, NetDevGivesBytesAndPacketsEachWay) {
  auto nets = ParseNetDev(
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
      "    lo: 5513742   41231    0    0    0     0          0         0  5513742   41231    0    0    0     0       0          0\n"
      "  eth0:98765432 70000 0 0 0 0 0 0 1234567 9000 0 0 0 0 0 0\n");
  ASSERT_EQ(nets.size(), 2u);
  EXPECT_EQ(nets[1].name, "eth0");
  EXPECT_EQ(nets[1].rx_bytes, 98765432u);
  EXPECT_EQ(nets[1].rx_packets, 70000u);
  EXPECT_EQ(nets[1].tx_bytes, 1234567u);
  EXPECT_EQ(nets[1].tx_packets, 9000u);
}

TEST(ResourceSample, ProcStatGivesEachCoreButNotTheTotal) {
  auto cores = ParseCoreTicks(
      "cpu  100 0 50 800 50 0 0 0 0 0\n"
      "cpu0 60 0 30 380 30 0 0 0 0 0\n"
      "cpu1 40 0 20 420 20 0 0 0 0 0\n"
      "intr 12345\n");
  ASSERT_EQ(cores.size(), 2u);
  EXPECT_EQ(cores[0].name, "cpu0");
  EXPECT_EQ(cores[0].total, 500u);
  EXPECT_EQ(cores[0].busy, 90u);  // idle and iowait are not busy
}

TEST(ResourceSample, ThrottleFilesOfBothCgroupVersions) {
  std::vector<ThrottleCounters> v1;
  ParseThrottleV1("7:0 Read 4194304\n7:0 Write 8192\n7:0 Sync 4202496\n7:0 Async 0\n7:0 Total 4202496\nTotal 4202496\n", true, v1);
  ParseThrottleV1("7:0 Read 16\n7:0 Write 2\n7:0 Total 18\nTotal 18\n", false, v1);
  ASSERT_EQ(v1.size(), 1u);
  EXPECT_EQ(v1[0].read_bytes, 4194304u);
  EXPECT_EQ(v1[0].write_bytes, 8192u);
  EXPECT_EQ(v1[0].reads, 16u);
  EXPECT_EQ(v1[0].writes, 2u);

  auto v2 = ParseIoStatV2("7:0 rbytes=4096 wbytes=512 rios=1 wios=1 dbytes=0 dios=0\n");
  ASSERT_EQ(v2.size(), 1u);
  EXPECT_EQ(v2[0].read_bytes, 4096u);
  EXPECT_EQ(v2[0].writes, 1u);

  std::vector<ThrottleLimits> limits;
  ParseThrottleLimitV1("7:0 4194304\n", &ThrottleLimits::read_bps, limits);
  ParseThrottleLimitV1("7:0 100\n", &ThrottleLimits::write_iops, limits);
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_EQ(limits[0].read_bps, 4194304u);
  EXPECT_EQ(limits[0].write_iops, 100u);
  EXPECT_FALSE(limits[0].write_bps.has_value());

  auto max = ParseIoMaxV2("7:0 rbps=4194304 wbps=max riops=max wiops=50\n");
  ASSERT_EQ(max.size(), 1u);
  EXPECT_EQ(max[0].read_bps, 4194304u);
  EXPECT_FALSE(max[0].write_bps.has_value()) << "max is no limit";
  EXPECT_EQ(max[0].write_iops, 50u);
}

TEST(ResourceSample, TheBlkioGroupOfEitherVersion) {
  EXPECT_EQ(BlkioCgroupDir("12:cpu,cpuacct:/x\n11:blkio:/iofleet-test-7\n0::/user.slice\n"),
            std::make_pair(std::string("/sys/fs/cgroup/blkio/iofleet-test-7"), false));
  EXPECT_EQ(BlkioCgroupDir("11:blkio:/\n"), std::make_pair(std::string("/sys/fs/cgroup/blkio"), false));
  EXPECT_EQ(BlkioCgroupDir("0::/system.slice/iofleet-agent.service\n"),
            std::make_pair(std::string("/sys/fs/cgroup/system.slice/iofleet-agent.service"), true));
  EXPECT_EQ(BlkioCgroupDir("garbage\n"), std::make_pair(std::string(), false));
}

TEST(ResourceSample, TheWindowsDeltasLeaveOutWhatEitherReadingLacks) {
  ResourceTargets targets;
  targets.devices.push_back({253, 0, "vda", "target", false});
  targets.devices.push_back({7, 0, "loop0", "target", std::nullopt});
  ResourceReading a, b;
  a.limits = b.limits = {ThrottleLimits{253, 0, 4194304, std::nullopt, std::nullopt, std::nullopt}};
  a.read = b.read = true;
  a.at_ns = 1'000'000'000;
  b.at_ns = 3'000'000'000;
  a.disks = {DiskCounters{253, 0, "vda", 100, 800, 10, 0, 0, 0, 500, 900}};
  b.disks = {DiskCounters{253, 0, "vda", 300, 2400, 50, 0, 0, 0, 2400, 4900},
             DiskCounters{7, 0, "loop0", 1, 1, 1, 1, 1, 1, 1, 1}};  // not in the first reading
  a.nets = {NetCounters{"lo", 0, 0, 0, 0}, NetCounters{"eth0", 1000, 10, 0, 0}, NetCounters{"eth1", 5, 5, 5, 5}};
  b.nets = {NetCounters{"lo", 99, 9, 99, 9}, NetCounters{"eth0", 3000, 12, 100, 1}, NetCounters{"eth1", 5, 5, 5, 5}};
  a.cores = {CoreTicks{"cpu0", 10, 100}, CoreTicks{"cpu1", 10, 100}};
  b.cores = {CoreTicks{"cpu0", 60, 300}, CoreTicks{"cpu1", 200, 300}};
  b.throttles = {ThrottleCounters{253, 0, 8 << 20, 0, 64, 0}};  // none at the start: nothing had passed
  v1::ResourceStats out;
  ResourceDelta(targets, a, b, out);
  EXPECT_EQ(out.window_ns(), 2'000'000'000u);
  ASSERT_EQ(out.devices_size(), 1);
  const v1::DeviceStats& d = out.devices(0);
  EXPECT_EQ(d.name(), "vda");
  EXPECT_EQ(d.reads(), 200u);
  EXPECT_EQ(d.read_bytes(), 1600u * 512);
  EXPECT_EQ(d.read_ms(), 40u);
  EXPECT_EQ(d.busy_ms(), 1900u);
  EXPECT_EQ(d.queue_ms(), 4000u);
  EXPECT_FALSE(d.rotational());
  ASSERT_EQ(out.networks_size(), 1) << "lo and an interface that did not move are left out";
  EXPECT_EQ(out.networks(0).name(), "eth0");
  EXPECT_EQ(out.networks(0).rx_bytes(), 2000u);
  EXPECT_EQ(out.max_core(), "cpu1");
  EXPECT_EQ(out.max_core_busy_permille(), 950u);
  ASSERT_EQ(out.throttles_size(), 1);
  EXPECT_EQ(out.throttles(0).read_bps_limit(), 4194304u);
  EXPECT_EQ(out.throttles(0).read_bytes(), 8u << 20);
  EXPECT_EQ(out.throttles(0).reads(), 64u);

  // A counter that went back (another device under the same number) gives no figure.
  b.disks[0].reads = 1;
  v1::ResourceStats wrapped;
  ResourceDelta(targets, a, b, wrapped);
  EXPECT_EQ(wrapped.devices_size(), 0);
  // No reading at the window's start: no figures at all.
  v1::ResourceStats none;
  ResourceDelta(targets, ResourceReading{}, b, none);
  EXPECT_EQ(none.window_ns(), 0u);
}

// A throttle lifted (or changed) within the window held none of it: its old limit beside what
// passed after it went ("4 MiB/s at most, 6777 MiB/s passed", a device verdict) is no figure.
TEST(ResourceSample, AThrottleLimitIsTheWindowsOnlyWhereItHeldThroughout) {
  ResourceTargets targets;
  targets.devices.push_back({7, 0, "loop0", "target", std::nullopt});
  ResourceReading a, b;
  a.read = b.read = true;
  a.at_ns = 1'000'000'000;
  b.at_ns = 2'000'000'000;
  a.throttles = {ThrottleCounters{7, 0, 1 << 20, 0, 4, 0}};
  b.throttles = {ThrottleCounters{7, 0, 9 << 20, 0, 36, 0}};
  const ThrottleLimits four{7, 0, 4 << 20, std::nullopt, std::nullopt, std::nullopt};
  a.limits = {four};
  b.limits = {four};
  v1::ResourceStats held;
  ResourceDelta(targets, a, b, held);
  ASSERT_EQ(held.throttles_size(), 1);
  EXPECT_EQ(held.throttles(0).read_bps_limit(), 4u << 20);
  EXPECT_EQ(held.throttles(0).read_bytes(), 8u << 20);
  b.limits.clear();  // lifted
  v1::ResourceStats lifted;
  ResourceDelta(targets, a, b, lifted);
  EXPECT_EQ(lifted.throttles_size(), 0);
  b.limits = {ThrottleLimits{7, 0, 8 << 20, std::nullopt, std::nullopt, std::nullopt}};  // raised
  v1::ResourceStats raised;
  ResourceDelta(targets, a, b, raised);
  EXPECT_EQ(raised.throttles_size(), 0);
  a.limits.clear();  // set within the window
  b.limits = {four};
  v1::ResourceStats set;
  ResourceDelta(targets, a, b, set);
  EXPECT_EQ(set.throttles_size(), 0);
}

TEST(ResourceSample, FindsTheDeviceUnderARealDirectory) {
  struct stat st {};
  ASSERT_EQ(stat("/", &st), 0);
  if (major(st.st_dev) == 0) GTEST_SKIP() << "/ is on no block device here (an overlay or tmpfs root)";
  ResourceTargets t = FindResourceTargets("/");
  ASSERT_FALSE(t.devices.empty());
  EXPECT_EQ(t.devices[0].role, "target");
  EXPECT_EQ(t.devices[0].major, major(st.st_dev));
  EXPECT_EQ(t.devices[0].minor, minor(st.st_dev));
  ResourceReading r = ReadResources(t);
  ASSERT_FALSE(r.disks.empty()) << t.devices[0].name << " is not in /proc/diskstats";
  EXPECT_EQ(r.disks[0].name, t.devices[0].name);
  EXPECT_FALSE(r.cores.empty());
  EXPECT_TRUE(FindResourceTargets("/proc").devices.empty()) << "procfs has no block device";
}

}  // namespace
}  // namespace iofleet::agent

namespace iofleet::agent {
namespace {

// /sys/class/net/X/speed of a link that is down opens but its read fails (EINVAL): libstdc++'s
// filebuf threw from the read ("basic_filebuf::underflow error reading the file"), and the step's
// Start failed on an agent whose host had such an interface with moving counters (a veth pair of
// another program). A directory opens and fails its read the same way (EISDIR).
TEST(ReadKernelText, AFileWhoseReadFailsIsEmptyNotAnException) {
  std::string text = "unset";
  EXPECT_NO_THROW(text = ReadKernelText("/proc/self"));
  EXPECT_EQ(text, "");
  EXPECT_EQ(ReadKernelText("/proc/self/no-such-file"), "");
  EXPECT_NE(ReadKernelText("/proc/self/stat").find(") "), std::string::npos);  // a readable one still reads
}

}  // namespace
}  // namespace iofleet::agent
