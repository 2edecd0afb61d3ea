#include "core/rules/planned_check.h"

#include <gtest/gtest.h>

#include <string_view>

#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"

namespace iofleet::rules {
namespace {

using namespace std::string_literals;

// One resolved io step as the planner makes it (ResolveIo over the built-in defaults, then PlanIo).
v1::PlannedStep IoStep(const std::string& name, v1::Op op) {
  v1::PlannedStep step;
  step.set_name(name);
  v1::IoSpec io = BuiltinIoDefaults();
  io.set_op(op);
  io.set_file_size(8ull << 20);
  *step.mutable_io() = io;
  return step;
}

v1::PrepareRequest Valid() {
  v1::PrepareRequest r;
  r.set_run_id("20261130-140000-ab12");
  r.set_agent_name("node1");
  r.mutable_target()->set_dir("bench");
  r.set_lease_ns(10'000'000'000);
  *r.add_steps() = IoStep("write", v1::OP_WRITE);
  *r.add_steps() = IoStep("read", v1::OP_RANDREAD);
  return r;
}

std::string All(const std::vector<Violation>& vs) {
  std::string out;
  for (const auto& v : vs) out += v.path + ": " + v.message + "\n";
  return out;
}

bool Has(const std::vector<Violation>& vs, const std::string& path, const std::string& text) {
  for (const auto& v : vs) {
    if (v.path == path && v.message.find(text) != std::string::npos) return true;
  }
  return false;
}

v1::IoSpec& Io(v1::PrepareRequest& r, int step = 0) { return *r.mutable_steps(step)->mutable_io(); }

TEST(PlannedCheck, AResolvedPlanPasses) {
  v1::PrepareRequest r = Valid();
  // Every other kind, resolved as the planner resolves it.
  v1::PlannedStep files;
  files.set_name("tree");
  v1::FilesStep f;
  f.set_dirs(4);
  f.set_files_per_dir(10);
  *files.mutable_files() = ResolveFiles(f);
  *r.add_steps() = files;
  v1::PlannedStep copy;
  copy.set_name("copy-3");
  v1::CopyStep c;
  c.set_from("tree");
  c.set_to("scratch:copy");
  *copy.mutable_copy() = ResolveCopy(c);
  *r.add_steps() = copy;
  v1::PlannedStep sync, drop, sleep, readahead, hook;
  sync.set_name("sync-4");
  sync.mutable_sync();
  drop.set_name("drop_caches-5");
  drop.mutable_drop_caches();
  sleep.set_name("sleep-6");  // the controller's own step: no kind on the wire
  readahead.set_name("readahead-7");
  readahead.mutable_readahead()->set_kib(0);
  hook.set_name("hook-8");
  hook.mutable_hook()->set_name("mkfs");
  for (const auto* s : {&sync, &drop, &sleep, &readahead, &hook}) *r.add_steps() = *s;
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  EXPECT_TRUE(CheckPrepare(r, "node1").ok());
}

// A label of the agent's metrics: the workload name's own rule, bounded; absent is fine.
TEST(PlannedCheck, WorkloadName) {
  v1::PrepareRequest r = Valid();
  r.set_workload_name("zebclient-seq64k");
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  r.clear_workload_name();
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  for (const std::string& bad : {std::string("Quick Start"), std::string("a\"b"), std::string(129, 'a')}) {
    r.set_workload_name(bad);
    EXPECT_TRUE(Has(CheckPrepareRequest(r), "workload_name", "must match [a-z0-9-]+")) << bad;
  }
}

TEST(PlannedCheck, BlockSizeZero) {
  v1::PrepareRequest r = Valid();
  Io(r).set_block_size(0);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.block_size", "0B is below the minimum 1B")) << All(vs);
}

// A flow of weight 0 from the wire would hold its job after one request for the rest of the
// step (a size-based one would never end), and a sleep of 0 would spin: both refused.
TEST(PlannedCheck, AFlowOfWeightZeroOrNoSleepIsRefused) {
  v1::PrepareRequest r = Valid();
  Io(r).mutable_flow()->set_weight(0);
  Io(r).mutable_flow()->set_sleep(0);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.flow.weight", "0 is below the minimum 1")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[0].io.flow.sleep", "is below the minimum 1us")) << All(vs);
}

// From the wire as from a file: a working set of 0% or past the range, and sharing without one.
TEST(PlannedCheck, AWorkingSetOutOfBoundsOrWithoutRepeatsIsRefused) {
  v1::PrepareRequest r = Valid();
  Io(r).mutable_data()->set_dedupe_pct(50);
  Io(r).mutable_data()->set_dedupe_working_set_pct(101);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.data.dedupe_working_set_pct", "101 is above the maximum 100")) << All(vs);
  Io(r).mutable_data()->clear_dedupe_working_set_pct();
  Io(r).mutable_data()->set_dedupe_global(true);
  vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.data.dedupe_global", "set data.dedupe_working_set_pct as well")) << All(vs);
  Io(r).mutable_data()->set_dedupe_working_set_pct(1);
  EXPECT_TRUE(CheckPrepareRequest(r).empty()) << All(CheckPrepareRequest(r));
}

TEST(PlannedCheck, AnOffsetOffABlockOrPastTheLargestFileIsRefused) {
  v1::PrepareRequest r = Valid();
  Io(r).set_offset(Io(r).block_size() + 512);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.offset", "is not a multiple of the block size")) << All(CheckPrepareRequest(r));
  Io(r).set_offset(0);
  Io(r).set_offset_increment(uint64_t{1} << 60);  // a multiple of any block size here
  Io(r).set_jobs(16);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.offset_increment", "beyond the largest file offset")) << All(CheckPrepareRequest(r));
}

TEST(PlannedCheck, BlockSizeMissing) {
  v1::PrepareRequest r = Valid();
  Io(r).clear_block_size();
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.block_size", "is missing"));
}

TEST(PlannedCheck, QueueDepthZero) {
  v1::PrepareRequest r = Valid();
  Io(r, 1).set_queue_depth(0);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[1].io.queue_depth", "0 is below the minimum 1")) << All(vs);
}

TEST(PlannedCheck, PsyncQueueDepthOfFourBillion) {
  v1::PrepareRequest r = Valid();
  Io(r).set_engine(v1::ENGINE_PSYNC);
  Io(r).set_queue_depth(4294967295u);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.queue_depth", "4294967295 is above the maximum 4096")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[0].io.queue_depth", "psync is synchronous")) << All(vs);
  // Within the bounds, psync still takes only 1.
  Io(r).set_queue_depth(2);
  vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.queue_depth", "psync is synchronous")) << All(vs);
}

