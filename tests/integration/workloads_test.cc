// Every shipped workload runs, scaled down with --set, on the local agent with the example agent
// config, and its report holds the figures the workload promises.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

using nlohmann::json;

json RunShipped(const TempDir& tmp, const std::string& workload, const std::vector<std::string>& sets) {
  std::vector<std::string> argv = {BinPath("iofleet"), "run", SourcePath("workloads/" + workload), "--create-local-root", "--local-root",
                                   (tmp / "data").string(), "--local-config", SourcePath("deploy/agent.example.yaml"),
                                   "--out", (tmp / "out").string()};
  for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
  CommandResult r = RunCommand(argv, tmp / "logs", std::chrono::seconds(120));
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
  return r.code == 0 ? ReadReport(tmp / "out") : json();
}

TEST(ShippedWorkloads, ZebClientSeq64k) {
  TempDir tmp;
  json report = RunShipped(tmp, "zebclient-seq64k.yaml", {"jobs=2", "file_size=4MiB", "runtime=1s", "ramp=200ms"});
  ASSERT_EQ(report["steps"].size(), 3u);
  EXPECT_EQ(report["steps"][0]["name"], "write");
  EXPECT_EQ(report["steps"][1]["kind"], "drop_caches");
  EXPECT_EQ(report["steps"][2]["name"], "read");
  for (int i : {0, 2}) {
    const json& agg = report["steps"][i]["aggregate"];
    EXPECT_DOUBLE_EQ(agg["seconds"].get<double>(), 1.0);  // the window after the ramp
    EXPECT_GT(agg["iops"].get<double>(), 0.0);
    EXPECT_GT(agg["bytes_per_sec"].get<double>(), 0.0);
    EXPECT_EQ(agg["bytes"].get<uint64_t>() % 65536, 0u);
  }
  // As fio's read job of another name, the read lays out its own files (2 x 4 MiB),
  // untimed, instead of reading the write step's.
  EXPECT_EQ(report["steps"][2]["aggregate"]["filled_bytes"].get<uint64_t>(), 2u * (4u << 20));
  EXPECT_EQ(report["steps"][0]["aggregate"]["filled_bytes"].get<uint64_t>(), 0u);
}

// The same test as an fio job file: imported, scaled down with --set like any workload.
TEST(ShippedWorkloads, ZebClientFioJobFile) {
  TempDir tmp;
  json report = RunShipped(tmp, "zebclient-seq64k.fio",
                           {"defaults.jobs=2", "defaults.file_size=8MiB", "defaults.runtime=1s", "defaults.ramp=0s"});
  ASSERT_EQ(report["steps"].size(), 2u);
  EXPECT_EQ(report["steps"][0]["name"], "64kseqwrite");
  EXPECT_EQ(report["steps"][1]["name"], "64kseqread");
  for (const json& step : report["steps"]) {
    const json& agg = step["aggregate"];
    EXPECT_GT(agg["ops"].get<uint64_t>(), 0u) << step["name"];
    EXPECT_GT(agg["bytes"].get<uint64_t>(), 0u) << step["name"];
    EXPECT_EQ(agg["bytes"].get<uint64_t>() % 65536, 0u) << step["name"];  // bs=64k
  }
}

TEST(ShippedWorkloads, ZebClientCompressibility) {
  TempDir tmp;
  json report = RunShipped(tmp, "zebclient-compressibility.yaml",
                           {"jobs=1", "file_size=2MiB", "runtime=300ms", "ramp=100ms",
                            "sweep={defaults.data.compressible_pct: [0, 100]}"});
  ASSERT_EQ(report["steps"].size(), 6u);
  EXPECT_EQ(report["steps"][0]["params"]["defaults.data.compressible_pct"], 0);
  EXPECT_EQ(report["steps"][3]["params"]["defaults.data.compressible_pct"], 100);
  EXPECT_EQ(report["steps"][3]["point"], 1);
}

TEST(ShippedWorkloads, NfsIozoneScaling) {
  TempDir tmp;
  json report = RunShipped(tmp, "nfs-iozone-nn-scaling.yaml", {"total_size=16MiB", "sweep={total_jobs: [1, 2, 4]}"});
  ASSERT_EQ(report["steps"].size(), 12u);
  for (const auto& step : report["steps"]) {
    if (step["kind"] != "io") continue;
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), 16u << 20) << step["name"] << " point " << step["point"];
    if (step["name"] == "write") EXPECT_EQ(step["aggregate"]["fsyncs"].get<uint64_t>(), step["params"]["total_jobs"].get<uint64_t>());
  }
}

