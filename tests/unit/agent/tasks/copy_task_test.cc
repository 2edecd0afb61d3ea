#include "agent/tasks/copy_task.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "agent/fs/roots.h"
#include "core/rules/non_io_steps.h"
#include "tests/support/hang_guard.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

// Every entry below `dir`: relative path -> contents ("<dir>" for a directory).
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out[fs::relative(e.path(), dir).string()] = e.is_directory() ? "<dir>" : testing::ReadAll(e.path());
  }
  return out;
}

std::string Bytes(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i * 31 + i / 7);
  return s;
}

class CopyTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    fs::create_directories(tmp_ / "local");
    auto roots = Roots::Open({(tmp_ / "root").string(), "local=" + (tmp_ / "local").string()});
    ASSERT_TRUE(roots.ok()) << roots.status().message();
    roots_ = std::make_unique<Roots>(std::move(*roots));
    auto ws = Workspace::Create(*roots_->Find("default"), "", "run-1", "node1");
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    ws_ = *ws;
    run_dir_ = ws_->run_dir();
    // The source, made behind the workspace's back: it records none of it.
    fs::path src = run_dir_ / "src";
    fs::create_directories(src / "sub" / "deeper");
    fs::create_directories(src / "empty");
    std::ofstream(src / "a.txt", std::ios::binary) << Bytes(10000, 'a');
    std::ofstream(src / "sub" / "b.bin", std::ios::binary) << Bytes(300000, 'b');  // several blocks
    std::ofstream(src / "sub" / "deeper" / "c", std::ios::binary) << Bytes(4096, 'c');
    std::ofstream(src / "sub" / "zero", std::ios::binary);                          // empty file
  }

  CopyPlan Plan(const std::string& from, const std::string& to, uint32_t jobs = 3) {
    CopyPlan plan;
    v1::CopyStep copy;
    copy.set_jobs(jobs);
    copy.set_block_size(65536);
    plan.copy = rules::ResolveCopy(copy);
    plan.from_workspace = ws_;
    plan.from = from;
    plan.to_workspace = ws_;
    plan.to = to;
    plan.agent_name = "node1";
    return plan;
  }

  // Makes and runs the copy, expecting success; returns its result.
  v1::StepResult Copy(CopyPlan plan) {
    auto task = MakeCopyTask(std::move(plan));
    EXPECT_TRUE(task.ok()) << task.status().message();
    if (!task.ok()) return {};
    std::atomic<bool> stop{false};
    Status st = (*task)->Run(stop);
    EXPECT_TRUE(st.ok()) << st.message();
    v1::StepResult result;
    (*task)->Report(result);
    EXPECT_EQ((*task)->ops(), result.ops());
    EXPECT_EQ((*task)->bytes(), result.bytes());
    return result;
  }

  // A copy of run_dir/swap (a, 32 MiB, then b) by one job, with `swap` done to swap/b while a
  // is being copied, after the walk found b a regular file. Tries until the swap came before
  // the copy reached b (false if it never did); `st`: how the copy ended.
  bool CopyWithBSwappedMidCopy(const std::function<void(const fs::path&)>& swap, Status& st) {
    const fs::path src = run_dir_ / "swap";
    for (int attempt = 0; attempt < 5; ++attempt) {
      fs::remove_all(src);
      fs::create_directories(src);
      std::ofstream(src / "a", std::ios::binary) << Bytes(32 << 20, 'a');
      std::ofstream(src / "b", std::ios::binary) << Bytes(4096, 'b');
      const std::string to = "swapped-" + std::to_string(attempt);
      auto task = MakeCopyTask(Plan("swap", to, 1));
      if (!task.ok()) {
        st = task.status();
        return true;
      }
      std::atomic<bool> ended{false};
      std::thread swapper([&] {
        while (!ended.load() && !fs::exists(run_dir_ / to / "a")) {
        }
        fs::remove(src / "b");
        swap(src / "b");
      });
      std::atomic<bool> stop{false};
      EXPECT_TRUE(testing::ReturnsWithin(std::chrono::seconds(10), {src / "b"}, [&] {
        st = (*task)->Run(stop);
        ended.store(true);
      })) << "the copy hung on what was swapped in";
      ended.store(true);
      swapper.join();
      // Lost the race: b was copied before the swap.
      if (testing::ReadAll(run_dir_ / to / "b") != Bytes(4096, 'b')) {
        fs::remove_all(src);
        return true;
      }
    }
    return false;
  }

  static constexpr uint64_t kSourceBytes = 10000 + 300000 + 4096;

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::shared_ptr<Workspace> ws_;
  fs::path run_dir_;
};