TEST(PlannedCheck, AHundredThousandJobs) {
  v1::PrepareRequest r = Valid();
  Io(r).set_engine(v1::ENGINE_NULL);
  Io(r).set_jobs(100000);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.jobs", "100000 is above the maximum 4096")) << All(vs);
}

TEST(PlannedCheck, ReadPct255) {
  v1::PrepareRequest r = Valid();
  Io(r).set_op(v1::OP_RANDRW);
  Io(r).set_read_pct(255);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.read_pct", "255 is above the maximum 100"));
}

TEST(PlannedCheck, UnknownEnumValues) {
  v1::PrepareRequest r = Valid();
  Io(r).set_op(static_cast<v1::Op>(77));  // proto3 enums are open: 77 arrives as 77
  Io(r, 1).set_engine(static_cast<v1::Engine>(255));
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.op", "77 is not a known Op value")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[1].io.engine", "255 is not a known Engine value")) << All(vs);
}

TEST(PlannedCheck, OpMustBeSetForIoSteps) {
  v1::PrepareRequest r = Valid();
  Io(r).clear_op();
  Io(r, 1).set_op(v1::OP_UNSPECIFIED);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.op", "needs an op")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[1].io.op", "OP_UNSPECIFIED")) << All(vs);
}

TEST(PlannedCheck, RequiredEnumsAreSetAndSpecified) {
  v1::PrepareRequest r = Valid();
  Io(r).clear_engine();
  Io(r, 1).set_file_layout(v1::FILE_LAYOUT_UNSPECIFIED);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.engine", "is missing")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[1].io.file_layout", "FILE_LAYOUT_UNSPECIFIED")) << All(vs);
}

TEST(PlannedCheck, EmptyStepList) {
  v1::PrepareRequest r = Valid();
  r.clear_steps();
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps", "at least one step"));
}

TEST(PlannedCheck, NulInTargetDir) {
  v1::PrepareRequest r = Valid();
  r.mutable_target()->set_dir("a\0b"s);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "target.dir", "NUL")) << All(vs);
  Status st = CheckPrepare(r, "node1");
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ(st.message().find('\0'), std::string::npos) << "the answer itself carries no NUL";
}

