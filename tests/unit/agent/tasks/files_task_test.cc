#include "agent/tasks/files_task.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <set>

#include "agent/fs/roots.h"
#include "agent/fs/tree_names.h"
#include "core/rules/non_io_steps.h"
#include "tests/support/hang_guard.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

uint64_t LatencyCount(const v1::StepResult& r) {
  uint64_t n = 0;
  for (uint64_t c : r.latency_ns().count()) n += c;
  return n;
}

class FilesTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    auto roots = Roots::Open({(tmp_ / "root").string()});
    ASSERT_TRUE(roots.ok()) << roots.status().message();
    roots_ = std::make_unique<Roots>(std::move(*roots));
    auto ws = Workspace::Create(*roots_->Find("default"), "", "run-1", "node1");
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    ws_ = *ws;
    run_dir_ = ws_->run_dir();
    files_.set_dirs(3);
    files_.set_files_per_dir(7);
    files_.set_file_size(5000);
    files_.set_jobs(2);
    files_.set_block_size(4096);
    files_ = rules::ResolveFiles(files_);
  }

  FilesPlan Plan(v1::FilesOp op) {
    FilesPlan plan;
    plan.files = files_;
    plan.op = op;
    plan.workspace = ws_;
    plan.relative = "tree";
    plan.agent_name = "node1";
    plan.seed = 42;
    return plan;
  }

  // Makes and runs one phase; returns its result.
  v1::StepResult RunPhase(v1::FilesOp op) {
    auto task = MakeFilesTask(Plan(op));
    EXPECT_TRUE(task.ok()) << task.status().message();
    if (!task.ok()) return {};
    std::atomic<bool> stop{false};
    Status st = (*task)->Run(stop);
    EXPECT_TRUE(st.ok()) << rules::FilesOpName(op) << ": " << st.message();
    v1::StepResult result;
    (*task)->Report(result);
    EXPECT_EQ((*task)->ops(), result.ops());
    EXPECT_EQ((*task)->bytes(), result.bytes());
    return result;
  }

  fs::path Tree() const { return fs::path(run_dir_) / "tree"; }
  fs::path FilePath(uint32_t d, uint32_t f) const { return Tree() / TreeDirName(d).text / TreeFileName(f).text; }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::shared_ptr<Workspace> ws_;
  std::string run_dir_;
  v1::FilesStep files_;
};

// Cleanup deletes exactly what the run made. A run that only made the
// directories never removes a file of the same generated name that someone else put there.
TEST_F(FilesTaskTest, CleanupAfterMkdirOnlyLeavesOthersFiles) {
  RunPhase(v1::FILES_OP_MKDIR);
  std::ofstream(FilePath(0, 1)) << "user data";
  ws_->Cleanup();
  EXPECT_TRUE(fs::exists(FilePath(0, 1)));
  EXPECT_FALSE(fs::exists(Tree() / TreeDirName(1).text));  // the run's own empty directories went
}

// A create phase that meets a file it did not make fails there; what it made goes at cleanup,
// the other file stays.
TEST_F(FilesTaskTest, CleanupAfterAFailedCreateRemovesOnlyTheCreatedFiles) {
  files_.set_jobs(1);
  RunPhase(v1::FILES_OP_MKDIR);
  std::ofstream(FilePath(1, 2)) << "user data";  // file 9 of 21: the create stops there
  auto task = MakeFilesTask(Plan(v1::FILES_OP_CREATE));
  ASSERT_TRUE(task.ok());
  std::atomic<bool> stop{false};
  EXPECT_FALSE((*task)->Run(stop).ok());
  EXPECT_TRUE(fs::exists(FilePath(1, 1)));
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(FilePath(1, 1)));
  EXPECT_FALSE(fs::exists(FilePath(0, 0)));
  EXPECT_TRUE(fs::exists(FilePath(1, 2)));
}