TEST_F(CopyTaskTest, CopiesATree) {
  v1::StepResult r = Copy(Plan("src", "dst"));
  EXPECT_EQ(r.ops(), 4u);  // a.txt, b.bin, c, zero
  EXPECT_EQ(r.bytes(), kSourceBytes);
  EXPECT_EQ(r.dirs(), 4u);  // dst, dst/empty, dst/sub, dst/sub/deeper
  uint64_t latencies = 0;
  for (uint64_t c : r.latency_ns().count()) latencies += c;
  EXPECT_EQ(latencies, 4u);
  EXPECT_TRUE(r.note().empty()) << r.note();
  EXPECT_EQ(Snapshot(run_dir_ / "dst"), Snapshot(run_dir_ / "src"));
  EXPECT_EQ(Snapshot(run_dir_ / "dst").size(), 7u);
}

TEST_F(CopyTaskTest, CopiesIntoANewParentAndCleanupRemovesOnlyTheCopy) {
  Copy(Plan("src", "out/deep/dst"));
  EXPECT_EQ(Snapshot(run_dir_ / "out/deep/dst"), Snapshot(run_dir_ / "src"));
  auto before = Snapshot(run_dir_ / "src");
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(run_dir_ / "out"));   // made by the run (parents included)
  EXPECT_EQ(Snapshot(run_dir_ / "src"), before);  // not the run's: untouched
}

TEST_F(CopyTaskTest, SecondCopyRemovesTheEarlierOneFirst) {
  Copy(Plan("src", "dst"));
  // Something changes in the source between cycles; the new copy must match it exactly.
  fs::remove(run_dir_ / "src" / "a.txt");
  std::ofstream(run_dir_ / "src" / "new.txt") << "new";
  v1::StepResult second = Copy(Plan("src", "dst", 1));
  EXPECT_EQ(second.ops(), 4u);
  EXPECT_EQ(second.dirs(), 4u);
  EXPECT_NE(second.note().find("removed 8 entries of the earlier copy at dst"), std::string::npos) << second.note();
  EXPECT_EQ(Snapshot(run_dir_ / "dst"), Snapshot(run_dir_ / "src"));
  EXPECT_FALSE(fs::exists(run_dir_ / "dst" / "a.txt"));
  // And a third time: the second copy is the run's too.
  v1::StepResult third = Copy(Plan("src", "dst"));
  EXPECT_NE(third.note().find("removed"), std::string::npos) << third.note();
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(run_dir_ / "dst"));
  EXPECT_TRUE(fs::exists(run_dir_ / "src" / "new.txt"));
}

TEST_F(CopyTaskTest, RefusesADestinationTheRunDidNotMake) {
  fs::create_directories(run_dir_ / "foreign");
  std::ofstream(run_dir_ / "foreign" / "keep") << "user data";
  auto task = MakeCopyTask(Plan("src", "foreign"));
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(task.status().message().find("already exists"), std::string::npos) << task.status().message();
  EXPECT_NE(task.status().message().find((run_dir_ / "foreign").string()), std::string::npos) << task.status().message();
  EXPECT_EQ(testing::ReadAll(run_dir_ / "foreign" / "keep"), "user data");
  // A file is refused the same way.
  std::ofstream(run_dir_ / "file") << "x";
  auto onto_file = MakeCopyTask(Plan("src", "file"));
  ASSERT_FALSE(onto_file.ok());
  EXPECT_NE(onto_file.status().message().find("already exists"), std::string::npos);
  EXPECT_EQ(testing::ReadAll(run_dir_ / "file"), "x");
}

