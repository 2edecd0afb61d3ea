#include "controller/workload/fio_import.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <sstream>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "controller/workload/yaml_loader.h"
#include "controller/workload/yaml_writer.h"
#include "tests/support/temp_dir.h"
#include "core/rules/defaults.h"

#include "tests/support/test_paths.h"

namespace iofleet::controller {
namespace {

std::string Lines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

bool Has(const std::vector<std::string>& list, const std::string& text) {
  return Lines(list).find(text) != std::string::npos;
}

v1::Workload FromText(const std::string& text) {
  v1::Workload w;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &w)) << text;
  return w;
}

// Seed 002's two fio commands (the ZebClient VM performance test) as one job file.
const char* const kZebClient = R"(; ZebClient fio test
[global]
direct=1
ioengine=libaio
bs=64k
numjobs=16
size=4G
time_based=1
runtime=300
group_reporting
buffer_compress_percentage=50
buffer_pattern=0xdeadbeef

[64kseqwrite]
rw=write
stonewall

[64kseqread]
rw=read
stonewall
)";

TEST(FioImport, ZebClientJobFileMapsToTheWorkload) {
  FioImport imp = ImportFioJobText(kZebClient, "ZebClient_Seq64k.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(imp.warnings.empty()) << Lines(imp.warnings);
  v1::Workload expected = FromText(R"(
    name: "zebclient-seq64k"
    defaults {
      engine: ENGINE_LIBAIO direct: true block_size: 65536 jobs: 16 file_size: 4294967296
      runtime: 300000000000
      data { compressible_pct: 50 pattern: "0xdeadbeef" }
      fsync { at_end: false }
      preallocate: true
    }
    steps { name: "64kseqwrite" io { op: OP_WRITE file_prefix: "64kseqwrite" } }
    steps { name: "64kseqread" io { op: OP_READ file_prefix: "64kseqread" } }
  )");
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(expected, imp.workload)) << diff << imp.workload.DebugString();
}

TEST(FioImport, ValidateOutputIsAWorkloadThatLoads) {
  FioImport imp = ImportFioJobText(kZebClient, "zeb.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  LoadedWorkload again = LoadWorkloadText(ToYaml(rules::Effective(imp.workload)), "zeb.yaml");
  EXPECT_TRUE(again.errors.empty()) << Lines(again.errors);
  EXPECT_EQ(again.workload.steps(0).io().block_size(), 65536u);
}

TEST(FioImport, SizesReadAsFioReadsThem) {
  FioImport imp = ImportFioJobText(R"([global]
ioengine=null
[a]
bs=4k
size=1g
[b]
stonewall
bs=1m
size=2t
[c]
stonewall
bs=512
filesize=1.5k
[d]
stonewall
bs=0x10000
size=64KB
)", "s.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const auto& s = imp.workload.steps();
  EXPECT_EQ(s[0].io().block_size(), 4096u);
  EXPECT_EQ(s[0].io().file_size(), 1ull << 30);
  EXPECT_EQ(s[1].io().block_size(), 1u << 20);
  EXPECT_EQ(s[1].io().file_size(), 2ull << 40);
  EXPECT_EQ(s[2].io().block_size(), 512u);
  EXPECT_EQ(s[2].io().file_size(), 1536u);
  EXPECT_EQ(s[3].io().block_size(), 65536u);
  EXPECT_EQ(s[3].io().file_size(), 65536u);
}

// fio's default kb_base=1024 reads IEC prefixes as powers of 10; the import does the same, and
// says so.
TEST(FioImport, IecPrefixesAsFioReadsThem) {
  FioImport imp = ImportFioJobText("[a]\nioengine=null\nbs=64KiB\nsize=1MiB\n", "k.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().block_size(), 64000u);
  EXPECT_EQ(imp.workload.steps(0).io().file_size(), 1000000u);
  EXPECT_TRUE(Has(imp.warnings, "k.fio:3:4: bs: fio reads \"64KiB\" as 64000 bytes")) << Lines(imp.warnings);

  imp = ImportFioJobText("[global]\nkb_base=1000\n[a]\nioengine=null\nbs=64KiB\nsize=1m\n", "k.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().block_size(), 65536u);
  EXPECT_EQ(imp.workload.steps(0).io().file_size(), 1000000u);
  EXPECT_TRUE(imp.warnings.empty()) << Lines(imp.warnings);
}

TEST(FioImport, RuntimeWithoutTimeBasedIsADeadline) {
  FioImport imp = ImportFioJobText("[global]\nsize=1g\nruntime=90\n[a]\nrw=write\n[b]\nstonewall\ntime_based\nruntime=2m\n"
                                   "ramp_time=500ms\n",
                                   "r.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  EXPECT_EQ(w.defaults().deadline(), 90'000'000'000u);
  EXPECT_FALSE(w.defaults().has_runtime());
  EXPECT_EQ(w.steps(1).io().runtime(), 120'000'000'000u);
  EXPECT_EQ(w.steps(1).io().ramp(), 500'000'000u);
  EXPECT_FALSE(w.steps(1).io().has_deadline());
}

// One [global] runtime read two ways goes into each step.
TEST(FioImport, GlobalRuntimeSplitsWhenJobsDiffer) {
  FioImport imp = ImportFioJobText("[global]\nsize=1g\nruntime=10s\n[a]\n[b]\nstonewall\ntime_based\n", "r.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_FALSE(imp.workload.defaults().has_runtime());
  EXPECT_EQ(imp.workload.steps(0).io().deadline(), 10'000'000'000u);
  EXPECT_EQ(imp.workload.steps(1).io().runtime(), 10'000'000'000u);
}

TEST(FioImport, RampWithoutTimeBasedIsUnsupported) {
  FioImport imp = ImportFioJobText("[a]\nsize=1g\nruntime=10\nramp_time=5\n", "r.fio", false);
  EXPECT_TRUE(Has(imp.errors, "r.fio:4:1: ramp_time: without time_based (job [a]) is not supported")) << Lines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1g\nruntime=10\nramp_time=5\n", "r.fio", true);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "r.fio:4:1: ramp_time:")) << Lines(imp.warnings);
  EXPECT_FALSE(imp.workload.steps(0).io().has_ramp());
}

TEST(FioImport, UnsupportedOptionIsAnErrorNamingItsLine) {
  const char* text = "[global]\nsize=1m\n\n  cpus_allowed=0\n[a]\nrw=read\niodepth_batch=4\n";
  FioImport imp = ImportFioJobText(text, "u.fio", false);
  EXPECT_TRUE(Has(imp.errors, "u.fio:4:3: cpus_allowed: is not an option iofleet's fio import supports")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "u.fio:7:1: iodepth_batch: is not an option")) << Lines(imp.errors);
  EXPECT_EQ(imp.errors.size(), 2u) << Lines(imp.errors);  // all at once
}

TEST(FioImport, AllowUnsupportedWarnsAndLeavesItOut) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\ncpus_allowed=0\nfilename=a:b\n[a]\nrw=read\n", "u.fio", true);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "u.fio:3:1: cpus_allowed: is not an option iofleet's fio import supports; left out")) << Lines(imp.warnings);
  EXPECT_TRUE(Has(imp.warnings, "u.fio:4:10: filename: \"a:b\": several files per job are not supported")) << Lines(imp.warnings);
  EXPECT_EQ(imp.workload.steps(0).io().op(), v1::OP_READ);
}

// filename=/dev/sdb with --allow-unsupported ran on a file in the agent's root and exited 0.
TEST(FioImport, ADeviceOrAbsoluteFilenameIsAnErrorEvenWhenAllowingUnsupported) {
  for (bool allow : {false, true}) {
    FioImport dev = ImportFioJobText("[global]\nsize=1m\nfilename=/dev/sdb\n[a]\nrw=read\n", "d.fio", allow);
    EXPECT_TRUE(Has(dev.errors, "d.fio:3:10: filename: \"/dev/sdb\" is a device, but each agent works only below its own roots"))
        << allow << Lines(dev.errors);
    EXPECT_TRUE(Has(dev.errors, "even with --allow-unsupported: remove filename=")) << Lines(dev.errors);
    FioImport abs = ImportFioJobText("[a]\nsize=1m\nrw=write\nfilename=/tmp/testfile\n", "a.fio", allow);
    EXPECT_TRUE(Has(abs.errors, "a.fio:4:10: filename: \"/tmp/testfile\" is an absolute path")) << allow << Lines(abs.errors);
    EXPECT_TRUE(Has(abs.errors, "--fio-paths relative")) << Lines(abs.errors);
    // Even with --fio-paths relative a device is never mapped.
    dev = ImportFioJobText("[global]\nsize=1m\nfilename=/dev/sdb\n[a]\nrw=read\n", "d.fio", allow, /*relative_paths=*/true);
    EXPECT_TRUE(Has(dev.errors, "is a device")) << Lines(dev.errors);
  }
}

// A relative filename is the job's file in the run directory, shared by the jobs naming it and
// covered whole by each, as fio's jobs and clones do.
TEST(FioImport, AFilenameIsAFileOfTheRunDirectorySharedByTheJobsThatNameIt) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\nfilename=test.file\n[w]\nrw=write\n[r]\nstonewall\nrw=read\nnumjobs=4\n",
                                   "f.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 2);
  for (int i = 0; i < 2; ++i) {
    const v1::IoSpec io = rules::ResolveIo(w, i);
    EXPECT_EQ(rules::JobFileName(io, 0), "test_file-shared.dat");
    EXPECT_EQ(io.shared_mode(), v1::SHARED_MODE_WHOLE);
    EXPECT_EQ(rules::JobRangeBytes(io), 1u << 20);  // each of the 4 readers covers the whole file
  }
  // --fio-paths relative: an absolute file is its base name there, and the report says so.
  imp = ImportFioJobText("[a]\nsize=1m\nrw=write\nfilename=/tmp/testfile\ndirectory=/mnt/x\n", "a.fio", false, true);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "a.fio:4:10: filename: \"/tmp/testfile\" is taken as \"testfile\"")) << Lines(imp.warnings);
  EXPECT_TRUE(Has(imp.warnings, "a.fio:5:11: directory: \"/mnt/x\" is taken as each agent's run directory")) << Lines(imp.warnings);
  EXPECT_NE(imp.workload.description().find("filename /tmp/testfile as testfile"), std::string::npos) << imp.workload.description();
  EXPECT_EQ(rules::JobFileName(rules::ResolveIo(imp.workload, 0), 0), "testfile-shared.dat");
  EXPECT_TRUE(imp.workload.target().dir().empty());
  // A name with a directory in it is not a file name.
  imp = ImportFioJobText("[a]\nsize=1m\nrw=write\nfilename=sub/f\n", "a.fio", false);
  EXPECT_TRUE(Has(imp.errors, "a.fio:4:10: filename: \"sub/f\" is not a file name")) << Lines(imp.errors);
}

// Options that run commands are never run, with or without --allow-unsupported.
TEST(FioImport, CommandsAreNeverRun) {
  const std::filesystem::path marker = std::filesystem::temp_directory_path() / ("fio-import-" + std::to_string(getpid()));
  std::filesystem::remove(marker);
  const std::string text = "[global]\nsize=1m\nexec_prerun=touch " + marker.string() + "\n[a]\nexec_postrun=touch " +
                           marker.string() + "\nioengine=exec\n";
  FioImport imp = ImportFioJobText(text, "x.fio", false);
  EXPECT_TRUE(Has(imp.errors, "x.fio:3:1: exec_prerun: runs a command")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "x.fio:5:1: exec_postrun: runs a command")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "x.fio:6:1: ioengine: runs a command")) << Lines(imp.errors);
  EXPECT_FALSE(std::filesystem::exists(marker));

  imp = ImportFioJobText(text, "x.fio", true);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "x.fio:3:1: exec_prerun: exec_prerun=touch " + marker.string() + ": left out and not run"))
      << Lines(imp.warnings);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// fio starts a file's jobs together up to a stonewall: each such run of jobs is one step whose