// The write's final fsync (IOzone -e) is counted by default and can be left out.
TEST(ShippedWorkloads, NfsIozoneScalingWithoutTheFinalFsync) {
  TempDir tmp;
  json report = RunShipped(tmp, "nfs-iozone-nn-scaling.yaml",
                           {"total_size=16MiB", "sweep={total_jobs: [2]}", "fsync.at_end=false"});
  ASSERT_EQ(report["steps"].size(), 4u);
  EXPECT_EQ(report["steps"][0]["name"], "write");
  EXPECT_EQ(report["steps"][0]["aggregate"]["fsyncs"].get<uint64_t>(), 0u);
  EXPECT_EQ(report["steps"][0]["aggregate"]["bytes"].get<uint64_t>(), 16u << 20);
}

TEST(ShippedWorkloads, Quickstart) {
  TempDir tmp;
  json report = RunShipped(tmp, "quickstart.yaml", {"file_size=16MiB"});
  ASSERT_EQ(report["steps"].size(), 2u);
  EXPECT_EQ(report["steps"][1]["aggregate"]["bytes"].get<uint64_t>(), 2u * (16u << 20));
}

TEST(ShippedWorkloads, ExampleRandread) {
  TempDir tmp;
  json report = RunShipped(tmp, "examples/randread-4k.yaml", {"jobs=2", "file_size=8MiB", "steps[0].io.runtime=500ms",
                                                                "steps[0].io.ramp=100ms"});
  ASSERT_EQ(report["steps"].size(), 1u);
  const json& agg = report["steps"][0]["aggregate"];
  EXPECT_GT(agg["read"]["iops"].get<double>(), 0.0);
  EXPECT_EQ(agg["filled_bytes"].get<uint64_t>(), 2u * (8u << 20));  // laid out before reading
}

TEST(ShippedWorkloads, ExampleMixed) {
  TempDir tmp;
  json report = RunShipped(tmp, "examples/mixed-70-30.yaml",
                           {"jobs=1", "file_size=8MiB", "steps[mixed].io.runtime=500ms", "steps[mixed].io.ramp=100ms",
                            "steps[mixed-small-large].io.runtime=500ms", "steps[mixed-small-large].io.ramp=100ms"});
  ASSERT_EQ(report["steps"].size(), 3u);
  for (int i : {1, 2}) {
    const json& agg = report["steps"][i]["aggregate"];
    double reads = agg["read"]["ops"].get<double>(), writes = agg["write"]["ops"].get<double>();
    EXPECT_NEAR(reads / (reads + writes), 0.70, 0.08);
  }
}

TEST(ShippedWorkloads, DropCachesNeedsTheAgentsPermission) {
  TempDir tmp;
  CommandResult r = RunCommand({BinPath("iofleet"), "run", SourcePath("workloads/zebclient-seq64k.yaml"), "--create-local-root", "--local-root",
                                (tmp / "data").string(), "--out", (tmp / "out").string(), "--set", "file_size=1MiB"},
                               tmp / "logs");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("agent local: the workload drops caches"), std::string::npos) << r.err;
}

// An option iofleet cannot honour refuses the job file before any agent starts, naming its line;
// --allow-unsupported leaves it out with a warning.
TEST(FioJobFiles, UnsupportedOptionIsRefusedWithItsLine) {
  TempDir tmp;
  const std::string job = (tmp / "job.fio").string();
  WriteText(job, "[global]\nsize=1m\nioengine=null\n[a]\nrw=write\ncpus_allowed=0\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", job, "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string()},
                               tmp / "logs");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(job + ":6:1: cpus_allowed: is not an option"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("iofleet: 1 error(s) in " + job + "; nothing was started"), std::string::npos) << r.err;

  r = RunCommand({BinPath("iofleet"), "validate", job, "--allow-unsupported"}, tmp / "logs");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("iofleet: warning: " + job + ":6:1: cpus_allowed:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("engine: \"null\""), std::string::npos) << r.out;
}