TEST_F(CopyTaskTest, RefusesASymlinkInTheSource) {
  fs::create_symlink(tmp_ / "outside", run_dir_ / "src" / "sub" / "link");
  auto task = MakeCopyTask(Plan("src", "dst"));
  ASSERT_TRUE(task.ok()) << task.status().message();  // found by the walk, which is timed
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("not a regular file or directory"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("src/sub/link"), std::string::npos) << st.message();
  EXPECT_FALSE(fs::exists(run_dir_ / "dst"));  // nothing made before the walk finished
}

TEST_F(CopyTaskTest, RefusesASymlinkAsTheSource) {
  fs::create_directory_symlink(run_dir_ / "src", run_dir_ / "srclink");
  auto task = MakeCopyTask(Plan("srclink", "dst"));
  ASSERT_FALSE(task.ok());
  EXPECT_FALSE(fs::exists(run_dir_ / "dst"));
}

TEST_F(CopyTaskTest, MissingSource) {
  auto task = MakeCopyTask(Plan("nothing", "dst"));
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(task.status().message().find((run_dir_ / "nothing").string()), std::string::npos) << task.status().message();
  EXPECT_NE(task.status().message().find("earlier step"), std::string::npos) << task.status().message();
}

TEST_F(CopyTaskTest, CopiesOneFile) {
  v1::StepResult r = Copy(Plan("src/sub/b.bin", "one.bin"));
  EXPECT_EQ(r.ops(), 1u);
  EXPECT_EQ(r.bytes(), 300000u);
  EXPECT_EQ(r.dirs(), 0u);
  EXPECT_EQ(testing::ReadAll(run_dir_ / "one.bin"), testing::ReadAll(run_dir_ / "src" / "sub" / "b.bin"));
  // Again onto its own earlier copy.
  v1::StepResult again = Copy(Plan("src/sub/b.bin", "one.bin"));
  EXPECT_NE(again.note().find("removed 1 entries"), std::string::npos) << again.note();
  EXPECT_EQ(testing::ReadAll(run_dir_ / "one.bin"), testing::ReadAll(run_dir_ / "src" / "sub" / "b.bin"));
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(run_dir_ / "one.bin"));
  EXPECT_TRUE(fs::exists(run_dir_ / "src" / "sub" / "b.bin"));
}

TEST_F(CopyTaskTest, CopiesBetweenRoots) {
  auto local = Workspace::Create(*roots_->Find("local"), "", "run-1", "node1");
  ASSERT_TRUE(local.ok()) << local.status().message();
  CopyPlan plan = Plan("src", "dst");
  plan.to_workspace = *local;
  v1::StepResult r = Copy(plan);
  EXPECT_EQ(r.ops(), 4u);
  fs::path there = fs::path((*local)->run_dir()) / "dst";
  EXPECT_EQ(Snapshot(there), Snapshot(run_dir_ / "src"));
  EXPECT_FALSE(fs::exists(run_dir_ / "dst"));
  (*local)->Cleanup();
  EXPECT_FALSE(fs::exists(tmp_ / "local" / "iofleet"));
}

TEST_F(CopyTaskTest, TheResultSaysWhichMethodMovedTheBytes) {
  v1::StepResult plain = Copy(Plan("src", "dst"));
  EXPECT_EQ(plain.copy_method(), "read_write");  // the default: history stays comparable

  CopyPlan plan = Plan("src", "dst-cfr");
  plan.copy.set_method(v1::COPY_METHOD_COPY_FILE_RANGE);
  v1::StepResult ranged = Copy(plan);
  EXPECT_EQ(ranged.copy_method(), "copy_file_range");
  EXPECT_EQ(ranged.ops(), 4u);
  EXPECT_EQ(ranged.bytes(), kSourceBytes);
  EXPECT_EQ(Snapshot(run_dir_ / "dst-cfr"), Snapshot(run_dir_ / "src"));
}