// streams are the jobs, each with its own fields and files.
TEST(FioImport, ConcurrentJobsBecomeTheStreamsOfOneStep) {
  const char* text = "[global]\nsize=1m\nruntime=5\ntime_based\n[w]\nrw=write\nbs=1m\n[r]\nrw=randread\niodepth=1\n"
                     "[s]\nstonewall\nrw=read\n";
  FioImport imp = ImportFioJobText(text, "c.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 2);
  EXPECT_EQ(w.steps(0).name(), "w");
  ASSERT_EQ(w.steps(0).io().streams_size(), 2);
  const v1::IoSpec io = rules::ResolveIo(w, 0);
  EXPECT_EQ(io.streams(0).name(), "w");
  EXPECT_EQ(io.streams(0).op(), v1::OP_WRITE);
  EXPECT_EQ(io.streams(0).block_size(), 1u << 20);
  EXPECT_EQ(io.streams(1).name(), "r");
  EXPECT_EQ(io.streams(1).op(), v1::OP_RANDREAD);
  EXPECT_EQ(io.streams(1).block_size(), 4096u);
  EXPECT_EQ(io.streams(1).runtime(), 5'000'000'000u);
  EXPECT_NE(rules::JobFileName(io.streams(0), 0), rules::JobFileName(io.streams(1), 0));  // fio: each job its own files
  EXPECT_EQ(w.steps(1).io().streams_size(), 0);
  EXPECT_EQ(w.steps(1).name(), "s");

  // stonewall in [global] covers every job; wait_for_previous is the same option.
  imp = ImportFioJobText("[global]\nsize=1m\nstonewall\n[w]\nrw=write\n[r]\nrw=read\n", "c.fio", false);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.steps_size(), 2);
  imp = ImportFioJobText("[global]\nsize=1m\n[w]\nrw=write\n[r]\nwait_for_previous\nrw=read\n", "c.fio", false);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.steps_size(), 2);

  // Jobs that run together share the step's runtime: different ones are refused at the job.
  imp = ImportFioJobText("[global]\nsize=1m\ntime_based\nruntime=5\n[w]\nrw=write\n[r]\nrw=read\nruntime=9\n", "c.fio", false);
  EXPECT_TRUE(Has(imp.errors, "c.fio:7:1: [r]: runs at the same time as job [w] but with another runtime")) << Lines(imp.errors);
  // A stream's own error points at its job's line.
  imp = ImportFioJobText("[global]\nsize=1m\ndirect=1\n[w]\nrw=write\n[r]\nrw=read\nbs=1000\n", "c.fio", false);
  EXPECT_TRUE(Has(imp.errors, "c.fio:8:")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "must be a multiple of 512 bytes with direct: true (iofleet steps[0].io.streams[1].block_size)"))
      << Lines(imp.errors);
}