TEST(PlannedCheck, NulAnywhereInAString) {
  v1::PrepareRequest r = Valid();
  r.mutable_steps(0)->set_name("write\0x"s);
  Io(r, 1).mutable_data()->set_pattern("ab\0cd"s);
  v1::PlannedStep hook;
  hook.set_name("hook-2");
  hook.mutable_hook()->set_name("mkfs\0rm"s);
  *r.add_steps() = hook;
  v1::PlannedStep files;
  files.set_name("files-3");
  v1::FilesStep f;
  f.set_dirs(1);
  f.set_dir("tree\0../x"s);
  *files.mutable_files() = ResolveFiles(f);
  *r.add_steps() = files;
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].name", "NUL")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[1].io.data.pattern", "NUL")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[2].hook.name", "NUL")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[3].files.dir", "NUL")) << All(vs);
}

TEST(PlannedCheck, RunIdAndAgentNameAreSinglePathComponents) {
  v1::PrepareRequest r = Valid();
  r.set_run_id("../other");
  r.set_agent_name("a/b");
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "run_id", "single path component")) << All(vs);
  EXPECT_TRUE(Has(vs, "agent_name", "single path component")) << All(vs);
  r.set_run_id("");
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "run_id", "single path component"));
  r = Valid();
  r.mutable_steps(1)->set_read_from_agent("../../etc");
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[1].read_from_agent", "single path component"));
}

TEST(PlannedCheck, EarlierRunIdsAreRunIdsAndBounded) {
  v1::PrepareRequest r = Valid();
  r.add_earlier_run_ids("20261130-130000-cd34");
  EXPECT_TRUE(CheckPrepareRequest(r).empty()) << All(CheckPrepareRequest(r));
  r.add_earlier_run_ids("../x");
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "earlier_run_ids[1]", "single path component")) << All(vs);
  r = Valid();
  for (int i = 0; i < 1025; ++i) r.add_earlier_run_ids("r" + std::to_string(i));
  vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "earlier_run_ids", "at most 1024")) << All(vs);
}

TEST(PlannedCheck, JobsTimesFileSizeOverflows) {
  v1::PrepareRequest r = Valid();
  Io(r).set_jobs(4);
  Io(r).set_file_size(1ull << 62);  // 4 x 4 EiB of per-job files: 2^64
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.file_size", "jobs x file_size: 4 x 4611686018427387904 overflows 64 bits")) << All(vs);
  // 2 x 8 EiB (item 18's 8388608TiB) wraps to 0; a file of 8 EiB is past the largest offset anyway.
  Io(r).set_jobs(2);
  Io(r).set_file_size(8388608ull << 40);
  vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.file_size", "overflows 64 bits")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[0].io.file_size", "beyond the largest file offset")) << All(vs);
}

TEST(PlannedCheck, QueueDepthTimesBlockSizeOverflows) {
  v1::PrepareRequest r = Valid();
  Io(r).set_queue_depth(4294967295u);
  Io(r).set_block_size(1ull << 40);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.queue_depth", "queue_depth x block size"));
}

TEST(PlannedCheck, RampPlusRuntimeWraps) {
  v1::PrepareRequest r = Valid();
  Io(r, 1).set_runtime(~0ull);
  Io(r, 1).set_ramp(5);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[1].io.runtime", "292 years"));
}

// Null engine, shared file, total_jobs 2 (so one job on this agent), 64KiB file,
// 1MiB blocks: the job's range holds no block and its worker spun forever.
TEST(PlannedCheck, EveryJobGetsABlock) {
  v1::PrepareRequest r = Valid();
  Io(r).set_engine(v1::ENGINE_NULL);
  Io(r).set_file_layout(v1::FILE_LAYOUT_SHARED);
  Io(r).set_file_size(64 << 10);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.file_size", "file_size 64KiB is smaller than the block size 1MiB")) << All(vs);
  // Two jobs sharing three blocks' worth: each gets one; sharing one block, one would get none.
  Io(r).set_jobs(2);
  Io(r).set_file_size(3 << 20);
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  Io(r).set_file_size(1 << 20);
  vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.file_size", "file_size 1MiB is smaller than 2 jobs x the block size 1MiB")) << All(vs);
}

TEST(PlannedCheck, SharedGlobalJobIndexes) {
  v1::PrepareRequest r = Valid();
  Io(r).set_file_layout(v1::FILE_LAYOUT_SHARED_GLOBAL);
  Io(r).set_jobs(2);
  Io(r).set_file_size(8 << 20);
  r.mutable_steps(0)->set_global_first_job(2);
  r.mutable_steps(0)->set_global_jobs(4);
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  r.mutable_steps(0)->set_global_first_job(3);  // jobs 3 and 4 of 0..3
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].global_first_job", "do not fit among the run's 4 jobs"));
  r.mutable_steps(0)->set_global_first_job(4294967295u);  // the sum wraps
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].global_first_job", "do not fit"));
  r.mutable_steps(0)->set_global_first_job(0);
  r.mutable_steps(0)->set_global_jobs(0);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].global_jobs", "is 0"));
  // 9 jobs in all share 8 blocks: some job gets none.
  r.mutable_steps(0)->set_global_jobs(9);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.file_size", "smaller than 9 jobs x the block size 1MiB"));
}

