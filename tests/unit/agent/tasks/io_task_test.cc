// An io step's task on its own, driven through its StartGate as StepRunner drives it: what it
// measures around the step rather than guesses (the page cache residency of a read step's data
// just before it starts), the data it writes, and the files a read step lays out and reads.
#include "agent/tasks/io_task.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <vector>
#include <zlib.h>

#include "core/base/clock.h"
#include "core/rules/defaults.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kIoFileBytes = 8 << 20;

class IoTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    auto roots = Roots::Open({(tmp_ / "root").string()});
    ASSERT_TRUE(roots.ok()) << roots.status().message();
    roots_ = std::make_unique<Roots>(std::move(*roots));
    auto ws = Workspace::Create(*roots_->Find("default"), "", "run-1", "node1");
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    ws_ = *ws;
  }

  IoPlan Io(uint32_t step_index, v1::Op op, bool direct) {
    IoPlan c;
    c.step_index = step_index;
    c.workspace = ws_;
    c.agent_name = "node1";
    c.run_token = 7;
    c.coverage = coverage_;
    c.io = rules::BuiltinIoDefaults();
    c.io.set_op(op);
    c.io.set_engine(v1::ENGINE_PSYNC);
    c.io.set_block_size(1 << 20);
    c.io.set_file_size(kIoFileBytes);
    c.io.set_direct(direct);
    return c;
  }
  // Prepares the task, launches its jobs on a gate, opens it and finishes the task once every
  // job has returned.
  Result<v1::StepResult> Run(IoPlan plan) {
    const uint32_t jobs = plan.io.jobs();
    IoTask task(std::move(plan));
    IOFLEET_RETURN_IF_ERROR(task.Prepare());
    StartGate gate;
    const uint32_t threads = task.Launch(gate).value_or(0);
    EXPECT_EQ(threads, jobs);  // a thread of its own per job
    gate.Expect(threads);
    StepTiming timing;
    timing.start_ns = MonotonicNs();
    timing.start_unix_ns = 1;
    gate.Open(timing.start_ns);
    while (!gate.WaitReturned(std::chrono::steady_clock::now() + std::chrono::milliseconds(100))) {
    }
    task.JoinThreads();
    return task.Finish(timing);
  }
  // Drops the file's clean pages, as a drop_caches step would (without needing root's sysctl).
  void DropFromCache(const std::string& name) {
    int fd = open((fs::path(ws_->run_dir()) / name).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fdatasync(fd), 0);
    ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    close(fd);
  }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::shared_ptr<Workspace> ws_;
  std::shared_ptr<FileCoverage> coverage_ = std::make_shared<FileCoverage>();
};