// fio's access patterns: random_distribution as written, norandommap, randrepeat's default of
// the same offsets every run (a seed), randseed, startdelay; fio's normal cannot mean the same.
TEST(FioImport, AccessPatternsMapToDistributionRandomSeedAndStartDelay) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\n[z]\nrw=randread\nrandom_distribution=zipf:1.2\n[u]\nstonewall\n"
                                   "rw=randwrite\nnorandommap\nrandseed=77\nstartdelay=2\n[s]\nstonewall\nrw=randread\n"
                                   "randrepeat=0\n[q]\nstonewall\nrw=read\n",
                                   "p.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 4);
  EXPECT_EQ(w.steps(0).io().distribution(), "zipf:1.2");
  EXPECT_EQ(w.steps(0).io().seed(), 1u);  // fio's randrepeat=1 by default
  EXPECT_EQ(w.steps(1).io().random(), v1::RANDOM_ORDER_UNIFORM);
  EXPECT_EQ(w.steps(1).io().seed(), 77u);
  EXPECT_EQ(w.steps(1).io().start_delay(), 2'000'000'000u);
  EXPECT_FALSE(w.steps(2).io().has_seed());  // randrepeat=0: new offsets each run
  EXPECT_FALSE(w.steps(3).io().has_seed());  // sequential: nothing random to repeat

  // fio ignores norandommap beside a non-uniform distribution: left out with a warning.
  imp = ImportFioJobText("[a]\nsize=1m\nrw=randread\nrandom_distribution=pareto:0.3\nnorandommap\n", "n.fio", false);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "n.fio:5:1: norandommap: has no effect on job [a]")) << Lines(imp.warnings);
  EXPECT_FALSE(imp.workload.steps(0).io().has_random());
  // fio's invalidate=1 (default) on a buffered job: its files leave the page cache first.
  imp = ImportFioJobText("[global]\nsize=1m\n[a]\nrw=read\n[b]\nstonewall\nrw=read\ninvalidate=0\n[c]\nstonewall\nrw=read\ndirect=1\n", "i.fio",
                         false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(rules::ResolveIo(imp.workload, 0).invalidate());
  EXPECT_FALSE(rules::ResolveIo(imp.workload, 1).invalidate());
  // Options of fio's own reporting and profiles mean nothing here: accepted.
  imp = ImportFioJobText("[a]\nsize=1m\nnew_group\nthreads=4\ngtod_reduce=1\n", "g.fio", false);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nrw=randread\nrandom_distribution=normal:5\n", "n.fio", false);
  EXPECT_TRUE(Has(imp.errors, "n.fio:4:21: random_distribution: \"normal:5\": fio's normal distribution")) << Lines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nrw=randread\nrandom_distribution=zipf:1\n", "n.fio", false);
  EXPECT_TRUE(Has(imp.errors, "n.fio:4:21: random_distribution: \"zipf:1\": zipf theta must not be 1")) << Lines(imp.errors);
}

TEST(FioImport, BlockSizeSplit) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nioengine=null\nbssplit=4k/60:64k/40\n", "b.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const auto& split = imp.workload.steps(0).io().block_size_split();
  ASSERT_EQ(split.size(), 2);
  EXPECT_EQ(split[0].size(), 4096u);
  EXPECT_EQ(split[0].weight(), 60u);
  EXPECT_EQ(split[1].size(), 65536u);
  EXPECT_EQ(split[1].weight(), 40u);
  EXPECT_FALSE(imp.workload.defaults().has_block_size());  // fio's 4k default has no effect here

  // Blank shares split what is left evenly, as in fio.
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=null\nbssplit=4k/50:1k/:32k/\n", "b.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  ASSERT_EQ(imp.workload.steps(0).io().block_size_split_size(), 3);
  EXPECT_EQ(imp.workload.steps(0).io().block_size_split(1).weight(), 25u);

  imp = ImportFioJobText("[a]\nsize=1m\nbssplit=4k/60:64k/60\n", "b.fio", false);
  EXPECT_TRUE(Has(imp.errors, "b.fio:3:9: bssplit: \"4k/60:64k/60\": the percentages add up to 120, not 100")) << Lines(imp.errors);

  // bs beside bssplit has no effect, in fio as here: left out with a warning.
  imp = ImportFioJobText("[global]\nbs=8k\n[a]\nsize=1m\nioengine=null\nbssplit=4k/50:8k/50\n", "b.fio", false);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "b.fio:2:1: bs: has no effect on any job")) << Lines(imp.warnings);
  EXPECT_FALSE(imp.workload.defaults().has_block_size());
}

TEST(FioImport, MixedReadsAndWrites) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\n[a]\nrw=randrw\nrwmixread=70\n[b]\nstonewall\nreadwrite=rw\nrwmixwrite=20\n",
                                   "m.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().op(), v1::OP_RANDRW);
  EXPECT_EQ(imp.workload.steps(0).io().read_pct(), 70u);
  EXPECT_EQ(imp.workload.steps(1).io().op(), v1::OP_READWRITE);
  EXPECT_EQ(imp.workload.steps(1).io().read_pct(), 80u);

  imp = ImportFioJobText("[a]\nsize=1m\nrw=randread:8\n", "m.fio", false);
  EXPECT_TRUE(Has(imp.errors, "m.fio:3:4: rw: \"randread:8\": fio's random :N")) << Lines(imp.errors);
}

