#include "core/rules/validate.h"

#include <gtest/gtest.h>

#include "core/rules/defaults.h"
#include "tests/support/violations.h"

namespace iofleet::rules {
namespace {

v1::Workload Minimal() {
  v1::Workload w;
  w.set_name("t");
  w.add_steps()->mutable_io()->set_op(v1::OP_WRITE);
  return w;
}

TEST(Validate, MinimalWorkloadIsValid) { EXPECT_TRUE(Validate(Minimal()).empty()); }

TEST(Validate, ReportsEveryViolation) {
  v1::Workload w = Minimal();
  w.set_name("Bad Name");
  w.mutable_target()->set_dir("../outside");
  w.add_steps();  // no kind
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "name", "[a-z0-9-]+"));
  EXPECT_TRUE(HasViolation(vs, "target.dir", "relative path"));
  EXPECT_TRUE(HasViolation(vs, "steps[1]", "needs a kind"));
}

TEST(Validate, ErrorsPointAtWhereTheFieldWasSet) {
  v1::Workload w = Minimal();
  w.mutable_defaults()->set_block_size(1000);  // direct by default: not a multiple of 512
  w.mutable_steps(0)->mutable_io()->set_file_size(999);
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "defaults.block_size", "multiple of 512"));
  w.mutable_defaults()->set_direct(false);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.file_size", "smaller than the block size"));
}

// A step's own files are named by a plain prefix; nothing else reaches a file name.
TEST(Validate, FilePrefixIsAPlainName) {
  v1::Workload w = Minimal();
  w.mutable_steps(0)->mutable_io()->set_file_prefix("64kseqread");
  EXPECT_TRUE(Validate(w).empty());
  for (const char* bad : {"", "../x", "a/b", "a b", "x.dat"}) {
    w.mutable_steps(0)->mutable_io()->set_file_prefix(bad);
    EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.file_prefix", "not a file name prefix")) << bad;
  }
}

// A working set serves dedupe_pct's repeats, and dedupe_global shares a working set: each
// without the other does nothing, and is refused where it was written.
TEST(Validate, AWorkingSetNeedsRepeatsAndSharingNeedsASet) {
  v1::Workload w = Minimal();
  v1::DataSpec* data = w.mutable_steps(0)->mutable_io()->mutable_data();
  data->set_dedupe_pct(50);
  data->set_dedupe_working_set_pct(50);
  data->set_dedupe_global(true);
  EXPECT_TRUE(Validate(w).empty());
  data->set_dedupe_pct(0);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.data.dedupe_working_set_pct", "set data.dedupe_pct as well"));
  data->set_dedupe_pct(50);
  data->clear_dedupe_working_set_pct();
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.data.dedupe_global", "set data.dedupe_working_set_pct as well"));
  data->set_dedupe_working_set_pct(60);  // 60% unique chunks cannot leave 50% repeats (fio refuses it too)
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.data.dedupe_working_set_pct", "dedupe_pct 50 cannot be reached"));
  data->set_dedupe_working_set_pct(50);
  EXPECT_TRUE(Validate(w).empty());
  w.mutable_steps(0)->mutable_io()->set_verify(true);  // verify headers make every chunk unique
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.verify", "dedupe_pct needs verify: false"));
}

// offset and offset_increment lie on block boundaries, and the last job's range within the
// largest file offset.
TEST(Validate, OffsetsAreWholeBlocksAndTheLastRangeFits) {
  v1::Workload w = Minimal();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  io.set_block_size(64 << 10);
  io.set_jobs(4);
  io.set_offset(1 << 20);
  io.set_offset_increment(256 << 20);
  EXPECT_TRUE(Validate(w).empty());
  io.set_offset(1000);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.offset", "is not a multiple of the block size 64KiB"));
  io.set_offset(0);
  io.set_offset_increment(4096);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.offset_increment", "is not a multiple of the block size 64KiB"));
  io.set_offset_increment(uint64_t{1} << 62);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.offset_increment", "beyond the largest file offset"));
  io.set_offset_increment(0);
  io.set_offset(uint64_t{1} << 63);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.offset", "beyond the largest file offset"));
}