// fio's --section: `--fio-section default` runs that job alone, with [global], though another
// section names a variable that is not set; a name the file lacks, or the flag on a YAML
// workload, is exit 2 before any agent starts.
TEST(FioJobFiles, OnlyTheSectionAskedForRuns) {
  TempDir tmp;
  const std::string job = (tmp / "compare.fio").string();
  WriteText(job, "[global]\nioengine=null\nsize=1m\nrw=randread\n[default]\n[override]\nrw=${IOFLEET_TEST_UNSET_RW}\n");
  const std::vector<std::string> run = {BinPath("iofleet"), "run", job, "--create-local-root", "--local-root",
                                        (tmp / "data").string(), "--out", (tmp / "out").string(), "--progress", "none"};
  CommandResult all = RunCommand(run, tmp / "logs");
  EXPECT_EQ(all.code, 2);
  EXPECT_NE(all.err.find(job + ":7:4: rw: ${IOFLEET_TEST_UNSET_RW} is not set"), std::string::npos) << all.err;

  std::vector<std::string> one = run;
  one.insert(one.end(), {"--fio-section", "default"});
  CommandResult r = RunCommand(one, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  const json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 1u) << report.dump();
  EXPECT_EQ(report["steps"][0]["name"], "default");
  EXPECT_EQ(report["steps"][0]["aggregate"]["ops"].get<uint64_t>(), 256u);  // 1 MiB of 4 KiB reads, once
  EXPECT_NE(report.dump().find("only section [default] (--fio-section)"), std::string::npos);

  CommandResult bad = RunCommand({BinPath("iofleet"), "validate", job, "--fio-section", "nosuch"}, tmp / "logs");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(job + ": --fio-section nosuch: the file has no job section [nosuch] (its job sections: default, override)"),
            std::string::npos)
      << bad.err;
  CommandResult yaml =
      RunCommand({BinPath("iofleet"), "validate", SourcePath("workloads/quickstart.yaml"), "--fio-section", "default"}, tmp / "logs");
  EXPECT_EQ(yaml.code, 2);
  EXPECT_NE(yaml.err.find("--fio-section is for fio job files"), std::string::npos) << yaml.err;
}