// fio's examples/sequence-distribution.fio: the sequence distribution, fixed and strided.
TEST(FioImport, SequenceDistributionAndItsStride) {
  FioImport imp = ImportFioJobText("[global]\nioengine=null\nrw=randread\nbs=4k\nsize=48k\nio_size=24k\n"
                                   "[repeating_sequence]\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=0\n"
                                   "[strided_sequence]\nstonewall\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=1\n",
                                   "s.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 2);
  EXPECT_EQ(imp.workload.steps(0).io().distribution(), "sequence:2,0,1");
  EXPECT_FALSE(imp.workload.steps(0).io().sequence_stride());
  EXPECT_TRUE(imp.workload.steps(1).io().sequence_stride());
  // A slot past the file is refused where it was written; a stride without a sequence too.
  imp = ImportFioJobText("[a]\nrw=randread\nbs=4k\nsize=48k\nrandom_distribution=sequence:2,12\n", "t.fio", false);
  EXPECT_TRUE(Has(imp.errors, "t.fio:5:1: random_distribution: sequence slot 12 is beyond the file's 12 blocks")) << Lines(imp.errors);
  imp = ImportFioJobText("[a]\nrw=randread\nbs=4k\nsize=48k\nrandom_sequence_stride=1\n", "u.fio", false);
  EXPECT_TRUE(Has(imp.errors, "u.fio:5:1: random_sequence_stride: applies to distribution sequence:... only")) << Lines(imp.errors);
}

// fio's examples/dedupe-global.fio: a working set shared by the file's jobs, placed whatever
// the order of its options; the mode's other options do nothing without it, as in fio.
TEST(FioImport, DedupeWorkingSetAndGlobal) {
  FioImport imp = ImportFioJobText("[global]\nrw=write\nbs=4k\nsize=100m\ndedupe_working_set_percentage=50\ndedupe_global=1\n"
                                   "dedupe_mode=working_set\ndedupe_percentage=50\n[a]\n[b]\ndedupe_mode=repeat\n[c]\nstonewall\n"
                                   "dedupe_working_set_percentage=20\n",
                                   "d.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 2);
  ASSERT_EQ(w.steps(0).io().streams_size(), 2);
  const v1::DataSpec& a = w.steps(0).io().streams(0).data();
  EXPECT_EQ(w.defaults().data().dedupe_pct(), 50u);  // [global]'s, as every other option of it
  EXPECT_EQ(a.dedupe_working_set_pct(), 50u);
  EXPECT_TRUE(a.dedupe_global());
  const v1::DataSpec& b = w.steps(0).io().streams(1).data();  // its own repeat mode
  EXPECT_FALSE(b.has_dedupe_working_set_pct());
  EXPECT_FALSE(b.dedupe_global());
  EXPECT_EQ(w.steps(1).io().data().dedupe_working_set_pct(), 20u);
  EXPECT_TRUE(Has(imp.warnings, "d.fio:5:1: dedupe_working_set_percentage: has no effect without dedupe_mode=working_set")) << Lines(imp.warnings);
  // fio's default share of the range, 5%, where the mode is given alone.
  imp = ImportFioJobText("[a]\nrw=write\nsize=1m\ndedupe_percentage=10\ndedupe_mode=working_set\n", "e.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().data().dedupe_working_set_pct(), 5u);
  // Bad values, and a set with no repeats to serve, where they are written.
  imp = ImportFioJobText("[a]\nrw=write\nsize=1m\ndedupe_mode=sometimes\ndedupe_working_set_percentage=101\ndedupe_global=2\n", "f.fio", false);
  EXPECT_TRUE(Has(imp.errors, "f.fio:4:13: dedupe_mode: \"sometimes\" is not repeat or working_set")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "f.fio:5:31: dedupe_working_set_percentage: 101 is above the maximum 100")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "f.fio:6:15: dedupe_global: \"2\" is not 0 or 1")) << Lines(imp.errors);
  imp = ImportFioJobText("[a]\nrw=write\nsize=1m\ndedupe_mode=working_set\n", "g.fio", false);
  EXPECT_TRUE(Has(imp.errors, "g.fio:4:1: dedupe_mode: the working set of the repeats has none to serve: set data.dedupe_pct as well"))
      << Lines(imp.errors);
}

// offset and offset_increment: each job's range from its offset; beside filesize the range runs
// to the file's end, as fio's does.
TEST(FioImport, OffsetsAndTheirIncrement) {
  FioImport imp = ImportFioJobText("[global]\nrw=read\nbs=64k\nsize=1m\nfilename=shared.dat\nnumjobs=4\noffset_increment=1m\n"
                                   "[r]\noffset=2m\n[f]\nstonewall\nfilesize=4m\noffset=1m\noffset_increment=0\n",
                                   "o.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 2);
  EXPECT_EQ(w.steps(0).io().offset(), 2u << 20);
  EXPECT_EQ(w.steps(0).io().offset_increment(), 1u << 20);  // [global]'s
  EXPECT_EQ(w.steps(1).io().offset(), 1u << 20);
  EXPECT_EQ(w.steps(1).io().offset_increment(), 0u);
  EXPECT_EQ(w.steps(1).io().file_size(), 3u << 20) << "from its offset to the file's end";
  imp = ImportFioJobText("[a]\nrw=read\nfilesize=4m\noffset=1m\noffset_increment=64k\nnumjobs=2\n[b]\nrw=read\nfilesize=1m\n"
                         "offset=1m\n[c]\nrw=read\nsize=1m\noffset=10%\n",
                         "p.fio", false);
  EXPECT_TRUE(Has(imp.errors, "p.fio:5:1: offset_increment: beside filesize= (job [a])")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "p.fio:10:1: offset: 1MiB is at or past filesize 1MiB (job [b])")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "p.fio:14:8: offset: \"10%\": a percentage")) << Lines(imp.errors);
  imp = ImportFioJobText("[d]\nrw=read\nsize=1m\noffset=1000\nbs=4k\n", "q.fio", false);
  EXPECT_TRUE(Has(imp.errors, "q.fio:4:1: offset: 1KB is not a multiple of the block size 4KiB")) << Lines(imp.errors);
}

// number_ios: fio stops a job after number_ios x loops I/Os, its passes whole until the limit
// cuts the last, where its size would have gone on; never longer. Time-based jobs and several
// block sizes are refused where it is written.
TEST(FioImport, NumberIosEndsASizeBasedJobEarly) {
  FioImport imp = ImportFioJobText("[global]\nrw=randread\nbs=8k\nsize=1m\nloops=3\n[few]\nnumber_ios=100\n"
                                   "[many]\nstonewall\nnumber_ios=1000\n",
                                   "n.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 2);
  EXPECT_EQ(imp.workload.steps(0).io().io_size(), 300u * 8192) << "passes of 128, 128 and 44 I/Os, as fio's";
  EXPECT_EQ(imp.workload.steps(0).io().loops(), 1u);
  EXPECT_FALSE(imp.workload.steps(1).io().has_io_size()) << "each pass's 128 I/Os end first";
  imp = ImportFioJobText("[a]\nrw=read\nsize=1m\nruntime=5\ntime_based\nnumber_ios=10\n[b]\nstonewall\nrw=read\nsize=1m\n"
                         "bssplit=4k/50:8k/50\nnumber_ios=10\n[c]\nstonewall\nrw=read\nsize=1m\nnumber_ios=ten\n",
                         "m.fio", false);
  EXPECT_TRUE(Has(imp.errors, "m.fio:6:1: number_ios: in a time-based job (job [a])")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "m.fio:12:1: number_ios: with several block sizes (job [b])")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "m.fio:17:12: number_ios: \"ten\" is not a whole number of I/Os")) << Lines(imp.errors);
}

TEST(FioImport, BadValuesAreErrorsWithTheirPlace) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nbs=abc\niodepth=0\ndirect=yes\nruntime=soon\nsize=50%\nnumjobs=-1\n",
                                   "v.fio", false);
  EXPECT_TRUE(Has(imp.errors, "v.fio:3:4: bs: \"abc\" is not a size")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "v.fio:4:9: iodepth: 0 is below the minimum 1")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "v.fio:5:8: direct: \"yes\" is not 0 or 1")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "v.fio:6:9: runtime: \"soon\" is not a time")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "v.fio:7:6: size: \"50%\": a percentage")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "v.fio:8:9: numjobs: \"-1\" is not a whole number")) << Lines(imp.errors);
}

TEST(FioImport, RefusedConstructs) {
  const FioEnvironment nothing_set = [](const std::string&) { return std::optional<std::string>(); };
  FioImport imp = ImportFioJobText("include other.fio\n[a]\nsize=${SIZE}\nfilename=/dev/nvme0n1\ndirectory=/mnt/fs\n",
                                   "f.fio", false, false, nothing_set);
  EXPECT_TRUE(Has(imp.errors, "f.fio:1:1: include other.fio: include files are not supported")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "f.fio:3:6: size: ${SIZE} is not set in the environment")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "f.fio:4:10: filename: \"/dev/nvme0n1\" is a device")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "f.fio:5:11: directory: \"/mnt/fs\" is a path on this host")) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "--set target.dir=PATH")) << Lines(imp.errors);
}

