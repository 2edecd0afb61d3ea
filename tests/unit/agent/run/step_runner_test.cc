// What StepRunner measures around a step rather than guesses: the page
// cache residency of a read step's data just before it starts, and CPU for every step kind that
// runs jobs; a host step measures no CPU and says so by leaving the figures out.
#include "agent/run/step_runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>
#include <vector>
#include <zlib.h>

#include "agent/tasks/files_task.h"
#include "agent/tasks/host_tasks.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kFileBytes = 8 << 20;

class StepRunnerTest : public ::testing::Test {
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

  StepContext Context(uint32_t step_index) {
    StepContext c;
    c.step_index = step_index;
    c.workspace = ws_;
    c.agent_name = "node1";
    c.run_token = 7;
    c.coverage = coverage_;
    return c;
  }
  StepContext Io(uint32_t step_index, v1::Op op, bool direct) {
    StepContext c = Context(step_index);
    c.io = rules::BuiltinIoDefaults();
    c.io.set_op(op);
    c.io.set_engine(v1::ENGINE_PSYNC);
    c.io.set_block_size(1 << 20);
    c.io.set_file_size(kFileBytes);
    c.io.set_direct(direct);
    return c;
  }
  Result<v1::StepResult> Run(StepContext context) {
    auto runner = StepRunner::Prepare(std::move(context));
    if (!runner.ok()) return runner.status();
    (*runner)->Launch();
    (*runner)->Go();
    while (!(*runner)->WaitFor(std::chrono::milliseconds(100))) {
    }
    return (*runner)->Finish();
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

TEST_F(StepRunnerTest, ReadRightAfterTheCacheWasDroppedIsMeasuredAsNotResident) {
  auto written = Run(Io(0, v1::OP_WRITE, false));
  ASSERT_TRUE(written.ok()) << written.status().message();
  DropFromCache("job-0.dat");
  auto read = Run(Io(1, v1::OP_READ, false));
  ASSERT_TRUE(read.ok()) << read.status().message();
  // The old size rule said "likely served from page cache" here (8 MiB is far below the RAM).
  EXPECT_FALSE(read->cache_resident());
  ASSERT_TRUE(read->has_cache());
  EXPECT_EQ(read->cache().pages(), kFileBytes / static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_LT(static_cast<double>(read->cache().resident_pages()), 0.1 * static_cast<double>(read->cache().pages()));
}

TEST_F(StepRunnerTest, ReadOfDataJustWrittenIsMeasuredAsResident) {
  ASSERT_TRUE(Run(Io(0, v1::OP_WRITE, false)).ok());
  auto read = Run(Io(1, v1::OP_READ, false));
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_TRUE(read->has_cache());
  EXPECT_GT(static_cast<double>(read->cache().resident_pages()), 0.9 * static_cast<double>(read->cache().pages()));
}

TEST_F(StepRunnerTest, StepsThePageCacheCannotServeAreNotMeasured) {
  auto written = Run(Io(0, v1::OP_WRITE, false));
  ASSERT_TRUE(written.ok());
  EXPECT_FALSE(written->has_cache());  // a write step reads nothing
  auto direct = Run(Io(1, v1::OP_READ, true));
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_FALSE(direct->has_cache());  // O_DIRECT bypasses the page cache
}

TEST_F(StepRunnerTest, FilesStepMeasuresCpu) {
  v1::FilesStep files;
  files.set_dirs(4);
  files.set_files_per_dir(500);
  files.set_file_size(4096);
  files.set_jobs(2);
  files.set_block_size(4096);
  files = rules::ResolveFiles(files);
  for (v1::FilesOp op : {v1::FILES_OP_MKDIR, v1::FILES_OP_CREATE}) {
    FilesPlan plan;
    plan.files = files;
    plan.op = op;
    plan.workspace = ws_;
    plan.relative = "tree";
    plan.agent_name = "node1";
    auto task = MakeFilesTask(plan);
    ASSERT_TRUE(task.ok()) << task.status().message();
    StepContext c = Context(0);
    c.task = std::move(*task);
    auto result = Run(std::move(c));
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_TRUE(result->has_cpu()) << rules::FilesOpName(op);
    const v1::CpuStats& cpu = result->cpu();
    EXPECT_GT(cpu.process_user_ns() + cpu.process_sys_ns(), 0u) << rules::FilesOpName(op);
    EXPECT_GT(cpu.worker_user_ns() + cpu.worker_sys_ns(), 0u) << rules::FilesOpName(op);
    // Host ticks (USER_HZ, 10 ms) may be 0 over a phase this short: the report then leaves
    // host_busy_pct out.
    EXPECT_LE(cpu.host_busy_ticks(), cpu.host_total_ticks());
    EXPECT_LE(cpu.max_worker_busy_permille(), 1000u);
    EXPECT_FALSE(result->has_cache());
  }
}

// Seed 002: compressible_pct P means what the agent writes, as read back from the
// file, compresses to about (100 - P)% with zlib level 1 in 4 KiB chunks (DESIGN.md's
// definition; ZebClient's figure across the compressibility spectrum depends on it).
TEST_F(StepRunnerTest, WrittenDataCompressesAsAsked) {
  uint32_t index = 0;
  for (uint32_t pct : {0u, 25u, 50u, 75u}) {
    StepContext c = Io(index++, v1::OP_WRITE, false);
    c.io.set_block_size(64 << 10);
    c.io.set_file_prefix("p" + std::to_string(pct));
    c.io.mutable_data()->set_compressible_pct(pct);
    c.io.mutable_data()->set_pattern("0xdeadbeef");
    auto written = Run(std::move(c));
    ASSERT_TRUE(written.ok()) << written.status().message();
    ASSERT_EQ(written->bytes(), kFileBytes);
    std::string data = testing::ReadAll(fs::path(ws_->run_dir()) / ("p" + std::to_string(pct) + "-0.dat"));
    ASSERT_EQ(data.size(), kFileBytes);
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

// Seed 002: by default a read step reads the write step's files; with a file_prefix
// of its own it lays out (untimed) and reads its own, as fio's read job of another name does.
TEST_F(StepRunnerTest, AReadStepWithItsOwnFilePrefixReadsItsOwnFiles) {
  auto written = Run(Io(0, v1::OP_WRITE, false));
  ASSERT_TRUE(written.ok()) << written.status().message();
  const auto job0 = fs::path(ws_->run_dir()) / "job-0.dat";
  const auto mtime = fs::last_write_time(job0);

  auto shared_files = Run(Io(1, v1::OP_READ, false));
  ASSERT_TRUE(shared_files.ok()) << shared_files.status().message();
  EXPECT_EQ(shared_files->filled_bytes(), 0u);  // the write step's file, whole
  EXPECT_EQ(shared_files->bytes(), kFileBytes);

  StepContext own = Io(2, v1::OP_READ, false);
  own.io.set_file_prefix("read");
  auto own_files = Run(std::move(own));
  ASSERT_TRUE(own_files.ok()) << own_files.status().message();
  EXPECT_EQ(own_files->filled_bytes(), kFileBytes);  // laid out first, untimed
  EXPECT_EQ(own_files->bytes(), kFileBytes);
  EXPECT_EQ(fs::file_size(fs::path(ws_->run_dir()) / "read-0.dat"), kFileBytes);
  EXPECT_EQ(fs::last_write_time(job0), mtime);
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(fs::path(ws_->run_dir()) / "read-0.dat"));
}

TEST_F(StepRunnerTest, HostStepMeasuresNoCpu) {
  StepContext c = Context(0);
  c.task = MakeSyncTask(false, "node1");
  auto result = Run(std::move(c));
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_FALSE(result->has_cpu());
  EXPECT_FALSE(result->has_cache());
}

}  // namespace
}  // namespace iofleet::agent