TEST_F(FilesTaskTest, EveryPhaseInSequence) {
  const uint64_t files = 3 * 7;

  v1::StepResult mkdir = RunPhase(v1::FILES_OP_MKDIR);
  EXPECT_EQ(mkdir.ops(), 3u);
  EXPECT_EQ(mkdir.bytes(), 0u);
  EXPECT_EQ(LatencyCount(mkdir), 3u);
  for (uint32_t d = 0; d < 3; ++d) EXPECT_TRUE(fs::is_directory(Tree() / TreeDirName(d).text)) << d;
  EXPECT_EQ(testing::CountEntries(Tree()), 3u);

  v1::StepResult create = RunPhase(v1::FILES_OP_CREATE);
  EXPECT_EQ(create.ops(), files);
  EXPECT_EQ(create.bytes(), files * 5000);
  EXPECT_EQ(LatencyCount(create), files);
  for (uint32_t d = 0; d < 3; ++d) {
    for (uint32_t f = 0; f < 7; ++f) {
      ASSERT_TRUE(fs::is_regular_file(FilePath(d, f))) << FilePath(d, f);
      EXPECT_EQ(fs::file_size(FilePath(d, f)), 5000u) << FilePath(d, f);
    }
  }
  EXPECT_EQ(testing::CountEntries(Tree()), 3u + files);
  // Fresh data: two files do not hold the same bytes.
  std::ifstream a(FilePath(0, 0), std::ios::binary), b(FilePath(2, 6), std::ios::binary);
  std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_NE(sa, sb);

  v1::StepResult stat = RunPhase(v1::FILES_OP_STAT);
  EXPECT_EQ(stat.ops(), files);
  EXPECT_EQ(stat.bytes(), 0u);
  EXPECT_EQ(LatencyCount(stat), files);

  v1::StepResult read = RunPhase(v1::FILES_OP_READ);
  EXPECT_EQ(read.ops(), files);
  EXPECT_EQ(read.bytes(), files * 5000);
  EXPECT_EQ(LatencyCount(read), files);

  v1::StepResult del = RunPhase(v1::FILES_OP_DELETE);
  EXPECT_EQ(del.ops(), files);
  EXPECT_EQ(del.bytes(), 0u);
  for (uint32_t d = 0; d < 3; ++d) {
    for (uint32_t f = 0; f < 7; ++f) EXPECT_FALSE(fs::exists(FilePath(d, f))) << FilePath(d, f);
  }
  EXPECT_EQ(testing::CountEntries(Tree()), 3u);  // directories only

  v1::StepResult rmdir = RunPhase(v1::FILES_OP_RMDIR);
  EXPECT_EQ(rmdir.ops(), 3u);
  EXPECT_EQ(LatencyCount(rmdir), 3u);
  EXPECT_TRUE(fs::is_directory(Tree()));  // the tree's own directory stays until cleanup
  EXPECT_EQ(testing::CountEntries(Tree()), 0u);

  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(Tree()));
}

TEST_F(FilesTaskTest, DirectoriesOnly) {
  files_.set_files_per_dir(0);
  EXPECT_EQ(RunPhase(v1::FILES_OP_MKDIR).ops(), 3u);
  v1::StepResult create = RunPhase(v1::FILES_OP_CREATE);
  EXPECT_EQ(create.ops(), 0u);
  EXPECT_EQ(testing::CountEntries(Tree()), 3u);
}

TEST_F(FilesTaskTest, MoreJobsThanDirectories) {
  files_.set_jobs(5);
  EXPECT_EQ(RunPhase(v1::FILES_OP_MKDIR).ops(), 3u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_CREATE).ops(), 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_DELETE).ops(), 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_RMDIR).ops(), 3u);
}

TEST_F(FilesTaskTest, BlockSizeLargerThanTheFileAndNotAligned) {
  files_.set_block_size(3000);  // 5000 = 3000 + 2000
  RunPhase(v1::FILES_OP_MKDIR);
  EXPECT_EQ(RunPhase(v1::FILES_OP_CREATE).bytes(), 21u * 5000);
  EXPECT_EQ(fs::file_size(FilePath(1, 3)), 5000u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_READ).bytes(), 21u * 5000);
}

TEST_F(FilesTaskTest, SizesDrawnPerFile) {
  files_.clear_file_size();
  auto* small = files_.add_sizes();
  small->set_size(100);
  small->set_weight(3);
  auto* large = files_.add_sizes();
  large->set_size(9000);
  large->set_weight(1);
  RunPhase(v1::FILES_OP_MKDIR);
  v1::StepResult create = RunPhase(v1::FILES_OP_CREATE);
  uint64_t expected = 0;
  for (uint32_t d = 0; d < 3; ++d) {
    for (uint32_t f = 0; f < 7; ++f) {
      uint64_t size = TreeFileSize(files_, 42, uint64_t{d} * 7 + f);
      expected += size;
      EXPECT_EQ(fs::file_size(FilePath(d, f)), size) << FilePath(d, f);
    }
  }
  EXPECT_EQ(create.bytes(), expected);
  EXPECT_EQ(RunPhase(v1::FILES_OP_READ).bytes(), expected);
}