// fio's ${NAME} and steadystate, end to end: the job file's block size comes from the
// environment (an unset one is exit 2 at its place), and its ss options make a steady step that
// stops once steady and reports that window.
TEST(FioJobFiles, AnEnvironmentValueAndASteadyStateJobRun) {
  TempDir tmp;
  const std::string job = (tmp / "steady.fio").string();
  WriteText(job, "[global]\nioengine=null\nrw=randread\nsize=64m\nbs=${FIO_BS}\ntime_based\nruntime=30\n"
                 "[probe]\nss=iops_slope:20%\nss_dur=2\nss_interval=500ms\n");
  CommandResult unset = RunCommand({"/usr/bin/env", "-u", "FIO_BS", BinPath("iofleet"), "validate", job}, tmp / "logs");
  EXPECT_EQ(unset.code, 2);
  EXPECT_NE(unset.err.find(job + ":5:4: bs: ${FIO_BS} is not set in the environment"), std::string::npos) << unset.err;

  CommandResult r = RunCommand({"/usr/bin/env", "FIO_BS=8k", BinPath("iofleet"), "run", job, "--create-local-root", "--local-root",
                                (tmp / "data").string(), "--out", (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json report = ReadReport(tmp / "out");
  EXPECT_NE(report.value("description", "").find("from the environment: ${FIO_BS}=8k"), std::string::npos) << report.dump();
  const json& step = report["steps"][0];
  ASSERT_TRUE(step.contains("steady")) << step.dump();
  EXPECT_TRUE(step["steady"].value("reached", false)) << step["steady"].dump();
  // The figures are the steady window's: 2 s, of 8 KiB reads, far less than the 30 s runtime.
  EXPECT_NEAR(step["aggregate"]["seconds"].get<double>(), 2.0, 0.25) << step["aggregate"].dump();
  const double iops = step["aggregate"]["iops"].get<double>();
  EXPECT_NEAR(step["aggregate"]["bytes_per_sec"].get<double>(), iops * 8192, iops * 8192 * 0.01);
  EXPECT_LT(r.seconds, 25.0);
}

// fio's flow (examples/flow.fio, on the null engine and for 1 s): a writer of weight 1 beside a
// reader of weight 8 keep to 1:8 in the report's streams, however fast each would go alone.
TEST(FioJobFiles, AFlowKeepsTwoStreamsInProportion) {
  TempDir tmp;
  const std::string job = (tmp / "flow.fio").string();
  WriteText(job, "[global]\nnorandommap\nthread\ntime_based\nruntime=1\nioengine=null\niodepth=16\nsize=64m\nbs=8k\n"
                 "filename=testfile\nflow_sleep=100\n[job2]\nrw=write\nflow=1\n[job1]\nrw=randread\nflow=8\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", job, "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json report = ReadReport(tmp / "out");
  const json& streams = report["steps"][0]["streams"];
  ASSERT_EQ(streams.size(), 2u) << report["steps"][0].dump();
  const double writes = streams[0]["aggregate"]["ops"].get<double>(), reads = streams[1]["aggregate"]["ops"].get<double>();
  ASSERT_GT(writes, 100.0) << streams.dump();
  // Each job waits while it is ahead of its share: 1:8 to within the requests in flight.
  EXPECT_NEAR(reads / writes, 8.0, 8.0 * 0.02 + 16 * 9 / writes) << writes << " writes, " << reads << " reads";
}

// fio's examples/dedupe-global.fio, scaled down, through a real agent: its two jobs are two
// streams writing at once from one working set (what they write: IoTaskTest.StreamsSharing...).
TEST(FioJobFiles, ADedupeWorkingSetSharedByTwoStreamsRuns) {
  TempDir tmp;
  const std::string job = (tmp / "dedupe-global.fio").string();
  WriteText(job, "[global]\nioengine=libaio\niodepth=16\nsize=4m\ndedupe_mode=working_set\ndedupe_global=1\n"
                 "dedupe_percentage=50\nblocksize=4k\nrw=write\nbuffer_compress_percentage=50\n"
                 "dedupe_working_set_percentage=50\n[a]\n[b]\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", job, "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json streams = ReadReport(tmp / "out")["steps"][0]["streams"];
  ASSERT_EQ(streams.size(), 2u) << streams.dump();
  for (const json& s : streams) EXPECT_EQ(s["aggregate"]["bytes"].get<uint64_t>(), 4u << 20) << s.dump();
}

// fio's usual way to split one file among its jobs: filename= with numjobs and offset_increment,
// each job its own part. Through a real agent: the writers cover the file part by part, so the
// reader after them has nothing to lay out and reads what they wrote.
TEST(FioJobFiles, OffsetIncrementGivesEachJobItsPartOfOneFile) {
  TempDir tmp;
  const std::string job = (tmp / "parts.fio").string();
  WriteText(job, "[global]\nioengine=psync\nbs=64k\nsize=1m\nfilename=parts.dat\nnumjobs=4\noffset=1m\noffset_increment=1m\n"
                 "[w]\nrw=write\n[r]\nstonewall\nrw=read\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", job, "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json steps = ReadReport(tmp / "out")["steps"];
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0]["aggregate"]["bytes"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(steps[1]["aggregate"]["bytes"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(steps[1]["aggregate"].value("filled_bytes", uint64_t{0}), 0u) << steps[1]["aggregate"].dump();
}

// fio's exitall with exit_what=stonewall: the quick job's end ends the paced one (1024 writes at 10
// a second, 102 s on its own) through a real agent. The step succeeds, not stopped early, and the
// report says the agent's job ended others; the paced stream's figures are what it completed.
TEST(FioJobFiles, ExitWhatStonewallEndsTheStepWhenTheQuickJobIsDone) {
  TempDir tmp;
  const std::string job = (tmp / "exit.fio").string();
  WriteText(job, "[global]\nioengine=psync\nbs=4k\nsize=4m\nexitall\n[quick]\nrw=write\nexit_what=stonewall\n"
                 "[paced]\nrw=write\nrate_iops=10\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", job, "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json steps = ReadReport(tmp / "out")["steps"];
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0]["status"], "succeeded") << steps[0].dump();
  ASSERT_EQ(steps[0]["agents"].size(), 1u);
  EXPECT_EQ(steps[0]["agents"][0].value("ended_others", false), true) << steps[0]["agents"][0].dump();
  const json streams = steps[0]["streams"];
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0]["aggregate"]["bytes"].get<uint64_t>(), 4u << 20);
  EXPECT_LT(streams[1]["aggregate"]["bytes"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(streams[0]["agents"][0].value("ended_others", false), true) << streams[0].dump();  // the quick job's
  EXPECT_FALSE(streams[1]["agents"][0].contains("ended_others")) << streams[1].dump();
  EXPECT_EQ(steps[0]["aggregate"]["bytes"].get<uint64_t>(),
            streams[0]["aggregate"]["bytes"].get<uint64_t>() + streams[1]["aggregate"]["bytes"].get<uint64_t>());
}

}  // namespace
}  // namespace iofleet::testing