TEST(FioImport, NamesDirectoryVerifyAndFioDefaults) {
  FioImport imp = ImportFioJobText(R"(# comment
[global]
directory=bench/fio/  ; trailing comment
description="a test"
size=1m
verify=crc32c
[Seq Write!]
rw=write
[seq-write]
stonewall
rw=read
[x]
name=seq write
wait_for_previous=1
)", "My Jobs.v2.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  EXPECT_EQ(w.name(), "my-jobs-v2");
  EXPECT_EQ(w.description(), "a test");
  EXPECT_EQ(w.target().dir(), "bench/fio");
  EXPECT_EQ(w.steps(0).name(), "seq-write");
  EXPECT_EQ(w.steps(1).name(), "seq-write-2");
  EXPECT_EQ(w.steps(2).name(), "seq-write-3");
  // As in fio, jobs of one name share their files (name.N.0), whatever their step names.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(w.steps(i).io().file_prefix(), "seq-write") << i;
  EXPECT_TRUE(w.defaults().verify());
  EXPECT_TRUE(Has(imp.warnings, "My Jobs.v2.fio:6:8: verify: iofleet verifies with its own header")) << Lines(imp.warnings);
  // What fio does when a job leaves these out.
  EXPECT_EQ(w.defaults().engine(), v1::ENGINE_PSYNC);
  EXPECT_FALSE(w.defaults().direct());
  EXPECT_EQ(w.defaults().block_size(), 4096u);
  EXPECT_FALSE(w.defaults().fsync().at_end());
  EXPECT_EQ(w.defaults().op(), v1::OP_READ);
  EXPECT_FALSE(w.steps(2).io().has_op());
}

TEST(FioImport, JobWithoutSizeIsAnError) {
  FioImport imp = ImportFioJobText("[a]\nrw=read\n", "n.fio", false);
  EXPECT_TRUE(Has(imp.errors, "n.fio:1:1: [a]: has no size")) << Lines(imp.errors);
  imp = ImportFioJobText("[global]\nsize=1m\n", "n.fio", false);
  EXPECT_TRUE(Has(imp.errors, "n.fio: no job sections")) << Lines(imp.errors);
}

// What the translated workload breaks is found by validation and named by the fio option.
TEST(FioImport, ValidationErrorsNameTheOption) {
  FioImport imp = ImportFioJobText("[global]\ndirect=1\nbs=1000\n[a]\nsize=1m\n", "d.fio", false);
  EXPECT_TRUE(Has(imp.errors, "d.fio:3:1: bs: "))
      << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.errors, "must be a multiple of 512 bytes with direct: true (iofleet defaults.block_size)")) << Lines(imp.errors);

  // iodepth on a synchronous engine: fio caps it at 1; the import leaves it out, saying so.
  imp = ImportFioJobText("[a]\nsize=1m\niodepth=32\n", "d.fio", false);
  EXPECT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_TRUE(Has(imp.warnings, "d.fio:3:1: iodepth: has no effect on job [a] (psync is synchronous")) << Lines(imp.warnings);
}

TEST(FioImport, LaterGlobalReachesOnlyTheJobsAfterIt) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\n[a]\n[global]\nbs=8k\nstonewall\n[b]\n[c]\n", "g.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  EXPECT_EQ(imp.workload.defaults().block_size(), 4096u);
  EXPECT_FALSE(imp.workload.steps(0).io().has_block_size());
  EXPECT_EQ(imp.workload.steps(1).io().block_size(), 8192u);
  EXPECT_EQ(imp.workload.steps(2).io().block_size(), 8192u);
}

TEST(FioImport, RecognizesJobFiles) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("fio-detect-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.fio") << "name: not really\n";
  std::ofstream(dir / "job") << "; comment\n# another\n\n[global]\nbs=4k\n";
  std::ofstream(dir / "w.yaml") << "# a workload\nname: w\nsteps: []\n";
  EXPECT_TRUE(IsFioJobFile((dir / "a.fio").string()));
  EXPECT_TRUE(IsFioJobFile((dir / "job").string()));
  EXPECT_FALSE(IsFioJobFile((dir / "w.yaml").string()));
  EXPECT_FALSE(IsFioJobFile((dir / "missing").string()));
  std::filesystem::remove_all(dir);
}

// Input is bounded before it is parsed.
TEST(FioImport, RefusesAFileOverTheBoundBeforeParsing) {
  testing::TempDir dir;
  const std::string path = (dir / "big.fio").string();
  {
    std::ofstream out(path);
    out << "[global]\nbs=4k\n";
    while (out.tellp() < (5 << 20)) out << "; padding padding padding padding padding padding padding\n";
    out << "[job]\nrw=read\nsize=1m\n";
  }
  FioImport imported = ImportFioJobFile(path, false);
  ASSERT_EQ(imported.errors.size(), 1u) << Lines(imported.errors);
  EXPECT_EQ(imported.errors[0].find(path + ": "), 0u) << imported.errors[0];
  EXPECT_TRUE(Has(imported.errors, "is more than a workload file may hold (4MiB)")) << Lines(imported.errors);
}

// A value cut at a NUL byte would name another place: directory=a<NUL>b is refused, with its place.
TEST(FioImport, RefusesANulByte) {
  FioImport imported = ImportFioJobText(std::string("[job]\nrw=read\nsize=1m\ndirectory=a\0b\n", 36), "j.fio", false);
  EXPECT_TRUE(Has(imported.errors, "j.fio:4:12: a NUL byte: a job file is text")) << Lines(imported.errors);
}

