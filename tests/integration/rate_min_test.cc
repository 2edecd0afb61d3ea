// A minimum rate (rate.min_bytes_per_sec, fio's ratemin) against a real slow device: the agent
// reads a loop device with O_DIRECT from a blkio cgroup throttled to 4 MiB/s. Asked for at
// least 16 MiB/s, the step fails within a few seconds saying which job, when and what it did,
// from YAML and from an fio job file alike; with the throttle at 64 MiB/s the same minimum holds.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "tests/support/blkio_group.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;

TEST(RateMin, AJobUnderItsMinimumFailsTheStepAndSaysWhen) {
  TempDir tmp;
  ThrottledDiskAgent disk(tmp.path(), "128M", "slowdisk");
  if (!disk.skip().empty()) GTEST_SKIP() << disk.skip();
  ASSERT_TRUE(disk.Throttle(4ull << 20));
  WriteText(tmp / "min.yaml",
            "name: rate-min\n"
            "defaults: { engine: psync, direct: true, block_size: 256KiB, file_size: 32MiB }\n"
            "steps:\n"
            "  - name: read\n"
            "    io: { op: read, runtime: 20s, rate: { min_bytes_per_sec: 16MiB } }\n");
  WriteText(tmp / "min.fio",
            "[global]\nioengine=psync\ndirect=1\nbs=256k\nsize=32m\n"
            "[read]\nrw=read\ntime_based\nruntime=20\nratemin=16m\n");
  auto run = [&](const std::string& file) {
    return RunCommand({BinPath("iofleet"), "run", (tmp / file).string(), "--agents", disk.agent().address(), "--out",
                       (tmp / "results").string(), "--progress", "none"},
                      tmp.path());
  };
  for (const char* file : {"min.yaml", "min.fio"}) {
    const auto started = std::chrono::steady_clock::now();
    CommandResult slow = run(file);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_NE(slow.code, 0) << file << ": " << slow.out << slow.err;
    const std::string said = slow.out + slow.err;
    EXPECT_NE(said.find("agent slowdisk"), std::string::npos) << said;
    EXPECT_NE(said.find("under rate.min_bytes_per_sec 16MiB/s (fio's ratemin)"), std::string::npos) << said;
    EXPECT_NE(said.find("from 0.000s to 1."), std::string::npos) << "the first cycle of the window fell short: " << said;
    const size_t at = said.find("the job did");
    if (at != std::string::npos) std::printf("%s: %.1f s: %s\n", file, seconds, said.substr(at, said.find('\n', at) - at).c_str());
    EXPECT_LT(seconds, 15.0) << file << ": the step stopped at the short cycle, not at its 20 s runtime";
  }

  ASSERT_TRUE(disk.Throttle(64ull << 20));
  WriteText(tmp / "held.yaml",
            "name: rate-min\n"
            "defaults: { engine: psync, direct: true, block_size: 256KiB, file_size: 32MiB }\n"
            "steps:\n"
            "  - name: read\n"
            "    io: { op: read, runtime: 3s, rate: { min_bytes_per_sec: 16MiB } }\n");
  CommandResult held = run("held.yaml");
  EXPECT_EQ(held.code, 0) << held.out << held.err;
  disk.StopAgent();
}

}  // namespace
}  // namespace iofleet::testing