TEST(PlannedCheck, TotalsAreSpreadBeforeTheWire) {
  v1::PrepareRequest r = Valid();
  Io(r).set_total_jobs(4);
  Io(r, 1).set_total_size(1 << 30);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.total_jobs", "spreads total_jobs")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[1].io.total_size", "turns total_size")) << All(vs);
}

// total_jobs below the agent count leaves some agents without a job: they sit the step out.
TEST(PlannedCheck, AnAgentWithoutAJobSitsTheStepOut) {
  v1::PrepareRequest r = Valid();
  Io(r).set_jobs(0);
  Io(r).set_file_layout(v1::FILE_LAYOUT_SHARED);
  Io(r).set_file_size(0);  // a shared file of no job's share
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  Io(r).set_block_size(0);  // still no division by zero
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.block_size", "below the minimum"));
}

TEST(PlannedCheck, PerStepRulesOfTheController) {
  v1::PrepareRequest r = Valid();
  Io(r).set_block_size(1000);  // direct by default
  Io(r, 1).set_verify(true);
  Io(r, 1).set_engine(v1::ENGINE_NULL);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.block_size", "multiple of 512")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[1].io.verify", "null engine")) << All(vs);
}

TEST(PlannedCheck, NestedBoundsAreFound) {
  v1::PrepareRequest r = Valid();
  auto* split = Io(r).add_block_size_split();
  split->set_size(4096);
  split->set_weight(1);
  split = Io(r).add_block_size_split();
  split->set_size(0);
  split->set_weight(0);
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[0].io.block_size_split[1].size", "below the minimum")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[0].io.block_size_split[1].weight", "below the minimum")) << All(vs);
  Io(r).mutable_data()->set_compressible_pct(101);
  EXPECT_TRUE(Has(CheckPrepareRequest(r), "steps[0].io.data.compressible_pct", "above the maximum 100"));
}

TEST(PlannedCheck, FilesAndCopyFieldsInRange) {
  v1::PrepareRequest r = Valid();
  v1::PlannedStep files;
  files.set_name("files-2");
  files.mutable_files()->set_dir("tree");
  files.mutable_files()->add_ops(static_cast<v1::FilesOp>(99));
  files.mutable_files()->set_file_size(0);
  *r.add_steps() = files;  // dirs, jobs, block_size 0
  v1::PlannedStep copy;
  copy.set_name("copy-3");
  copy.mutable_copy()->set_from("../etc");
  copy.mutable_copy()->set_to("dst");
  copy.mutable_copy()->set_block_size(100);
  *r.add_steps() = copy;  // jobs 0
  v1::PlannedStep empty_files;
  empty_files.set_name("files-4");
  empty_files.mutable_files()->set_dirs(1);
  *r.add_steps() = empty_files;
  auto vs = CheckPrepareRequest(r);
  EXPECT_TRUE(Has(vs, "steps[2].files.dirs", "0 is below the minimum 1")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[2].files.jobs", "0 is below the minimum 1")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[2].files.block_size", "below the minimum")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[2].files.ops[0]", "99 is not a known FilesOp value")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[3].copy.jobs", "0 is below the minimum 1")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[3].copy.block_size", "100B is below the minimum 4KiB")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[3].copy.from", "relative path")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[4].files.dir", "is empty")) << All(vs);
  EXPECT_TRUE(Has(vs, "steps[4].files.ops", "is empty")) << All(vs);
}

TEST(PlannedCheck, TheAnswerNamesTheAgentTheStepAndTheField) {
  v1::PrepareRequest r = Valid();
  Io(r, 1).set_queue_depth(0);
  Status st = CheckPrepare(r, "node7");
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "agent node7: refused plan: steps[1].io.queue_depth (step read): 0 is below the minimum 1");
}

TEST(PlannedCheck, TheAnswerStaysShort) {
  v1::PrepareRequest r = Valid();
  for (int i = 0; i < 1000; ++i) *r.add_steps() = IoStep("x" + std::to_string(i), static_cast<v1::Op>(77));
  Status st = CheckPrepare(r, "node1");
  EXPECT_LT(st.message().size(), 4000u);
  EXPECT_NE(st.message().find("\nagent node1: refused plan: and 980 more"), std::string::npos) << st.message();
}