TEST(JobFileName, DefaultNamesStayAndAPrefixGivesFilesOfTheirOwn) {
  v1::IoSpec io = BuiltinIoDefaults();
  EXPECT_EQ(JobFileName(io, 3), "job-3.dat");
  io.set_file_layout(v1::FILE_LAYOUT_SHARED);
  EXPECT_EQ(JobFileName(io, 3), "shared.dat");
  io.set_file_prefix("read");
  EXPECT_EQ(JobFileName(io, 3), "read-shared.dat");
  io.set_file_layout(v1::FILE_LAYOUT_PER_JOB);
  EXPECT_EQ(JobFileName(io, 3), "read-3.dat");
}

TEST(Validate, StepNeedsOpAndUniqueNames) {
  v1::Workload w = Minimal();
  w.add_steps()->mutable_io();
  w.mutable_steps(0)->set_name("io-1");  // collides with the default name of steps[1]
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[1].io", "needs an op"));
  EXPECT_TRUE(HasViolation(vs, "steps[1].name", "used twice"));
}

TEST(Validate, FieldsWithoutEffectAreErrors) {
  v1::Workload w = Minimal();
  w.mutable_steps(0)->mutable_io()->set_read_pct(70);  // a pure write step
  w.mutable_defaults()->mutable_uring()->set_fixed_buffers(true);  // no step uses io_uring
  w.mutable_defaults()->set_ramp(5);  // no step is time-based
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.read_pct", "has no effect here: read_pct applies to readwrite and randrw"));
  EXPECT_TRUE(HasViolation(vs, "defaults.uring", "has no effect on any step"));
  EXPECT_TRUE(HasViolation(vs, "defaults.ramp", "time-based"));
  // The same defaults are fine once some step uses them.
  v1::Step* timed = w.add_steps();
  timed->mutable_io()->set_op(v1::OP_RANDRW);
  timed->mutable_io()->set_engine(v1::ENGINE_IO_URING);
  timed->mutable_io()->set_runtime(1'000'000'000);
  w.mutable_steps(0)->mutable_io()->clear_read_pct();
  EXPECT_TRUE(Validate(w).empty());
}

TEST(Validate, ExclusivePairsAndVerifyRules) {
  v1::Workload w = Minimal();
  w.mutable_defaults()->set_file_size(1 << 20);
  w.mutable_defaults()->set_total_size(1 << 30);
  w.mutable_steps(0)->mutable_io()->mutable_rate()->set_iops(10);
  w.mutable_steps(0)->mutable_io()->mutable_rate()->set_bytes_per_sec(10);
  w.mutable_steps(0)->mutable_io()->set_verify(true);
  w.mutable_steps(0)->mutable_io()->set_engine(v1::ENGINE_NULL);
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "defaults.total_size", "not both"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.rate", "not both"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.verify", "null engine"));
}