TEST_F(IoTaskTest, ReadRightAfterTheCacheWasDroppedIsMeasuredAsNotResident) {
  auto written = Run(Io(0, v1::OP_WRITE, false));
  ASSERT_TRUE(written.ok()) << written.status().message();
  DropFromCache("job-0.dat");
  auto read = Run(Io(1, v1::OP_READ, false));
  ASSERT_TRUE(read.ok()) << read.status().message();
  // The old size rule said "likely served from page cache" here (8 MiB is far below the RAM).
  EXPECT_FALSE(read->cache_resident());
  ASSERT_TRUE(read->has_cache());
  EXPECT_EQ(read->cache().pages(), kIoFileBytes / static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_LT(static_cast<double>(read->cache().resident_pages()), 0.1 * static_cast<double>(read->cache().pages()));
}

TEST_F(IoTaskTest, ReadOfDataJustWrittenIsMeasuredAsResident) {
  ASSERT_TRUE(Run(Io(0, v1::OP_WRITE, false)).ok());
  auto read = Run(Io(1, v1::OP_READ, false));
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_TRUE(read->has_cache());
  EXPECT_GT(static_cast<double>(read->cache().resident_pages()), 0.9 * static_cast<double>(read->cache().pages()));
}

// invalidate (fio's default invalidate=1): a buffered step drops its files from the page cache at
// the end of its setup, so a read right after a write reads the storage, not memory.
TEST_F(IoTaskTest, InvalidateDropsTheStepsFilesFromThePageCacheBeforeItStarts) {
  ASSERT_TRUE(Run(Io(0, v1::OP_WRITE, false)).ok());
  IoPlan plan = Io(1, v1::OP_READ, false);
  plan.io.set_invalidate(true);
  auto read = Run(std::move(plan));
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_TRUE(read->has_cache());
  EXPECT_FALSE(read->cache_resident());
  EXPECT_LT(static_cast<double>(read->cache().resident_pages()), 0.1 * static_cast<double>(read->cache().pages()));
}

TEST_F(IoTaskTest, StepsThePageCacheCannotServeAreNotMeasured) {
  auto written = Run(Io(0, v1::OP_WRITE, false));
  ASSERT_TRUE(written.ok());
  EXPECT_FALSE(written->has_cache());  // a write step reads nothing
  auto direct = Run(Io(1, v1::OP_READ, true));
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_FALSE(direct->has_cache());  // O_DIRECT bypasses the page cache
}

// Seed 002: compressible_pct P means what the agent writes, as read back from the
// file, compresses to about (100 - P)% with zlib level 1 in 4 KiB chunks (DESIGN.md's
// definition; ZebClient's figure across the compressibility spectrum depends on it).
TEST_F(IoTaskTest, WrittenDataCompressesAsAsked) {
  uint32_t index = 0;
  for (uint32_t pct : {0u, 25u, 50u, 75u}) {
    IoPlan c = Io(index++, v1::OP_WRITE, false);
    c.io.set_block_size(64 << 10);
    c.io.set_file_prefix("p" + std::to_string(pct));
    c.io.mutable_data()->set_compressible_pct(pct);
    c.io.mutable_data()->set_pattern("0xdeadbeef");
    auto written = Run(std::move(c));
    ASSERT_TRUE(written.ok()) << written.status().message();
    ASSERT_EQ(written->bytes(), kIoFileBytes);
    std::string data = testing::ReadAll(fs::path(ws_->run_dir()) / ("p" + std::to_string(pct) + "-0.dat"));
    ASSERT_EQ(data.size(), kIoFileBytes);
    constexpr size_t kChunk = 4096;
    std::vector<Bytef> out(compressBound(kChunk));
    uint64_t compressed = 0;
    for (size_t at = 0; at < data.size(); at += kChunk) {
      uLongf size = out.size();
      ASSERT_EQ(compress2(out.data(), &size, reinterpret_cast<const Bytef*>(data.data() + at), kChunk, 1), Z_OK);
      compressed += size;
    }
    double share = static_cast<double>(compressed) / static_cast<double>(data.size());
    // zlib's framing and the blocks' stamps add a little to the compressible part.
    EXPECT_NEAR(share, (100.0 - pct) / 100.0, 0.04) << "compressible_pct " << pct;
  }
}

// Fresh data is fresh across the fleet: two agents of one run (the same run token, the same
// step, the same job index) write no 4 KiB chunk in common, neither in the step's writes nor in
// what a read step lays out. Their stamps were the job's seed alone, so every agent wrote the same
// bytes, and a deduplicating array shared by six clients kept one copy of their six.
TEST_F(IoTaskTest, TwoAgentsOfOneRunWriteNoChunkInCommon) {
  auto other_ws = Workspace::Create(*roots_->Find("default"), "", "run-1", "node2");
  ASSERT_TRUE(other_ws.ok()) << other_ws.status().message();
  ASSERT_NE((*other_ws)->run_dir(), ws_->run_dir());
  std::set<std::string> chunks;
  size_t seen = 0;
  for (const auto& [agent, workspace] : {std::pair{"node1", ws_}, std::pair{"node2", *other_ws}}) {
    for (v1::Op op : {v1::OP_WRITE, v1::OP_READ}) {
      IoPlan c = Io(0, op, false);
      c.agent_name = agent;
      c.workspace = workspace;
      c.coverage = std::make_shared<FileCoverage>();
      const std::string prefix = op == v1::OP_WRITE ? "written" : "laid-out";
      c.io.set_file_prefix(prefix);
      c.io.set_file_size(1 << 20);
      auto done = Run(std::move(c));
      ASSERT_TRUE(done.ok()) << done.status().message();
      const std::string data = testing::ReadAll(fs::path(workspace->run_dir()) / (prefix + "-0.dat"));
      ASSERT_EQ(data.size(), 1u << 20);
      for (size_t at = 0; at < data.size(); at += 4096) chunks.insert(data.substr(at, 4096));
      seen += data.size() / 4096;
    }
  }
  EXPECT_EQ(chunks.size(), seen) << seen - chunks.size() << " chunks repeat";
}

// fio's dedupe-global.fio on real files: two streams (a, b) of 4 KiB writes, dedupe 50% from
// a working set of 50% that the streams share (dedupe_global), placed as the supervisor places
// them (DedupeSetsOf). Each file alone repeats less than the two together, which repeat half.
TEST_F(IoTaskTest, StreamsSharingAWorkingSetWriteWhatDedupeAsks) {
  std::vector<IoPlan> plans;
  for (const char* prefix : {"a", "b"}) {
    IoPlan c = Io(0, v1::OP_WRITE, false);
    c.io.set_file_prefix(prefix);
    c.io.set_block_size(4096);
    c.io.set_file_size(16 << 20);
    c.io.mutable_data()->set_dedupe_pct(50);
    c.io.mutable_data()->set_dedupe_working_set_pct(50);
    c.io.mutable_data()->set_dedupe_global(true);
    c.stream = prefix;
    c.stream_index = static_cast<uint32_t>(plans.size());
    plans.push_back(std::move(c));
  }
  const std::vector<DedupeSetPlace> sets = DedupeSetsOf({&plans[0].io, &plans[1].io}, 1);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].first, 0u);
  EXPECT_EQ(sets[1].first, 2048u) << "half of a's 4,096 chunks";
  EXPECT_EQ(sets[0].chunks, 4096u);
  std::set<std::string> both;
  for (size_t k = 0; k < plans.size(); ++k) {
    plans[k].dedupe_set = sets[k];
    const std::string file = plans[k].stream + "-0.dat";
    auto written = Run(std::move(plans[k]));
    ASSERT_TRUE(written.ok()) << written.status().message();
    const std::string data = testing::ReadAll(fs::path(ws_->run_dir()) / file);
    ASSERT_EQ(data.size(), 16u << 20);
    std::set<std::string> alone;
    for (size_t at = 0; at < data.size(); at += 4096) {
      alone.insert(data.substr(at, 4096));
      both.insert(data.substr(at, 4096));
    }
    EXPECT_GT(static_cast<double>(alone.size()) / 4096.0, 0.60) << file;
    std::printf("%s alone: %zu distinct of 4096 chunks\n", file.c_str(), alone.size());
  }
  std::printf("a and b: %zu distinct of 8192 chunks\n", both.size());
  EXPECT_NEAR(static_cast<double>(both.size()) / 8192.0, 0.50, 0.02);
  // Without dedupe_global each stream has a set of its own, and none is shared.
  IoPlan own = Io(1, v1::OP_WRITE, false);
  own.io.set_file_prefix("own");
  own.io.mutable_data()->set_dedupe_pct(50);
  own.io.mutable_data()->set_dedupe_working_set_pct(50);
  EXPECT_EQ(DedupeSetsOf({&own.io}, 1)[0].chunks, 0u);
  EXPECT_EQ(WorkingSetChunks(own.io, 1), kIoFileBytes / 4096 / 2);
}