TEST(TreeFileSize, FileSizeOrDeterministicDrawFromSizes) {
  v1::FilesStep fixed;
  fixed.set_file_size(5000);
  EXPECT_EQ(TreeFileSize(fixed, 1, 0), 5000u);
  EXPECT_EQ(TreeFileSize(fixed, 99, 12345), 5000u);

  v1::FilesStep drawn;
  auto* a = drawn.add_sizes();
  a->set_size(4096);
  a->set_weight(3);
  auto* b = drawn.add_sizes();
  b->set_size(1 << 20);
  b->set_weight(1);
  std::map<uint64_t, int> seen;
  bool differs_by_seed = false;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    uint64_t size = TreeFileSize(drawn, 7, i);
    EXPECT_EQ(size, TreeFileSize(drawn, 7, i));  // the same in every phase
    ++seen[size];
    differs_by_seed |= size != TreeFileSize(drawn, 8, i);
  }
  ASSERT_EQ(seen.size(), 2u);  // only sizes from the list, and both of them
  EXPECT_TRUE(seen.count(4096));
  EXPECT_TRUE(seen.count(1 << 20));
  // By weight: about 3 of 4 are small.
  EXPECT_GT(seen[4096], n * 70 / 100);
  EXPECT_LT(seen[4096], n * 80 / 100);
  EXPECT_TRUE(differs_by_seed);
}

TEST_F(FilesTaskTest, StatOnAMissingTreeNamesThePath) {
  auto task = MakeFilesTask(Plan(v1::FILES_OP_STAT));
  ASSERT_FALSE(task.ok());
  const std::string& m = task.status().message();
  EXPECT_NE(m.find("agent node1"), std::string::npos) << m;
  EXPECT_NE(m.find(run_dir_ + "/tree"), std::string::npos) << m;
  EXPECT_NE(m.find("files step with mkdir"), std::string::npos) << m;  // the hint
  EXPECT_FALSE(fs::exists(Tree()));  // not made by anything but mkdir
}

TEST_F(FilesTaskTest, StatOnATreeWithoutItsDirectoriesNamesTheEntry) {
  fs::create_directories(Tree());  // the tree's directory but no d000000
  auto task = MakeFilesTask(Plan(v1::FILES_OP_STAT));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find((Tree() / "d00000").string()), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("stat"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("ENOENT"), std::string::npos) << st.message();
}

TEST_F(FilesTaskTest, CreateTwiceFails) {
  RunPhase(v1::FILES_OP_MKDIR);
  RunPhase(v1::FILES_OP_CREATE);
  auto task = MakeFilesTask(Plan(v1::FILES_OP_CREATE));
  ASSERT_TRUE(task.ok());
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("create"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("EEXIST"), std::string::npos) << st.message();
}

TEST_F(FilesTaskTest, StopSetBeforeRunDoesNothing) {
  auto task = MakeFilesTask(Plan(v1::FILES_OP_MKDIR));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{true};
  EXPECT_TRUE((*task)->Run(stop).ok());
  EXPECT_EQ((*task)->ops(), 0u);
  EXPECT_EQ(testing::CountEntries(Tree()), 0u);  // the tree's directory (setup), nothing in it

  // The same for a files phase over an existing tree.
  RunPhase(v1::FILES_OP_MKDIR);
  auto create = MakeFilesTask(Plan(v1::FILES_OP_CREATE));
  ASSERT_TRUE(create.ok());
  EXPECT_TRUE((*create)->Run(stop).ok());
  EXPECT_EQ((*create)->ops(), 0u);
  EXPECT_EQ((*create)->bytes(), 0u);
  EXPECT_EQ(testing::CountEntries(Tree()), 3u);
}

TEST_F(FilesTaskTest, CleanupRemovesTheTreeButNotForeignEntries) {
  RunPhase(v1::FILES_OP_MKDIR);
  RunPhase(v1::FILES_OP_CREATE);
  std::ofstream(Tree() / "d000001" / "foreign") << "not ours";
  ws_->Cleanup();
  EXPECT_TRUE(fs::exists(Tree() / "d000001" / "foreign"));
  EXPECT_FALSE(fs::exists(Tree() / "d000000"));
  EXPECT_FALSE(fs::exists(Tree() / "d000002"));
  // d000001 stays (not empty), and so do the directories above it; nothing else is left.
  std::set<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(Tree())) left.insert(fs::relative(e.path(), Tree()).string());
  EXPECT_EQ(left, (std::set<std::string>{"d000001", "d000001/foreign"}));
}