// A rate's process, cycle and minimum each mean something only beside another part, and a
// minimum above the cap is a step that must fail; loops is a size-based step's.
TEST(Validate, RateMinimumsProcessCycleAndLoops) {
  v1::Workload w = Minimal();
  v1::RateSpec& rate = *w.mutable_steps(0)->mutable_io()->mutable_rate();
  rate.set_process(v1::RATE_PROCESS_POISSON);
  rate.set_cycle(500'000'000);
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.rate.process", "set rate.bytes_per_sec or rate.iops as well"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.rate.cycle", "set rate.min_bytes_per_sec or rate.min_iops as well"));
  rate.set_iops(100);
  rate.set_min_iops(200);
  rate.set_min_bytes_per_sec(1);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.rate", "set rate.min_bytes_per_sec or rate.min_iops, not both"));
  rate.clear_min_bytes_per_sec();
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.rate.min_iops", "200 is above the cap rate.iops 100"));
  rate.set_min_iops(50);
  EXPECT_TRUE(Validate(w).empty());
  rate.clear_iops();
  rate.set_bytes_per_sec(1 << 20);
  rate.clear_min_iops();
  rate.set_min_bytes_per_sec(2 << 20);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.rate.min_bytes_per_sec", "2MiB/s is above the cap rate.bytes_per_sec 1MiB/s"));
  // A step's minimum replaces the defaults' other one.
  v1::IoSpec base = BuiltinIoDefaults();
  v1::IoSpec over;
  base.mutable_rate()->set_min_iops(5);
  over.mutable_rate()->set_min_bytes_per_sec(4096);
  Overlay(base, over);
  EXPECT_FALSE(base.rate().has_min_iops());

  v1::Workload loops = Minimal();
  loops.mutable_steps(0)->mutable_io()->set_loops(3);
  EXPECT_TRUE(Validate(loops).empty());
  EXPECT_EQ(ResolveIo(loops, 0).loops(), 3u);
  EXPECT_EQ(ResolveIo(Minimal(), 0).loops(), 1u);
  loops.mutable_steps(0)->mutable_io()->set_io_size(1ull << 63);
  EXPECT_TRUE(HasViolation(Validate(loops), "steps[0].io.io_size", "io_size x loops is beyond 2^64 bytes"));
  loops.mutable_steps(0)->mutable_io()->set_io_size(1 << 20);
  EXPECT_TRUE(Validate(loops).empty());
  loops.mutable_steps(0)->mutable_io()->set_runtime(1'000'000'000);
  EXPECT_TRUE(HasViolation(Validate(loops), "steps[0].io.loops", "loops applies to size-based steps"));
  EXPECT_TRUE(HasViolation(Validate(loops), "steps[0].io.io_size", "io_size applies to size-based steps"));
}