// offset and offset_increment (fio's): job j's range starts at offset + j x offset_increment,
// its file holding it with a hole before it; a read step lays out exactly that range and reads it.
TEST_F(IoTaskTest, OffsetsPlaceEachJobsRangeInItsFile) {
  IoPlan w = Io(0, v1::OP_WRITE, false);
  w.io.set_file_prefix("off");
  w.io.set_jobs(2);
  w.io.set_file_size(1 << 20);
  w.io.set_offset(1 << 20);
  w.io.set_offset_increment(2 << 20);
  w.io.mutable_data()->set_pattern("0xdeadbeef");
  w.io.mutable_data()->set_compressible_pct(50);
  auto written = Run(w);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->bytes(), 2u << 20);
  for (uint32_t j = 0; j < 2; ++j) {
    const std::string data = testing::ReadAll(fs::path(ws_->run_dir()) / ("off-" + std::to_string(j) + ".dat"));
    const size_t begin = (1u << 20) + j * (2u << 20);
    ASSERT_EQ(data.size(), begin + (1u << 20)) << "job " << j;
    EXPECT_EQ(data.find_first_not_of('\0'), begin) << "job " << j << ": a hole before its range, data from its start";
  }
  IoPlan r = Io(1, v1::OP_READ, false);
  r.io.set_file_prefix("laid");
  r.io.set_jobs(2);
  r.io.set_file_size(1 << 20);
  r.io.set_offset(1 << 20);
  r.io.set_offset_increment(2 << 20);
  auto read = Run(std::move(r));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->filled_bytes(), 2u << 20) << "the ranges alone are laid out";
  EXPECT_EQ(read->bytes(), 2u << 20);
  EXPECT_EQ(fs::file_size(fs::path(ws_->run_dir()) / "laid-1.dat"), 4u << 20);
}