// docs/workloads.md's table of fio options is the import's own option table: an option added to
// the import, or a row edited, without the docs following fails here.
// fio's rate, rate_iops (a cap per job), rate_process=linear, thread and timeout (runtime's alias)
// mean here what they mean to fio; what would mean something else is refused at its place.
TEST(FioImport, RatesThreadAndTimeoutMapAsFioMeansThem) {
  FioImport imp = ImportFioJobText("[global]\nsize=1g\nthread\n[a]\nrw=randread\nrate_iops=500\n[b]\nstonewall\nrw=write\n"
                                   "rate=10m\ntime_based\ntimeout=30\n[c]\nstonewall\nrw=randwrite\nrate=2m,2m\nrate_process=linear\n",
                                   "r.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 3);
  EXPECT_EQ(w.steps(0).io().rate().iops(), 500u);
  EXPECT_FALSE(w.steps(0).io().rate().has_bytes_per_sec());
  EXPECT_EQ(w.steps(1).io().rate().bytes_per_sec(), uint64_t{10} << 20);  // fio's k, m are 1024-based by default
  EXPECT_EQ(w.steps(1).io().runtime(), 30'000'000'000u);
  EXPECT_EQ(w.steps(2).io().rate().bytes_per_sec(), uint64_t{2} << 20);

  FioImport bad = ImportFioJobText("[a]\nsize=1m\nrate=1m,500k\nrate_iops=0\n", "r.fio", false);
  EXPECT_TRUE(Has(bad.errors, "r.fio:3:6: rate: \"1m,500k\": a separate cap for reads and writes is not supported")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "r.fio:4:11: rate_iops: 0 is below the minimum 1")) << Lines(bad.errors);
  // fio's rate=2m on a mixed job lets 2 MiB/s of reads and 2 MiB/s of writes through; iofleet's
  // rate would be 2 MiB/s in all. "10m," caps reads only in fio.
  FioImport mixed = ImportFioJobText(
      "[global]\nsize=1m\nrate_iops=100\n[a]\nrw=randrw\nrwmixread=70\n[b]\nstonewall\nrw=read\nrate=10m,\n", "r.fio", true);
  EXPECT_TRUE(Has(mixed.errors, "r.fio:3:1: rate_iops: on a job that mixes reads and writes 70/30: fio caps reads and writes each"))
      << Lines(mixed.errors);
  EXPECT_TRUE(Has(mixed.warnings, "r.fio:10:6: rate: \"10m,\": a separate cap for reads and writes is not supported"))
      << Lines(mixed.warnings) << Lines(mixed.errors);
  FioImport typo = ImportFioJobText("[a]\nsize=1m\nrate_process=lineer\nrate_iops=,100\n", "r.fio", false);
  EXPECT_TRUE(Has(typo.errors, "r.fio:3:14: rate_process: \"lineer\" is not linear or poisson")) << Lines(typo.errors);
  EXPECT_TRUE(Has(typo.errors, "r.fio:4:11: rate_iops: \",100\": a separate cap")) << Lines(typo.errors);
}

// fio caps each direction of a mixed job at its rate; with fio's even mix (rwmixread=50) that is
// reads and writes at the rate each, which iofleet's one cap for both says as twice the rate
// (fio's examples/exitwhat.fio: rate=300,300,300 on randrw jobs).
TEST(FioImport, ARateOnAnEvenMixIsTwiceTheRateForBothDirections) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\nrate_iops=100\n[a]\nrw=randrw\n[b]\nstonewall\nrw=randread\n", "r.fio",
                                   false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 2);
  EXPECT_EQ(w.steps(0).io().rate().iops(), 200u);  // 100 reads and 100 writes a second
  EXPECT_EQ(w.defaults().rate().iops(), 100u);     // the read job keeps [global]'s cap
  EXPECT_FALSE(w.steps(1).io().rate().has_iops());
  FioImport bytes = ImportFioJobText("[a]\nsize=1m\nrw=rw\nrwmixwrite=50\nrate=300,300,300\n", "r.fio", false);
  ASSERT_TRUE(bytes.errors.empty()) << Lines(bytes.errors);
  EXPECT_EQ(bytes.workload.steps(0).io().rate().bytes_per_sec(), 600u);

  // A minimum rate on a mixed job stays refused: fio fails when either direction falls under it.
  FioImport min = ImportFioJobText("[a]\nsize=1m\nrw=randrw\nrate_iops=100\nrate_iops_min=10\n", "r.fio", false);
  EXPECT_TRUE(Has(min.errors, "r.fio:5:1: rate_iops_min: on a job that mixes reads and writes: fio holds reads and writes each "
                              "to this minimum"))
      << Lines(min.errors);
}