// job_end: a job ends others when it finishes its share, which a time-based job has not: it runs
// until its time is up.
TEST(Validate, JobEndIsForSizeBasedSteps) {
  v1::Workload w = Minimal();
  EXPECT_EQ(ResolveIo(w, 0).job_end(), v1::JOB_END_JOB);
  w.mutable_steps(0)->mutable_io()->set_job_end(v1::JOB_END_STEP);
  EXPECT_TRUE(Validate(w).empty());
  EXPECT_EQ(ResolveIo(w, 0).job_end(), v1::JOB_END_STEP);
  w.mutable_steps(0)->mutable_io()->set_runtime(1'000'000'000);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.job_end", "job_end applies to size-based steps (runtime 0)"));
}

TEST(Validate, UnlinkIsForAnAgentsOwnFiles) {
  v1::Workload w = Minimal();
  w.mutable_steps(0)->mutable_io()->set_unlink(true);
  EXPECT_TRUE(Validate(w).empty());
  w.mutable_steps(0)->mutable_io()->set_file_layout(v1::FILE_LAYOUT_SHARED_GLOBAL);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.unlink", "not to one every agent shares"));
  w.mutable_steps(0)->mutable_io()->set_file_layout(v1::FILE_LAYOUT_PER_JOB);
  w.mutable_steps(0)->mutable_io()->set_engine(v1::ENGINE_NULL);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.unlink", "the null engine has no files"));
}

TEST(Validate, AFlowNeedsItsWeight) {
  v1::Workload w = Minimal();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  io.mutable_flow()->set_id(3);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.flow", "set flow.weight as well"));
  io.mutable_flow()->set_weight(2);
  EXPECT_TRUE(Validate(w).empty());  // (the bounds are the loader's: BadInput.FlowFieldsAreRefusedWhereWritten)
}

TEST(Validate, ThinkSkipAndBackward) {
  v1::Workload w = Minimal();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  io.mutable_think()->set_blocks(4);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.think", "set think.time as well"));
  io.mutable_think()->set_time(1'000'000);
  io.mutable_think()->set_spin(2'000'000);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.think.spin", "2ms is longer than think.time 1ms"));
  io.mutable_think()->set_spin(500'000);
  EXPECT_TRUE(Validate(w).empty());
  io.set_block_size(4096);
  io.set_skip(6144);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.skip", "6KiB is not a multiple of the block size 4KiB"));
  io.set_skip(8192);
  io.set_backward(true);
  EXPECT_TRUE(Validate(w).empty());
  io.set_op(v1::OP_RANDWRITE);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.skip", "skip applies to sequential ops"));
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.backward", "backward applies to sequential ops"));
}

TEST(Defaults, OverlayReplacesListsAndExclusivePairs) {
  v1::IoSpec base = BuiltinIoDefaults();
  v1::IoSpec defaults;
  defaults.set_total_size(1ull << 30);
  defaults.add_block_size_split()->set_size(4096);
  Overlay(base, defaults);
  EXPECT_FALSE(base.has_file_size());
  v1::IoSpec step;
  auto* split = step.add_block_size_split();
  split->set_size(65536);
  split->set_weight(1);
  step.set_file_size(1 << 20);
  Overlay(base, step);
  ASSERT_EQ(base.block_size_split_size(), 1);
  EXPECT_EQ(base.block_size_split(0).size(), 65536u);
  EXPECT_FALSE(base.has_total_size());
  EXPECT_EQ(base.file_size(), 1u << 20);
}

TEST(Defaults, PlanSplitsTotalSizeOverAllJobsOnAllAgents) {
  v1::IoSpec io = BuiltinIoDefaults();
  io.clear_file_size();
  io.set_total_size(512ull << 30);  // the IOzone seed: 512 GiB over all threads
  io.set_jobs(4);
  auto planned = PlanIo(io, 16);  // 4 jobs on each of 4 agents
  ASSERT_TRUE(planned.ok());
  EXPECT_EQ(planned->file_size(), 32ull << 30);
  io.set_file_layout(v1::FILE_LAYOUT_SHARED);
  planned = PlanIo(io, 16);
  ASSERT_TRUE(planned.ok());
  EXPECT_EQ(planned->file_size(), 128ull << 30);  // one shared file per agent, 4 shares
  io.set_total_size(1 << 20);
  EXPECT_FALSE(PlanIo(io, 16).ok());
}

TEST(Validate, PathHelpers) {
  EXPECT_TRUE(IsSinglePathComponent("run-1_a.b"));
  EXPECT_FALSE(IsSinglePathComponent(".."));
  EXPECT_FALSE(IsSinglePathComponent("a/b"));
  EXPECT_FALSE(IsSinglePathComponent(""));
  EXPECT_TRUE(IsConfinedRelativePath("a/b/c"));
  EXPECT_TRUE(IsConfinedRelativePath(""));
  EXPECT_FALSE(IsConfinedRelativePath("/abs"));
  EXPECT_FALSE(IsConfinedRelativePath("a/../b"));
  EXPECT_FALSE(IsConfinedRelativePath("a//b"));
  EXPECT_FALSE(IsConfinedRelativePath("a/"));
}

TEST(Defaults, ResolveLayersBuiltinDefaultsStep) {
  v1::Workload w = Minimal();
  w.mutable_defaults()->set_jobs(4);
  w.mutable_steps(0)->mutable_io()->set_block_size(4096);
  v1::IoSpec io = ResolveIo(w, 0);
  EXPECT_EQ(io.jobs(), 4u);
  EXPECT_EQ(io.block_size(), 4096u);
  EXPECT_EQ(io.engine(), v1::ENGINE_LIBAIO);
  EXPECT_TRUE(io.direct());
  EXPECT_EQ(io.file_size(), 1ull << 30);
  EXPECT_EQ(StepName(w, 0), "io-0");
}

TEST(Validate, IoUringTakesNoSubmitBatch) {
  v1::Workload w = Minimal();
  w.mutable_steps(0)->mutable_io()->set_engine(v1::ENGINE_IO_URING);
  w.mutable_steps(0)->mutable_io()->set_queue_depth(8);
  w.mutable_steps(0)->mutable_io()->set_submit_batch(4);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.submit_batch", "io_uring hands staged requests to the kernel"));
  w.mutable_steps(0)->mutable_io()->set_engine(v1::ENGINE_LIBAIO);
  EXPECT_TRUE(Validate(w).empty());
}

// The check used slot x jobs, and jobs is 0 under total_jobs, so a shared file
// smaller than one block passed (and the agent's worker spun forever on it).
TEST(Validate, TotalJobsSharedFileHoldsABlock) {
  v1::Workload w = Minimal();
  w.mutable_defaults()->set_engine(v1::ENGINE_NULL);
  w.mutable_defaults()->set_file_layout(v1::FILE_LAYOUT_SHARED);
  w.mutable_defaults()->set_total_jobs(2);
  w.mutable_defaults()->set_file_size(64 << 10);
  w.mutable_defaults()->set_block_size(1 << 20);
  w.mutable_steps(0)->mutable_io()->set_op(v1::OP_RANDREAD);
  w.mutable_steps(0)->mutable_io()->set_runtime(1'000'000'000);
  EXPECT_TRUE(HasViolation(Validate(w), "defaults.file_size", "smaller than the block size 1MiB"));
  // A global file is shared by total_jobs jobs in all: each needs its block.
  w.mutable_defaults()->set_file_layout(v1::FILE_LAYOUT_SHARED_GLOBAL);
  w.mutable_defaults()->set_file_size(1 << 20);
  EXPECT_TRUE(HasViolation(Validate(w), "defaults.file_size", "smaller than 2 jobs x the block size 1MiB"));
  w.mutable_defaults()->set_file_size(2 << 20);
  EXPECT_TRUE(Validate(w).empty());
  // total_size is split over total_jobs jobs in all.
  w.mutable_defaults()->clear_file_size();
  w.mutable_defaults()->set_total_size(1 << 20);
  EXPECT_TRUE(HasViolation(Validate(w), "defaults.total_size", "smaller than one block per job"));
}

TEST(Validate, NulInTargetDirIsRefused) {
  v1::Workload w = Minimal();
  w.mutable_target()->set_dir(std::string("a\0b", 3));
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "target.dir", "NUL"));
  EXPECT_FALSE(IsConfinedRelativePath(std::string("a\0b", 3)));
}

TEST(Validate, SizesAndDurationsFitIn64Bits) {
  v1::Workload w = Minimal();
  w.mutable_defaults()->set_jobs(2);
  w.mutable_defaults()->set_file_size(8388608ull << 40);  // 2 x 8 EiB wrapped to 0 in the agent's preflight
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "defaults.file_size", "jobs x file_size: 2 x 9223372036854775808 overflows 64 bits"));
  EXPECT_TRUE(HasViolation(vs, "defaults.file_size", "beyond the largest file offset"));
  w = Minimal();
  w.mutable_steps(0)->mutable_io()->set_runtime(~0ull - 10);
  w.mutable_steps(0)->mutable_io()->set_ramp(20);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.runtime", "292 years"));
}