// skip leaves holes between sequential blocks, and backward starts from the range's last block:
// an 8-block file written with skip 1 block has blocks 0, 2, 4, 6 forward, 7, 5, 3, 1 backward.
TEST_F(IoTaskTest, SkipAndBackwardWriteTheBlocksFioWould) {
  uint32_t index = 0;
  for (bool backward : {false, true}) {
    IoPlan c = Io(index++, v1::OP_WRITE, false);
    c.io.set_file_prefix(backward ? "back" : "fwd");
    c.io.set_skip(1 << 20);
    c.io.set_backward(backward);
    c.io.mutable_data()->set_pattern("0xdeadbeef");
    auto written = Run(std::move(c));
    ASSERT_TRUE(written.ok()) << written.status().message();
    EXPECT_EQ(written->bytes(), kIoFileBytes / 2);
    std::string data = testing::ReadAll(fs::path(ws_->run_dir()) / (std::string(backward ? "back" : "fwd") + "-0.dat"));
    for (uint64_t block = 0; block < 8; ++block) {
      const size_t at = block << 20;
      const bool holds = at < data.size() && data.find_first_not_of('\0', at) < at + (1 << 20);
      EXPECT_EQ(holds, (block % 2 == 1) == backward) << (backward ? "backward" : "forward") << " block " << block;
    }
  }
}

// A skip past the end of the range leaves one block per pass, whatever its size: with 1-byte
// blocks, 1 + skip / block used to wrap to 0 and divide by it.
TEST_F(IoTaskTest, ASkipBeyondTheRangeLeavesOneBlockAPass) {
  uint32_t index = 0;
  for (bool backward : {false, true}) {
    IoPlan c = Io(index++, v1::OP_WRITE, false);
    c.io.set_file_prefix(backward ? "farback" : "far");
    c.io.set_block_size(1);
    c.io.set_skip(UINT64_MAX);
    c.io.set_backward(backward);
    auto written = Run(std::move(c));
    ASSERT_TRUE(written.ok()) << written.status().message();
    EXPECT_EQ(written->bytes(), 1u) << (backward ? "backward" : "forward");
  }
}

// preallocate (fio's fallocate=native): the job's whole range is allocated at setup, so a step
// that writes every other block leaves no holes in its file; without it, it does.
TEST_F(IoTaskTest, PreallocateAllocatesTheRangeBeforeTheWrites) {
  uint32_t index = 0;
  for (bool preallocate : {false, true}) {
    IoPlan c = Io(index++, v1::OP_WRITE, true);
    c.io.set_file_prefix(preallocate ? "pre" : "sparse");
    c.io.set_skip(1 << 20);
    c.io.set_preallocate(preallocate);
    auto written = Run(std::move(c));
    ASSERT_TRUE(written.ok()) << written.status().message();
    struct stat st {};
    ASSERT_EQ(stat((fs::path(ws_->run_dir()) / (std::string(preallocate ? "pre" : "sparse") + "-0.dat")).c_str(), &st), 0);
    const uint64_t allocated = static_cast<uint64_t>(st.st_blocks) * 512;
    if (preallocate) {
      EXPECT_GE(allocated, kIoFileBytes);
      EXPECT_EQ(static_cast<uint64_t>(st.st_size), kIoFileBytes);
    } else {
      EXPECT_LT(allocated, kIoFileBytes * 3 / 4) << "the skipped blocks are holes";
    }
  }
}