// A planned step with streams cut into windows (issue 22) holds the cut at the step and a copy
// in every stream: a stream cut otherwise, late, or too many jobs to snapshot are refused.
TEST(PlannedCheck, AStepWithStreamsIsCutAsOne) {
  v1::PrepareRequest r = Valid();
  v1::IoSpec step;
  step.set_runtime(10'000'000'000);
  step.set_ramp(0);
  step.mutable_steady()->set_window(3'000'000'000);
  for (const char* name : {"a", "b"}) {
    v1::IoSpec stream = IoStep("io", v1::OP_RANDREAD).io();
    stream.set_name(name);
    stream.set_runtime(step.runtime());
    stream.set_ramp(0);
    *stream.mutable_steady() = step.steady();
    if (stream.has_deadline()) step.set_deadline(stream.deadline());
    if (stream.has_stonewall()) step.set_stonewall(stream.stonewall());
    *step.add_streams() = stream;
  }
  Io(r, 1) = step;
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  v1::PrepareRequest bad = r;
  Io(bad, 1).mutable_streams(1)->mutable_steady()->set_window(4'000'000'000);
  EXPECT_TRUE(Has(CheckPrepareRequest(bad), "steps[1].io.streams[1]", "cut into windows otherwise than its step")) << All(CheckPrepareRequest(bad));
  bad = r;
  Io(bad, 1).mutable_streams(0)->clear_steady();
  EXPECT_TRUE(Has(CheckPrepareRequest(bad), "steps[1].io.streams[0]", "cut into windows otherwise than its step"));
  bad = r;
  Io(bad, 1).mutable_streams(0)->set_start_delay(1'000'000);
  EXPECT_TRUE(Has(CheckPrepareRequest(bad), "steps[1].io.streams[0].start_delay", "delays a stream")) << All(CheckPrepareRequest(bad));
  bad = r;
  Io(bad, 1).mutable_streams(0)->set_jobs(200);
  Io(bad, 1).mutable_streams(1)->set_jobs(57);
  EXPECT_TRUE(Has(CheckPrepareRequest(bad), "steps[1].io.streams", "257 jobs in a step cut into windows")) << All(CheckPrepareRequest(bad));
}

// A depth search over streams names the stream it searches; a plan that names none, one the
// step does not have, or one without streams is refused.
TEST(PlannedCheck, ADepthSearchOverStreamsNamesTheStreamSearched) {
  v1::PrepareRequest r = Valid();
  v1::IoSpec step;
  step.set_runtime(60'000'000'000);
  step.set_ramp(0);
  v1::TargetLatency& t = *step.mutable_target_latency();
  t.set_max_latency(1'000'000);
  t.set_vary(v1::SEARCH_VARY_QUEUE_DEPTH);
  t.set_stream("a");
  for (const char* name : {"a", "b"}) {
    v1::IoSpec stream = IoStep("io", v1::OP_RANDREAD).io();
    stream.set_name(name);
    stream.set_runtime(step.runtime());
    stream.set_ramp(0);
    stream.set_engine(v1::ENGINE_LIBAIO);
    stream.set_queue_depth(8);
    *stream.mutable_target_latency() = t;
    if (stream.has_deadline()) step.set_deadline(stream.deadline());
    if (stream.has_stonewall()) step.set_stonewall(stream.stonewall());
    *step.add_streams() = stream;
  }
  Io(r, 1) = step;
  EXPECT_EQ(All(CheckPrepareRequest(r)), "");
  auto naming = [&](const char* stream) {
    v1::PrepareRequest bad = r;
    v1::IoSpec& io = Io(bad, 1);
    for (v1::TargetLatency* each : {io.mutable_target_latency(), io.mutable_streams(0)->mutable_target_latency(),
                                    io.mutable_streams(1)->mutable_target_latency()}) {
      if (stream) each->set_stream(stream);
      else each->clear_stream();
    }
    return CheckPrepareRequest(bad);
  };
  EXPECT_TRUE(Has(naming(nullptr), "steps[1].io.target_latency.stream", "is missing")) << All(naming(nullptr));
  EXPECT_TRUE(Has(naming("c"), "steps[1].io.target_latency.stream", "\"c\" is not one of the step's streams")) << All(naming("c"));
  v1::PrepareRequest alone = Valid();
  Io(alone, 1).set_runtime(60'000'000'000);
  Io(alone, 1).set_engine(v1::ENGINE_LIBAIO);
  Io(alone, 1).set_queue_depth(8);
  *Io(alone, 1).mutable_target_latency() = t;
  EXPECT_TRUE(Has(CheckPrepareRequest(alone), "steps[1].io.target_latency.stream", "the step has no streams")) << All(CheckPrepareRequest(alone));
}

}  // namespace
}  // namespace iofleet::rules