// A step of two streams: a QD1 random-read probe beside sequential writes.
v1::Workload TwoStreams() {
  v1::Workload w;
  w.set_name("t");
  w.mutable_defaults()->set_file_size(1 << 20);
  v1::IoSpec& io = *w.add_steps()->mutable_io();
  io.set_runtime(1'000'000'000);
  io.set_block_size(4096);
  v1::IoSpec& probe = *io.add_streams();
  probe.set_name("probe");
  probe.set_op(v1::OP_RANDREAD);
  v1::IoSpec& load = *io.add_streams();
  load.set_name("load");
  load.set_op(v1::OP_WRITE);
  load.set_queue_depth(16);
  load.set_file_prefix("load");
  return w;
}

TEST(ValidateStreams, AStepOfStreamsIsValidAndEachStreamResolvesOverTheStep) {
  const v1::Workload w = TwoStreams();
  EXPECT_TRUE(Validate(w).empty()) << Describe(Validate(w));
  const v1::IoSpec io = ResolveIo(w, 0);
  ASSERT_EQ(io.streams_size(), 2);
  EXPECT_EQ(io.streams(0).block_size(), 4096u);     // the step's
  EXPECT_EQ(io.streams(0).file_size(), 1u << 20);   // the defaults'
  EXPECT_EQ(io.streams(0).runtime(), 1'000'000'000u);  // the step's window is every stream's
  EXPECT_EQ(io.streams(1).queue_depth(), 16u);      // its own
  EXPECT_EQ(io.streams(0).queue_depth(), 1u);
  EXPECT_EQ(io.streams(1).name(), "load");
  EXPECT_EQ(io.streams(0).streams_size(), 0);
}

TEST(ValidateStreams, RefusesWhatAStreamCannotSay) {
  v1::Workload w = TwoStreams();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  io.mutable_streams(0)->set_runtime(5);
  io.mutable_streams(1)->set_name("probe");
  io.mutable_streams(1)->add_streams()->set_name("x");
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[0].runtime", "is the step's")) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].name", "used twice")) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].streams", "do not nest")) << Describe(vs);

  w = TwoStreams();
  w.mutable_steps(0)->mutable_io()->mutable_streams(0)->clear_name();
  w.mutable_steps(0)->mutable_io()->mutable_streams(1)->set_name("Load");
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[0]", "needs a name")) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].name", "[a-z0-9_-]+")) << Describe(vs);

  w = TwoStreams();
  *w.mutable_defaults()->add_streams() = w.steps(0).io().streams(0);
  w.mutable_steps(0)->mutable_io()->mutable_streams(1)->set_file_layout(v1::FILE_LAYOUT_SHARED_GLOBAL);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "defaults.streams", "a step's io")) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].file_layout", "not available in a stream")) << Describe(vs);

  w = TwoStreams();
  w.mutable_steps(0)->mutable_io()->set_name("x");
  w.mutable_steps(0)->mutable_io()->clear_streams();
  w.mutable_steps(0)->mutable_io()->set_op(v1::OP_READ);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.name", "names a stream"));
}