// unlink (fio's): the step's file is gone when it ends, and a later read of that name lays it
// out again rather than reading a file that is no longer there.
TEST_F(IoTaskTest, UnlinkRemovesTheStepsFilesAndAReaderLaysThemOutAgain) {
  IoPlan w = Io(0, v1::OP_WRITE, true);
  w.io.set_file_prefix("gone");
  w.io.set_unlink(true);
  auto written = Run(std::move(w));
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->bytes(), kIoFileBytes);
  EXPECT_FALSE(fs::exists(fs::path(ws_->run_dir()) / "gone-0.dat"));
  IoPlan r = Io(1, v1::OP_READ, true);
  r.io.set_file_prefix("gone");
  auto read = Run(std::move(r));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->filled_bytes(), kIoFileBytes) << "laid out again: nothing of the unlinked file counts as written";
  EXPECT_TRUE(fs::exists(fs::path(ws_->run_dir()) / "gone-0.dat"));
}

// Seed 002: by default a read step reads the write step's files; with a file_prefix
// of its own it lays out (untimed) and reads its own, as fio's read job of another name does.
TEST_F(IoTaskTest, AReadStepWithItsOwnFilePrefixReadsItsOwnFiles) {
  auto written = Run(Io(0, v1::OP_WRITE, false));
  ASSERT_TRUE(written.ok()) << written.status().message();
  const auto job0 = fs::path(ws_->run_dir()) / "job-0.dat";
  const auto mtime = fs::last_write_time(job0);

  auto shared_files = Run(Io(1, v1::OP_READ, false));
  ASSERT_TRUE(shared_files.ok()) << shared_files.status().message();
  EXPECT_EQ(shared_files->filled_bytes(), 0u);  // the write step's file, whole
  EXPECT_EQ(shared_files->bytes(), kIoFileBytes);

  IoPlan own = Io(2, v1::OP_READ, false);
  own.io.set_file_prefix("read");
  auto own_files = Run(std::move(own));
  ASSERT_TRUE(own_files.ok()) << own_files.status().message();
  EXPECT_EQ(own_files->filled_bytes(), kIoFileBytes);  // laid out first, untimed
  EXPECT_EQ(own_files->bytes(), kIoFileBytes);
  EXPECT_EQ(fs::file_size(fs::path(ws_->run_dir()) / "read-0.dat"), kIoFileBytes);
  EXPECT_EQ(fs::last_write_time(job0), mtime);
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(fs::path(ws_->run_dir()) / "read-0.dat"));
}

// What a window of a step cut into windows asked of the storage: the cut's pace replaces the
// plan's rate and its queue depth bounds the plan's (a window's limit is judged with it).
TEST_F(IoTaskTest, ACutsOrderIsTheLoadItsWindowAsked) {
  IoPlan plan = Io(0, v1::OP_RANDREAD, true);
  plan.io.set_engine(v1::ENGINE_LIBAIO);
  plan.io.set_queue_depth(16);
  plan.io.set_jobs(2);
  IoTask task(std::move(plan));
  const std::optional<StorageLoad> planned = task.Storage();
  ASSERT_TRUE(planned);
  EXPECT_EQ(planned->in_flight, 32u);
  EXPECT_EQ(planned->rate_iops, 0u);
  v1::CutWindowRequest cut;
  cut.set_queue_depth(5);
  cut.set_rate_iops(300);
  const std::optional<StorageLoad> under = task.StorageUnder(cut);
  ASSERT_TRUE(under);
  EXPECT_EQ(under->in_flight, 10u) << "5 a job";
  EXPECT_EQ(under->rate_iops, 600u) << "300 a job";
  cut.set_queue_depth(64);  // above the plan's: the plan's bounds it, as the jobs do
  EXPECT_EQ(task.StorageUnder(cut)->in_flight, 32u);
  EXPECT_EQ(task.StorageUnder(v1::CutWindowRequest())->in_flight, 32u) << "no order: the plan's";
}

}  // namespace
}  // namespace iofleet::agent