// fio's examples: poisson-rate-submission.fio (rate_process, io_submit_mode), 1mbs_clients.fio
// (ratemin), fsx.fio (loops), tiobench-example.fio (bsrange), waitfor.fio (wait_for).
TEST(FioImport, PacingMinimumRatesLoopsRangesAndWaitFor) {
  FioImport imp = ImportFioJobText(
      "[global]\nsize=1m\n[p]\nrw=randread\nrate_iops=50\nrate_process=poisson\nio_submit_mode=offload\n"
      "[m]\nstonewall\nrw=read\nrate=1250\nratemin=1024\nratecycle=2000\n[l]\nstonewall\nrw=randrw\nloops=5\n"
      "[r]\nstonewall\nrw=write\nbsrange=4k-16k\n[one]\nstonewall\nrw=write\nbsrange=8k-8k\nrate_iops_min=10\n",
      "p.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 5);
  EXPECT_EQ(w.steps(0).io().rate().process(), v1::RATE_PROCESS_POISSON);
  EXPECT_EQ(w.steps(0).io().rate().iops(), 50u);
  EXPECT_EQ(w.steps(1).io().rate().min_bytes_per_sec(), 1024u);
  EXPECT_EQ(w.steps(1).io().rate().cycle(), 2'000'000'000u);
  EXPECT_EQ(w.steps(2).io().loops(), 5u);
  ASSERT_EQ(w.steps(3).io().block_size_split_size(), 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(w.steps(3).io().block_size_split(k).size(), uint64_t(k + 1) * 4096);
    EXPECT_EQ(w.steps(3).io().block_size_split(k).weight(), 1u);
  }
  EXPECT_EQ(w.steps(4).io().block_size(), 8192u);
  EXPECT_EQ(w.steps(4).io().rate().min_iops(), 10u);

  FioImport bad = ImportFioJobText(
      "[a]\nsize=1m\nrw=read\nbsrange=4k-100k\nbsrange=16k-4k\nbsrange=4k\nloops=0\nratecycle=10\nratecycle=1s\n"
      "io_submit_mode=later\nrate_process=lineer\nrate_iops_min=,5\n",
      "b.fio", false);
  EXPECT_TRUE(Has(bad.errors, "b.fio:4:9: bsrange: \"4k-100k\": a range is taken as the multiples of its smallest size"))
      << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:5:9: bsrange: \"16k-4k\": the largest size is below the smallest")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:6:9: bsrange: \"4k\" is not a range MIN-MAX")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:7:7: loops: 0 is below the minimum 1")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:8:11: ratecycle: 10 ms")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:9:11: ratecycle: \"1s\" is not a whole number of milliseconds")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:10:16: io_submit_mode: \"later\" is not inline or offload")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:11:14: rate_process: \"lineer\" is not linear or poisson")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "b.fio:12:15: rate_iops_min: \",5\": a separate cap")) << Lines(bad.errors);

  // fio's fallocate: native (its default) allocates a writing job's files first; none does not.
  FioImport falloc = ImportFioJobText("[global]\nsize=1m\nrw=write\n[a]\n[b]\nstonewall\nfallocate=none\n[c]\nstonewall\nrw=read\n",
                                      "f.fio", false);
  ASSERT_TRUE(falloc.errors.empty()) << Lines(falloc.errors);
  EXPECT_TRUE(rules::ResolveIo(falloc.workload, 0).preallocate());
  EXPECT_FALSE(rules::ResolveIo(falloc.workload, 1).preallocate());
  FioImport keep = ImportFioJobText("[a]\nsize=1m\nrw=write\nfallocate=keep\n[b]\nstonewall\nfallocate=sometimes\n", "f.fio", false);
  EXPECT_TRUE(Has(keep.errors, "f.fio:4:11: fallocate: \"keep\": allocating past the file's size")) << Lines(keep.errors);
  EXPECT_TRUE(Has(keep.errors, "f.fio:7:11: fallocate: \"sometimes\" is not native")) << Lines(keep.errors);

  FioImport io_size = ImportFioJobText("[a]\nsize=1m\nrw=randread\nio_size=3m\n[b]\nstonewall\nio_limit=50%\n", "i.fio", false);
  EXPECT_TRUE(Has(io_size.errors, "i.fio:7:10: io_limit: \"50%\": a percentage")) << Lines(io_size.errors);
  // size beside a different filesize is the amount of I/O, on whichever level each is written.
  FioImport amounts = ImportFioJobText(
      "[global]\nfilesize=1m\n[a]\nrw=randread\nsize=4m\n[b]\nstonewall\nrw=read\n[c]\nstonewall\nrw=read\nfilesize=2m\nsize=2m\n",
      "i.fio", false);
  ASSERT_TRUE(amounts.errors.empty()) << Lines(amounts.errors);
  EXPECT_EQ(rules::ResolveIo(amounts.workload, 0).file_size(), 1u << 20);
  EXPECT_EQ(amounts.workload.steps(0).io().io_size(), 4u << 20);
  EXPECT_EQ(rules::ResolveIo(amounts.workload, 1).file_size(), 1u << 20);
  EXPECT_FALSE(amounts.workload.steps(1).io().has_io_size());
  EXPECT_EQ(rules::ResolveIo(amounts.workload, 2).file_size(), 2u << 20);
  EXPECT_FALSE(amounts.workload.steps(2).io().has_io_size());
  FioImport io_ok = ImportFioJobText("[a]\nsize=1m\nrw=randread\nio_size=3m\n", "i.fio", false);
  ASSERT_TRUE(io_ok.errors.empty()) << Lines(io_ok.errors);
  EXPECT_EQ(io_ok.workload.steps(0).io().io_size(), 3u << 20);

  // Options fio has and iofleet refuses say why, with or without --allow-unsupported.
  FioImport why = ImportFioJobText("[a]\nsize=1m\nnrfiles=4\nopenfiles=2\nzonemode=zbd\nfill_device=1\n", "r.fio", false);
  EXPECT_TRUE(Has(why.errors, "r.fio:3:1: nrfiles: is not supported above 1: several files per job")) << Lines(why.errors);
  EXPECT_FALSE(Has(why.errors, "openfiles")) << Lines(why.errors);  // with one file, no effect
  EXPECT_TRUE(Has(why.errors, "r.fio:5:1: zonemode: is not supported: zoned block devices")) << Lines(why.errors);
  EXPECT_TRUE(Has(why.errors, "r.fio:6:1: fill_device: is not supported: writing until the device is full")) << Lines(why.errors);
  FioImport allowed = ImportFioJobText("[a]\nsize=1m\nnrfiles=4\n", "r.fio", true);
  EXPECT_TRUE(allowed.errors.empty()) << Lines(allowed.errors);
  EXPECT_TRUE(Has(allowed.warnings, "r.fio:3:1: nrfiles: is not supported above 1: several files per job (an iofleet job has one file); left out"))
      << Lines(allowed.warnings);
  // nrfiles=1 is fio's default: the same workload as without it, file_service_type and openfiles too.
  FioImport one = ImportFioJobText("[a]\nsize=1m\nrw=randread\nnrfiles=1\nfile_service_type=roundrobin\nopenfiles=1\n", "o.fio", false);
  ASSERT_TRUE(one.errors.empty()) << Lines(one.errors);
  EXPECT_TRUE(one.warnings.empty()) << Lines(one.warnings);
  FioImport plain = ImportFioJobText("[a]\nsize=1m\nrw=randread\n", "o.fio", false);
  EXPECT_EQ(one.workload.SerializeAsString(), plain.workload.SerializeAsString());

  FioImport unlink = ImportFioJobText("[a]\nsize=1m\nrw=write\nunlink=1\n", "u.fio", false);
  ASSERT_TRUE(unlink.errors.empty()) << Lines(unlink.errors);
  EXPECT_TRUE(unlink.workload.steps(0).io().unlink());

  // rate_process=linear is fio's default and does nothing without a rate: accepted as it was.
  FioImport linear = ImportFioJobText("[global]\nsize=1m\nrate_process=linear\n[a]\nrw=read\n", "l.fio", false);
  EXPECT_TRUE(linear.errors.empty()) << Lines(linear.errors);

  // fio runs a time-based job until its runtime, whatever its loops.
  FioImport timed = ImportFioJobText("[a]\nsize=1m\nrw=read\nloops=3\ntime_based\nruntime=5\n", "p.fio", false);
  ASSERT_TRUE(timed.errors.empty()) << Lines(timed.errors);
  EXPECT_TRUE(Has(timed.warnings, "p.fio:4:1: loops: has no effect on job [a] (loops applies to size-based steps"))
      << Lines(timed.warnings);
  EXPECT_FALSE(timed.workload.steps(0).io().has_loops());

  // waitfor.fio: each job waits for the one before it, which is all that runs: stonewalls.
  FioImport chain = ImportFioJobText(
      "[global]\nsize=1m\n[writers]\nrw=write\nnumjobs=2\n[readers]\nwait_for=writers\nrw=randread\n"
      "[again]\nwait_for=readers\nrw=randwrite\n",
      "w.fio", false);
  ASSERT_TRUE(chain.errors.empty()) << Lines(chain.errors);
  EXPECT_EQ(chain.workload.steps_size(), 3);
  EXPECT_EQ(chain.workload.steps(0).io().streams_size(), 0);
  // A wait_for that leaves another job running, or names no job, cannot be a stonewall.
  FioImport partial = ImportFioJobText(
      "[global]\nsize=1m\n[a]\nrw=write\n[b]\nrw=read\n[c]\nwait_for=a\nrw=randread\n[d]\nwait_for=nobody\nrw=read\n",
      "w.fio", false);
  EXPECT_TRUE(Has(partial.errors, "w.fio:8:10: wait_for: \"a\": fio starts this job when that job ends, while b go on"))
      << Lines(partial.errors);
  EXPECT_TRUE(Has(partial.errors, "w.fio:11:10: wait_for: \"nobody\" names no job of this file")) << Lines(partial.errors);
  FioImport global = ImportFioJobText("[global]\nwait_for=a\nsize=1m\n[a]\nrw=read\n", "w.fio", false);
  EXPECT_TRUE(Has(global.errors, "w.fio:2:1: wait_for: in [global]")) << Lines(global.errors);
}

// fio's backwards-read.fio (rw=read:-8k, 4k blocks) and a hole of N bytes (rw=write:8k).
TEST(FioImport, SequentialOffsetAddIsSkipAndBackward) {
  FioImport imp = ImportFioJobText(
      "[global]\nsize=1m\n[back]\nrw=read:-8k\n[holes]\nstonewall\nrw=write:8k\n[far]\nstonewall\nbs=8k\nrw=read:-32k\n",
      "s.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 3);
  EXPECT_TRUE(w.steps(0).io().backward());
  EXPECT_EQ(w.steps(0).io().skip(), 0u);
  EXPECT_FALSE(w.steps(1).io().backward());
  EXPECT_EQ(w.steps(1).io().skip(), 8192u);
  EXPECT_TRUE(w.steps(2).io().backward());
  EXPECT_EQ(w.steps(2).io().skip(), 16384u);  // back 32k from the end of an 8k block: two blocks between

  FioImport bad = ImportFioJobText(
      "[global]\nsize=1m\n[a]\nrw=read:-4k\n[b]\nstonewall\nrw=read:-6k\n[c]\nstonewall\nrw=randread:8\n"
      "[e]\nstonewall\nrw=read:lots\n",
      "s.fio", false);
  EXPECT_TRUE(Has(bad.errors, "s.fio:4:4: rw: goes back 4096 bytes with 4096-byte blocks: the same block over and over"))
      << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "s.fio:7:4: rw: goes back 6144 bytes with 4096-byte blocks: I/Os that overlap")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "s.fio:10:4: rw: \"randread:8\": fio's random :N")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "s.fio:13:4: rw: \"read:lots\": the part after : is not a size")) << Lines(bad.errors);
  // Validation's word on the hole, at the rw option that made it.
  FioImport odd = ImportFioJobText("[a]\nsize=1m\nrw=write:3k\n", "s.fio", false);
  EXPECT_TRUE(Has(odd.errors, "s.fio:3:4: rw: skip 3KiB is not a multiple of the block size 4KiB")) << Lines(odd.errors);
}