TEST(ValidateStreams, ErrorsPointAtTheStreamTheStepOrTheDefaults) {
  v1::Workload w = TwoStreams();
  w.mutable_steps(0)->mutable_io()->mutable_streams(1)->set_block_size(1000);  // not a multiple of 512
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].block_size", "multiple of 512")) << Describe(vs);
  w = TwoStreams();
  w.mutable_steps(0)->mutable_io()->set_block_size(1000);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.block_size", "multiple of 512")) << Describe(vs);
  // A step's field no stream uses has no effect: read_pct on a read and a write stream.
  w = TwoStreams();
  w.mutable_steps(0)->mutable_io()->set_read_pct(70);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.read_pct", "has no effect on any stream")) << Describe(vs);
}

TEST(ValidateStreams, AVerifyingReaderMayNotReadWhatAnotherStreamWritesMeanwhile) {
  v1::Workload w = TwoStreams();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  io.mutable_streams(0)->set_verify(true);
  EXPECT_TRUE(Validate(w).empty()) << Describe(Validate(w));  // the writer has files of its own
  io.mutable_streams(1)->clear_file_prefix();
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[0].verify", "which stream load writes at the same time")) << Describe(vs);
}

TEST(ValidateStreams, AtMost64) {
  v1::Workload w = TwoStreams();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  for (int k = 2; k <= kMaxStreams; ++k) {
    v1::IoSpec& s = *io.add_streams();
    s.set_name("s" + std::to_string(k));
    s.set_op(v1::OP_READ);
  }
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.streams", "at most 64"));
}

TEST(Validate, ADistributionIsFiosTextAndOnlyForRandomOps) {
  v1::Workload w = Minimal();
  v1::IoSpec& io = *w.mutable_steps(0)->mutable_io();
  io.set_op(v1::OP_RANDREAD);
  io.set_distribution("zipf:1.2");
  io.set_seed(42);
  EXPECT_TRUE(Validate(w).empty()) << Describe(Validate(w));
  io.set_distribution("zipf:1");
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.distribution", "zipf theta must not be 1")) << Describe(Validate(w));
  io.set_distribution("gauss:3");
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.distribution", "not a distribution")) << Describe(Validate(w));
  io.set_distribution("pareto:0.3");
  io.set_random(v1::RANDOM_ORDER_UNIFORM);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.random", "draws with repeats")) << Describe(Validate(w));
  io.clear_random();
  io.set_op(v1::OP_READ);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.distribution", "applies to random ops")) << Describe(Validate(w));
}

}  // namespace
}  // namespace iofleet::rules