TEST_F(FilesTaskTest, TreeBelowANestedDirectory) {
  FilesPlan plan = Plan(v1::FILES_OP_MKDIR);
  plan.relative = "a/b/tree";
  auto task = MakeFilesTask(plan);
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  ASSERT_TRUE((*task)->Run(stop).ok());
  EXPECT_TRUE(fs::is_directory(fs::path(run_dir_) / "a/b/tree/d000002"));
  task->reset();
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(fs::path(run_dir_) / "a"));
}

// Layout: per_job gives each job a tree of its own, <dir>/jNNNNNN/dNNNNNN/fNNNNNN, so
// that jobs do not serialize on one parent's lock (mdtest -u). The directories are dealt out as
// in the shared layout (3 over 2 jobs: 1 and 2), and the files are the same ones (sizes).
TEST_F(FilesTaskTest, PerJobLayoutGivesEachJobItsOwnTree) {
  files_.set_layout(v1::FILES_LAYOUT_PER_JOB);
  files_.clear_file_size();
  auto* small = files_.add_sizes();
  small->set_size(100);
  small->set_weight(1);
  auto* large = files_.add_sizes();
  large->set_size(9000);
  large->set_weight(1);
  EXPECT_EQ(RunPhase(v1::FILES_OP_MKDIR).ops(), 3u);
  EXPECT_EQ(testing::CountEntries(Tree()), 5u);  // j000000 (1 directory), j000001 (2)
  EXPECT_TRUE(fs::is_directory(Tree() / "j000000" / "d000000"));
  EXPECT_TRUE(fs::is_directory(Tree() / "j000001" / "d000000"));
  EXPECT_TRUE(fs::is_directory(Tree() / "j000001" / "d000001"));
  EXPECT_FALSE(fs::exists(Tree() / "j000000" / "d000001"));

  v1::StepResult create = RunPhase(v1::FILES_OP_CREATE);
  EXPECT_EQ(create.ops(), 21u);
  uint64_t expected = 0;
  // Shared directory d of the tree is job 0's d000000 (d = 0) or job 1's d(d - 1).
  for (uint32_t d = 0; d < 3; ++d) {
    fs::path dir = d == 0 ? Tree() / "j000000" / "d000000" : Tree() / "j000001" / TreeDirName(d - 1).text;
    for (uint32_t f = 0; f < 7; ++f) {
      uint64_t size = TreeFileSize(files_, 42, uint64_t{d} * 7 + f);
      expected += size;
      ASSERT_TRUE(fs::is_regular_file(dir / TreeFileName(f).text)) << dir;
      EXPECT_EQ(fs::file_size(dir / TreeFileName(f).text), size) << dir;
    }
  }
  EXPECT_EQ(create.bytes(), expected);
  EXPECT_EQ(RunPhase(v1::FILES_OP_STAT).ops(), 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_READ).bytes(), expected);
  EXPECT_EQ(RunPhase(v1::FILES_OP_DELETE).ops(), 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_RMDIR).ops(), 3u);
  EXPECT_EQ(testing::CountEntries(Tree()), 2u);  // the jobs' own directories stay until cleanup
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(Tree()));
}

// Cleanup of a per-job tree removes exactly what each job made: a foreign file where a job's
// create stopped stays, with the directories above it; everything else goes.
TEST_F(FilesTaskTest, PerJobCleanupAfterAFailedCreateRemovesOnlyWhatWasMade) {
  files_.set_layout(v1::FILES_LAYOUT_PER_JOB);
  RunPhase(v1::FILES_OP_MKDIR);
  std::ofstream(Tree() / "j000001" / "d000001" / "f000002") << "user data";
  auto task = MakeFilesTask(Plan(v1::FILES_OP_CREATE));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find((Tree() / "j000001" / "d000001" / "f000002").string()), std::string::npos) << st.message();
  task->reset();
  ws_->Cleanup();
  std::set<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(Tree())) left.insert(fs::relative(e.path(), Tree()).string());
  EXPECT_EQ(left, (std::set<std::string>{"j000001", "j000001/d000001", "j000001/d000001/f000002"}));
}