// Between file systems that cannot (ext4 to tmpfs: EXDEV) the step fails naming the method, and
// does not fall back to read/write as GNU cp does: a benchmark must not change what it measures.
TEST_F(CopyTaskTest, CopyFileRangeThatCannotWorkFailsNamingTheMethod) {
  char shm[] = "/dev/shm/iofleet-copy-test-XXXXXX";
  if (!mkdtemp(shm)) GTEST_SKIP() << "no /dev/shm here";
  struct Remove {
    std::string dir;
    ~Remove() { fs::remove_all(dir); }
  } remove{shm};
  auto roots = Roots::Open({(tmp_ / "root").string(), std::string("shm=") + shm});
  ASSERT_TRUE(roots.ok()) << roots.status().message();
  auto there = Workspace::Create(*roots->Find("shm"), "", "run-1", "node1");
  ASSERT_TRUE(there.ok()) << there.status().message();
  CopyPlan plan = Plan("src", "dst", 1);
  plan.copy.set_method(v1::COPY_METHOD_COPY_FILE_RANGE);
  plan.to_workspace = *there;
  auto task = MakeCopyTask(std::move(plan));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  if (st.ok()) GTEST_SKIP() << "this kernel copies between these file systems";
  EXPECT_NE(st.message().find("method copy_file_range is not supported between these file systems"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("EXDEV"), std::string::npos) << st.message();
  (*there)->Cleanup();
}

TEST_F(CopyTaskTest, StopSetBeforeRunCopiesNoFile) {
  auto task = MakeCopyTask(Plan("src", "dst"));
  ASSERT_TRUE(task.ok());
  std::atomic<bool> stop{true};
  EXPECT_TRUE((*task)->Run(stop).ok());
  EXPECT_EQ((*task)->ops(), 0u);
  EXPECT_EQ((*task)->bytes(), 0u);
}

// A FIFO as the source of a one-file copy is refused at setup, naming the
// agent, the path and what it is; it never holds the agent in open().
TEST_F(CopyTaskTest, AFifoAsTheSourceIsRefusedWithoutHanging) {
  const fs::path fifo = run_dir_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  Result<std::unique_ptr<StepTask>> task = Status::Ok();
  EXPECT_TRUE(testing::ReturnsWithin(std::chrono::seconds(10), {fifo}, [&] { task = MakeCopyTask(Plan("pipe", "dst")); }))
      << "setting up the copy hung on the FIFO";
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.status().message().find("agent node1: " + fifo.string() + ": copy: not a regular file or directory (a FIFO)"),
            std::string::npos)
      << task.status().message();
  EXPECT_FALSE(fs::exists(run_dir_ / "dst"));
}

// A FIFO swapped in for a source file after the walk (while another file is being copied):
// the step fails naming it, it does not hang.
TEST_F(CopyTaskTest, AFifoSwappedIntoTheSourceMidCopyFailsWithoutHanging) {
  Status st;
  ASSERT_TRUE(CopyWithBSwappedMidCopy([](const fs::path& b) { ASSERT_EQ(mkfifo(b.c_str(), 0644), 0); }, st))
      << "the swap never came before the copy reached the file";
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("agent node1: " + (run_dir_ / "swap/b").string() + ": copy: "), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("not a regular file (a FIFO)"), std::string::npos) << st.message();
}

// A hard link to a file outside the root swapped in after the walk is not the file the walk
// found: the step fails naming it, and nothing of the outside file is copied.
TEST_F(CopyTaskTest, AHardLinkSwappedIntoTheSourceMidCopyIsNotCopied) {
  const fs::path outside = tmp_ / "outside.bin";
  std::ofstream(outside, std::ios::binary) << Bytes(1'000'000, 'o');
  Status st;
  ASSERT_TRUE(CopyWithBSwappedMidCopy([&](const fs::path& b) { fs::create_hard_link(outside, b); }, st))
      << "the swap never came before the copy reached the file";
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find((run_dir_ / "swap/b").string() + ": copy: not the file the copy found there"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace iofleet::agent