// thinktime in microseconds as fio reads it; fdatasync; logs at log_avg_msec are samples.csv.
TEST(FioImport, ThinkTimeFdatasyncAndLogsMapAsFioMeansThem) {
  FioImport imp = ImportFioJobText(
      "[global]\nsize=1m\nlog_avg_msec=500\n[t]\nrw=read\nthinktime=2000\nthinktime_blocks=8\nthinktime_spin=1ms\n"
      "thinktime_blocks_type=complete\nwrite_bw_log=t\n[s]\nstonewall\nrw=write\nfdatasync=16\nwrite_lat_log=s\n",
      "t.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << Lines(imp.errors);
  const v1::Workload& w = imp.workload;
  ASSERT_EQ(w.steps_size(), 2);
  EXPECT_EQ(w.steps(0).io().think().time(), 2'000'000u);
  EXPECT_EQ(w.steps(0).io().think().blocks(), 8u);
  EXPECT_EQ(w.steps(0).io().think().spin(), 1'000'000u);
  EXPECT_EQ(w.steps(1).io().fsync().every(), 16u);
  EXPECT_TRUE(w.steps(1).io().fsync().data_only());
  EXPECT_EQ(w.sample_interval(), 500'000'000u);

  FioImport bad = ImportFioJobText(
      "[a]\nsize=1m\nrw=write\nthinktime=soon\nthinktime_blocks_type=issue\nfsync=4\nfdatasync=4\nwrite_iops_log=a\n"
      "[b]\nstonewall\nrw=read\nwrite_bw_log=b\nlog_avg_msec=50\n",
      "t.fio", false);
  EXPECT_TRUE(Has(bad.errors, "t.fio:4:11: thinktime: \"soon\" is not a time")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "t.fio:5:23: thinktime_blocks_type: \"issue\": iofleet counts think blocks as they complete"))
      << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "t.fio:7:11: fdatasync: beside fsync=")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "t.fio:8:1: write_iops_log: a log of every I/O (no log_avg_msec) is not kept")) << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "t.fio:13:14: log_avg_msec: 50 ms: iofleet samples at 100 ms or more")) << Lines(bad.errors);
  FioImport two = ImportFioJobText(
      "[global]\nsize=1m\nwrite_bw_log=x\n[a]\nlog_avg_msec=200\n[b]\nstonewall\nlog_avg_msec=300\n", "t.fio", false);
  EXPECT_TRUE(Has(two.errors, "t.fio:8:14: log_avg_msec: 300 ms, where another job logs every 200 ms")) << Lines(two.errors);
}

// fio's --section: only the named job sections run, every [global] still applies, and what the
// others say is not even read (fio's examples/xnvme-compare.fio has an [override] section whose
// values come from variables that are not set unless that section is asked for).
TEST(FioImport, OnlyTheSectionsAskedForAreRead) {
  const std::string text =
      "[global]\nrw=randread\nsize=1m\nallow_file_create=0\n[default]\n[override]\nrw=${FIO_UNSET_RW}\nbs=${FIO_UNSET_BS}\n"
      "[third]\nrw=write\n";
  FioImport all = ImportFioJobText(text, "x.fio", false);
  EXPECT_TRUE(Has(all.errors, "x.fio:7:4: rw: ${FIO_UNSET_RW} is not set in the environment")) << Lines(all.errors);

  FioImportOptions only;
  only.sections = {"default"};
  FioImport one = ImportFioJobText(text, "x.fio", only);
  ASSERT_TRUE(one.errors.empty()) << Lines(one.errors);
  ASSERT_EQ(one.workload.steps_size(), 1);
  EXPECT_EQ(one.workload.steps(0).name(), "default");
  EXPECT_EQ(one.workload.defaults().op(), v1::OP_RANDREAD);
  EXPECT_NE(one.workload.description().find("only section [default] (--fio-section)"), std::string::npos)
      << one.workload.description();
  // fio's allow_file_create=0 keeps it from creating a file where a device was meant: iofleet
  // creates every run's files in a new run directory and never opens a device.
  EXPECT_TRUE(Has(one.warnings, "x.fio:4:1: allow_file_create: 0: iofleet lays out each run's files")) << Lines(one.warnings);

  // Several, in the file's order, as fio runs them.
  only.sections = {"third", "default"};
  FioImport two = ImportFioJobText(text, "x.fio", only);
  ASSERT_TRUE(two.errors.empty()) << Lines(two.errors);
  ASSERT_EQ(two.workload.steps_size(), 1);  // no stonewall: one step, a stream each
  ASSERT_EQ(two.workload.steps(0).io().streams_size(), 2);
  EXPECT_EQ(two.workload.steps(0).io().streams(0).name(), "default");
  EXPECT_EQ(two.workload.steps(0).io().streams(1).name(), "third");

  only.sections = {"default", "nosuch", "global"};
  FioImport bad = ImportFioJobText(text, "x.fio", only);
  EXPECT_TRUE(Has(bad.errors, "x.fio: --fio-section nosuch: the file has no job section [nosuch] (its job sections: default, "
                              "override, third)"))
      << Lines(bad.errors);
  EXPECT_TRUE(Has(bad.errors, "x.fio: --fio-section global: [global] is always read; name job sections")) << Lines(bad.errors);

  FioImport value = ImportFioJobText("[a]\nsize=1m\nallow_file_create=maybe\n", "v.fio", false);
  EXPECT_TRUE(Has(value.errors, "v.fio:3:19: allow_file_create: \"maybe\" is not")) << Lines(value.errors);
  FioImport yes = ImportFioJobText("[a]\nsize=1m\nallow_file_create=1\n", "v.fio", false);
  EXPECT_TRUE(yes.errors.empty() && yes.warnings.empty()) << Lines(yes.errors) << Lines(yes.warnings);
}

TEST(FioImport, TheDocsTableIsTheOptionTable) {
  std::ifstream in(std::filesystem::path(IOFLEET_SOURCE_DIR) / "docs" / "workloads.md", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string docs = text.str();
  const std::string begin = "<!-- fio-options:begin (build/bin/iofleet-field-reference --fio-options) -->\n";
  const std::string end = "<!-- fio-options:end -->";
  const size_t from = docs.find(begin), to = docs.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(docs.substr(from + begin.size(), to - from - begin.size()), FioOptionReference())
      << "docs/workloads.md's fio option table is out of date: regenerate it with\n"
         "  build/bin/iofleet-field-reference --fio-options";
  // Every option the table handles is one the import knows: a job setting it is not refused as unknown.
  for (const char* option : {"bs", "rwmixwrite", "wait_for_previous", "filesize", "end_fsync", "kb_base"}) {
    FioImport r = ImportFioJobText(std::string("[job]\nsize=1m\n") + option + "=1\n", "t.fio", false);
    for (const auto& e : r.errors) EXPECT_EQ(e.find("is not an option"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace iofleet::controller