// More jobs than directories: a job without directories makes no tree of its own.
TEST_F(FilesTaskTest, PerJobMoreJobsThanDirectories) {
  files_.set_layout(v1::FILES_LAYOUT_PER_JOB);
  files_.set_jobs(5);
  EXPECT_EQ(RunPhase(v1::FILES_OP_MKDIR).ops(), 3u);
  std::set<std::string> jobs;
  for (const auto& e : fs::directory_iterator(Tree())) jobs.insert(e.path().filename().string());
  EXPECT_EQ(jobs, (std::set<std::string>{"j000001", "j000003", "j000004"}));
  EXPECT_EQ(RunPhase(v1::FILES_OP_CREATE).ops(), 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_DELETE).ops(), 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_RMDIR).ops(), 3u);
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(Tree()));
}

// A new sweep point removes the files and trees; the jobs' directories stay, and the next
// point's mkdir uses them again.
TEST_F(FilesTaskTest, PerJobTreeAgainAfterANewPoint) {
  files_.set_layout(v1::FILES_LAYOUT_PER_JOB);
  RunPhase(v1::FILES_OP_MKDIR);
  RunPhase(v1::FILES_OP_CREATE);
  ws_->RemoveFiles();
  EXPECT_EQ(testing::CountEntries(Tree()), 2u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_MKDIR).ops(), 3u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_CREATE).ops(), 21u);
  ws_->Cleanup();
  EXPECT_FALSE(fs::exists(Tree()));
}

// sync: fsync counts one fsync per created file, inside the create's time; syncfs one at the
// phase's end; none (the default) none. Other phases never sync.
TEST_F(FilesTaskTest, CreateCountsItsSyncWhenAsked) {
  RunPhase(v1::FILES_OP_MKDIR);
  v1::StepResult plain = RunPhase(v1::FILES_OP_CREATE);
  EXPECT_EQ(plain.fsyncs(), 0u);
  RunPhase(v1::FILES_OP_DELETE);

  files_.set_sync(v1::FILES_SYNC_FSYNC);
  v1::StepResult fsynced = RunPhase(v1::FILES_OP_CREATE);
  EXPECT_EQ(fsynced.ops(), 21u);
  EXPECT_EQ(fsynced.fsyncs(), 21u);
  uint64_t n = 0;
  for (uint64_t c : fsynced.fsync_latency_ns().count()) n += c;
  EXPECT_EQ(n, 21u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_STAT).fsyncs(), 0u);
  RunPhase(v1::FILES_OP_DELETE);

  files_.set_sync(v1::FILES_SYNC_SYNCFS);
  v1::StepResult synced = RunPhase(v1::FILES_OP_CREATE);
  EXPECT_EQ(synced.ops(), 21u);
  EXPECT_EQ(synced.fsyncs(), 1u);
  EXPECT_EQ(RunPhase(v1::FILES_OP_READ).fsyncs(), 0u);
}

TEST(TreeSliceOf, SharedSlicesTheWholeTreePerJobRenumbersEachJobsDirectories) {
  v1::FilesStep files;
  files.set_dirs(3);
  files.set_files_per_dir(7);
  files.set_jobs(2);
  JobTreeSlice shared = TreeSliceOf(files, v1::FILES_OP_CREATE, 1);
  EXPECT_EQ(shared.begin, 10u);
  EXPECT_EQ(shared.end, 21u);
  EXPECT_EQ(shared.index_offset, 0u);
  files.set_layout(v1::FILES_LAYOUT_PER_JOB);
  JobTreeSlice own = TreeSliceOf(files, v1::FILES_OP_CREATE, 1);
  EXPECT_EQ(own.begin, 0u);
  EXPECT_EQ(own.end, 14u);
  EXPECT_EQ(own.index_offset, 7u);
  JobTreeSlice dirs = TreeSliceOf(files, v1::FILES_OP_RMDIR, 1);
  EXPECT_EQ(dirs.begin, 0u);
  EXPECT_EQ(dirs.end, 2u);
}

TEST_F(FilesTaskTest, RefusesATreeOutsideTheRunDirectory) {
  FilesPlan plan = Plan(v1::FILES_OP_MKDIR);
  plan.relative = "../escape";
  EXPECT_FALSE(MakeFilesTask(plan).ok());
  EXPECT_FALSE(fs::exists(fs::path(run_dir_) / ".." / "escape"));
}

// A FIFO put at a generated name before the read phase (by anyone who can
// write in the root) is refused at once, naming the agent and the path; it never holds the
// agent in open() until someone writes to it.
TEST_F(FilesTaskTest, ReadRefusesAFifoAtAFileNameWithoutHanging) {
  RunPhase(v1::FILES_OP_MKDIR);
  RunPhase(v1::FILES_OP_CREATE);
  fs::remove(FilePath(1, 3));
  ASSERT_EQ(mkfifo(FilePath(1, 3).c_str(), 0644), 0);
  auto task = MakeFilesTask(Plan(v1::FILES_OP_READ));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st;
  EXPECT_TRUE(testing::ReturnsWithin(std::chrono::seconds(10), {FilePath(1, 3)}, [&] { st = (*task)->Run(stop); }))
      << "the read phase hung on the FIFO";
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("agent node1: " + FilePath(1, 3).string() + ": read: "), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("not a regular file (a FIFO)"), std::string::npos) << st.message();
  fs::remove(FilePath(1, 3));
}

// A hard link to a bigger file outside the root swapped in before the read
// phase is not the file this run created: the step fails naming it, and nothing of the outside
// file is counted (the read never goes past what the run wrote).
TEST_F(FilesTaskTest, ReadRefusesAHardLinkToABiggerOutsideFile) {
  files_.set_jobs(1);
  RunPhase(v1::FILES_OP_MKDIR);
  RunPhase(v1::FILES_OP_CREATE);
  const fs::path outside = tmp_ / "outside.bin";
  std::ofstream(outside, std::ios::binary) << std::string(1'000'000, 'x');
  fs::remove(FilePath(0, 2));
  fs::create_hard_link(outside, FilePath(0, 2));
  auto task = MakeFilesTask(Plan(v1::FILES_OP_READ));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok()) << "read " << (*task)->bytes() << " bytes";
  EXPECT_NE(st.message().find("agent node1: " + FilePath(0, 2).string() + ": read: "), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("has 2 links"), std::string::npos) << st.message();
  EXPECT_EQ((*task)->bytes(), 2u * 5000);  // the two files before it, and nothing of the link
  fs::remove(FilePath(0, 2));
}

// A file of the run's that grew since it was made (appended to in place, its only link) is not
// read to its new end: the step fails naming its size and the one the run gave it.
TEST_F(FilesTaskTest, ReadRefusesAFileThatIsNotTheSizeTheRunMadeIt) {
  files_.set_jobs(1);
  RunPhase(v1::FILES_OP_MKDIR);
  RunPhase(v1::FILES_OP_CREATE);
  std::ofstream(FilePath(2, 0), std::ios::binary | std::ios::app) << std::string(100'000, 'y');
  auto task = MakeFilesTask(Plan(v1::FILES_OP_READ));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok()) << "read " << (*task)->bytes() << " bytes";
  EXPECT_NE(st.message().find(FilePath(2, 0).string() + ": read: holds 105000 bytes, not the 5000 this run wrote"),
            std::string::npos)
      << st.message();
  EXPECT_EQ((*task)->bytes(), 14u * 5000);
}

// Only what this run's create made is read: files put at the generated names by someone else,
// even of the right size, fail the step.
TEST_F(FilesTaskTest, ReadRefusesFilesThisRunDidNotCreate) {
  RunPhase(v1::FILES_OP_MKDIR);
  for (uint32_t d = 0; d < 3; ++d) {
    for (uint32_t f = 0; f < 7; ++f) std::ofstream(FilePath(d, f), std::ios::binary) << std::string(5000, 'z');
  }
  auto task = MakeFilesTask(Plan(v1::FILES_OP_READ));
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  ASSERT_FALSE(st.ok()) << "read " << (*task)->bytes() << " bytes";
  EXPECT_NE(st.message().find("read: not a file this run created"), std::string::npos) << st.message();
  EXPECT_EQ((*task)->bytes(), 0u);
}

// The read phase of a later step reads what the create of an earlier step made, at the sizes
// that step drew, whatever its own sizes say.
TEST_F(FilesTaskTest, ReadInALaterStepReadsTheSizesTheCreateDrew) {
  files_.clear_file_size();
  auto* small = files_.add_sizes();
  small->set_size(1000);
  small->set_weight(1);
  auto* large = files_.add_sizes();
  large->set_size(9000);
  large->set_weight(1);
  const uint64_t created = RunPhase(v1::FILES_OP_MKDIR).bytes() + RunPhase(v1::FILES_OP_CREATE).bytes();
  files_.clear_sizes();
  files_.set_file_size(0);
  FilesPlan later = Plan(v1::FILES_OP_READ);
  later.seed = 7;  // another step: another seed
  auto task = MakeFilesTask(later);
  ASSERT_TRUE(task.ok()) << task.status().message();
  std::atomic<bool> stop{false};
  Status st = (*task)->Run(stop);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ((*task)->bytes(), created);
}

}  // namespace
}  // namespace iofleet::agent
