#include "agent/fs/workspace.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/stat.h>

#include <fstream>
#include <set>

#include "agent/fs/confined_fs.h"
#include "agent/fs/tree_names.h"
#include "tests/support/hang_guard.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

class WorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    fs::create_directories(tmp_ / "outside");
    std::ofstream(tmp_ / "outside" / "canary") << "canary";
    auto roots = Roots::Open({(tmp_ / "root").string()});
    ASSERT_TRUE(roots.ok()) << roots.status().message();
    roots_ = std::make_unique<Roots>(std::move(*roots));
  }
  const Root& root() { return *roots_->Find("default"); }
  void ExpectCanaryUntouched() {
    std::ifstream in(tmp_ / "outside" / "canary");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text, "canary");
    EXPECT_EQ(testing::CountEntries(tmp_ / "outside"), 1u);
  }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
};

TEST_F(WorkspaceTest, CreatesRunDirectoryAndRemovesOnlyWhatItCreated) {
  fs::create_directories(tmp_ / "root" / "bench");
  std::ofstream(tmp_ / "root" / "bench" / "keep.txt") << "user data";
  auto ws = Workspace::Create(root(), "bench/deeper", "run-1", "node1");
  ASSERT_TRUE(ws.ok()) << ws.status().message();
  EXPECT_TRUE(fs::is_directory(tmp_ / "root/bench/deeper/iofleet/run-1/node1"));
  auto fd = (*ws)->OpenFile("job-0.dat", O_RDWR | O_CREAT);
  ASSERT_TRUE(fd.ok());
  close(*fd);
  EXPECT_EQ((*ws)->Cleanup(), 5u);  // deeper, iofleet, run-1, node1, job-0.dat: not bench
  EXPECT_TRUE(fs::exists(tmp_ / "root/bench/keep.txt"));
  EXPECT_FALSE(fs::exists(tmp_ / "root/bench/deeper"));
}

TEST_F(WorkspaceTest, CleanupLeavesForeignEntries) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  std::ofstream(tmp_ / "root/iofleet/run-1/node1/foreign") << "x";
  (*ws)->Cleanup();
  EXPECT_TRUE(fs::exists(tmp_ / "root/iofleet/run-1/node1/foreign"));
  EXPECT_FALSE((*ws)->OpenFile("late.dat", O_RDWR | O_CREAT).ok());  // closed after cleanup
}

TEST_F(WorkspaceTest, RefusesDotDotAndAbsolutePaths) {
  EXPECT_FALSE(Workspace::Create(root(), "../outside", "run-1", "node1").ok());
  EXPECT_FALSE(Workspace::Create(root(), (tmp_ / "outside").string(), "run-1", "node1").ok());
  EXPECT_FALSE(Workspace::Create(root(), "a/../../outside", "run-1", "node1").ok());
  EXPECT_FALSE(Workspace::Create(root(), "", "..", "node1").ok());
  EXPECT_FALSE(Workspace::Create(root(), "", "run-1", "../../outside").ok());
  EXPECT_FALSE(Workspace::Create(root(), "", "run/1", "node1").ok());
  ExpectCanaryUntouched();
  EXPECT_EQ(testing::CountEntries(tmp_ / "root"), 0u);
}

TEST_F(WorkspaceTest, RefusesSymlinkOutOfTheRoot) {
  fs::create_directory_symlink(tmp_ / "outside", tmp_ / "root" / "evil");
  auto ws = Workspace::Create(root(), "evil", "run-1", "node1");
  ASSERT_FALSE(ws.ok());
  EXPECT_NE(ws.status().message().find("refused"), std::string::npos) << ws.status().message();
  auto nested = Workspace::Create(root(), "evil/sub", "run-1", "node1");
  EXPECT_FALSE(nested.ok());
  ExpectCanaryUntouched();
}

TEST_F(WorkspaceTest, RefusesSymlinkedFileInsideRunDirectory) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  fs::create_symlink(tmp_ / "outside" / "canary", tmp_ / "root/iofleet/run-1/node1/job-0.dat");
  auto fd = (*ws)->OpenFile("job-0.dat", O_RDWR | O_CREAT | O_TRUNC);
  EXPECT_FALSE(fd.ok());
  EXPECT_FALSE((*ws)->RemoveFile("job-0.dat").ok());  // not created by this run
  (*ws)->Cleanup();
  ExpectCanaryUntouched();
}

TEST_F(WorkspaceTest, ExistingRunDirectoryIsAnError) {
  fs::create_directories(tmp_ / "root/iofleet/run-1/node1");
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.status().code(), Code::kAlreadyExists);
  EXPECT_TRUE(fs::exists(tmp_ / "root/iofleet/run-1/node1"));
}

TEST_F(WorkspaceTest, OpenDirectoryCreatesAndRecordsMissingParts) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  const fs::path run = (*ws)->run_dir();
  fs::create_directories(run / "a");  // not the run's: stays after cleanup
  std::ofstream(run / "a" / "user.txt") << "user data";
  auto fd = (*ws)->OpenDirectory("a/b/c", true);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  EXPECT_TRUE(fs::is_directory(run / "a/b/c"));
  // The descriptor is the directory: *at calls land in it.
  ASSERT_EQ(mkdirat(*fd, "inside", 0755), 0);
  close(*fd);
  EXPECT_TRUE(fs::is_directory(run / "a/b/c/inside"));
  fs::remove(run / "a/b/c/inside");
  // Opening again without create finds it; a missing one is an error naming the path.
  auto again = (*ws)->OpenDirectory("a/b/c", false);
  ASSERT_TRUE(again.ok()) << again.status().message();
  close(*again);
  auto missing = (*ws)->OpenDirectory("a/x", false);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find((run / "a/x").string()), std::string::npos) << missing.status().message();
  EXPECT_FALSE(fs::exists(run / "a/x"));
  EXPECT_EQ((*ws)->Cleanup(), 2u);  // c and b: not a, so node1 (holding a) stays too
  EXPECT_EQ(testing::ReadAll(run / "a" / "user.txt"), "user data");
  EXPECT_FALSE(fs::exists(run / "a/b"));
  EXPECT_TRUE(fs::is_directory(run / "a"));
}

TEST_F(WorkspaceTest, OpenDirectoryEmptyIsTheRunDirectory) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  for (bool create : {false, true}) {
    auto fd = (*ws)->OpenDirectory("", create);
    ASSERT_TRUE(fd.ok()) << fd.status().message();
    struct stat a, b;
    ASSERT_EQ(fstat(*fd, &a), 0);
    ASSERT_EQ(stat((*ws)->run_dir().c_str(), &b), 0);
    close(*fd);
    EXPECT_EQ(a.st_ino, b.st_ino);
    EXPECT_EQ(a.st_dev, b.st_dev);
  }
  EXPECT_EQ(testing::CountEntries((*ws)->run_dir()), 0u);
}

TEST_F(WorkspaceTest, OpenDirectoryRefusesDotDot) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  for (const char* bad : {"..", "../escape", "a/../../escape", "a/../b", "/abs", "a//b", "."}) {
    auto fd = (*ws)->OpenDirectory(bad, true);
    ASSERT_FALSE(fd.ok()) << bad;
    EXPECT_EQ(fd.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(fd.status().message().find("refused"), std::string::npos) << fd.status().message();
    EXPECT_FALSE((*ws)->OpenBelow(bad, O_RDONLY).ok()) << bad;
  }
  EXPECT_EQ(testing::CountEntries((*ws)->run_dir()), 0u);
  EXPECT_FALSE(fs::exists(tmp_ / "root/iofleet/run-1/escape"));
  ExpectCanaryUntouched();
}

TEST_F(WorkspaceTest, OpenDirectoryRefusesASymlinkOutOfTheRoot) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  fs::create_directory_symlink(tmp_ / "outside", fs::path((*ws)->run_dir()) / "evil");
  EXPECT_FALSE((*ws)->OpenDirectory("evil", false).ok());
  EXPECT_FALSE((*ws)->OpenDirectory("evil/sub", true).ok());
  EXPECT_FALSE(fs::exists(tmp_ / "outside" / "sub"));
  (*ws)->Cleanup();
  ExpectCanaryUntouched();
}

TEST_F(WorkspaceTest, OpenDirectoryAfterCleanupIsRefused) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  (*ws)->Cleanup();
  auto fd = (*ws)->OpenDirectory("late", true);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kAborted);
  EXPECT_FALSE(fs::exists(tmp_ / "root/iofleet"));
}

// Makes <run>/<tree>/dNNNNNN/fNNNNNN by hand, as a files step would.
void MakeTree(const fs::path& tree, uint32_t dirs, uint32_t files) {
  for (uint32_t d = 0; d < dirs; ++d) {
    fs::create_directories(tree / TreeDirName(d).text);
    for (uint32_t f = 0; f < files; ++f) std::ofstream(tree / TreeDirName(d).text / TreeFileName(f).text) << "x";
  }
}

TEST_F(WorkspaceTest, RecordTreeAndCleanupRemoveExactlyTheGeneratedNames) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  const fs::path tree = fs::path((*ws)->run_dir()) / "t";
  auto fd = (*ws)->OpenDirectory("t", true);
  ASSERT_TRUE(fd.ok());
  close(*fd);
  MakeTree(tree, 3, 4);
  (*ws)->RecordTree("t", 2, 3);  // a smaller shape first (mkdir), then the full one (create)
  (*ws)->RecordTree("t", 3, 4);
  std::ofstream(tree / "d000000" / "f000004") << "beyond files_per_dir: not ours";
  std::ofstream(tree / "d000001" / "notes.txt") << "not ours";
  fs::create_directories(tree / "d000003");  // beyond dirs: not ours
  uint64_t removed = (*ws)->Cleanup();
  EXPECT_EQ(removed, 12u + 1u);  // the 12 files and d000002; d000000, d000001 and t hold others
  std::set<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(tree)) left.insert(fs::relative(e.path(), tree).string());
  EXPECT_EQ(left, (std::set<std::string>{"d000000", "d000000/f000004", "d000001", "d000001/notes.txt", "d000003"}));
}

TEST_F(WorkspaceTest, RecordTreeInAnExistingDirectoryLeavesTheDirectory) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  const fs::path tree = fs::path((*ws)->run_dir()) / "user-tree";
  fs::create_directories(tree);  // not made by the run
  MakeTree(tree, 2, 2);
  (*ws)->RecordTree("user-tree", 2, 2);
  EXPECT_FALSE((*ws)->Recorded("user-tree"));  // a tree is not an entry a copy may replace
  (*ws)->Cleanup();
  EXPECT_TRUE(fs::is_directory(tree));
  EXPECT_EQ(testing::CountEntries(tree), 0u);
}

TEST_F(WorkspaceTest, RecordRecordedAndRemoveRecordedUnder) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  const fs::path run = (*ws)->run_dir();
  fs::create_directories(run / "c/sub");
  std::ofstream(run / "c/sub/x") << "x";
  std::ofstream(run / "c/y") << "y";
  fs::create_directories(run / "cc");
  std::ofstream(run / "c/user") << "not recorded";
  (*ws)->Record("c", true);
  (*ws)->Record("c/sub", true);
  (*ws)->Record("c/sub/x", false);
  (*ws)->Record("c/y", false);
  (*ws)->Record("cc", true);  // a sibling whose name starts the same
  EXPECT_TRUE((*ws)->Recorded("c"));
  EXPECT_TRUE((*ws)->Recorded("c/sub/x"));
  EXPECT_TRUE((*ws)->Recorded("cc"));
  EXPECT_FALSE((*ws)->Recorded("c/user"));
  EXPECT_FALSE((*ws)->Recorded("d"));
  EXPECT_FALSE((*ws)->Recorded(""));

  // c/user keeps c in place; every recorded entry below c goes and is forgotten.
  EXPECT_EQ((*ws)->RemoveRecordedUnder("c"), 3u);  // x, y, sub
  EXPECT_FALSE(fs::exists(run / "c/sub"));
  EXPECT_FALSE(fs::exists(run / "c/y"));
  EXPECT_TRUE(fs::exists(run / "c/user"));
  EXPECT_TRUE(fs::is_directory(run / "cc"));
  EXPECT_FALSE((*ws)->Recorded("c"));
  EXPECT_FALSE((*ws)->Recorded("c/sub/x"));
  EXPECT_TRUE((*ws)->Recorded("cc"));
  EXPECT_EQ((*ws)->RemoveRecordedUnder("c"), 0u);

  fs::remove(run / "c/user");
  (*ws)->Cleanup();
  EXPECT_FALSE(fs::exists(run / "cc"));
  EXPECT_TRUE(fs::is_directory(run / "c"));  // forgotten: no longer the run's to remove
}

TEST_F(WorkspaceTest, RemoveFilesRemovesFilesAndTreesButKeepsDirectories) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  const fs::path run = (*ws)->run_dir();
  auto file = (*ws)->OpenFile("job-0.dat", O_RDWR | O_CREAT);
  ASSERT_TRUE(file.ok());
  close(*file);
  auto dir = (*ws)->OpenDirectory("trees/t", true);
  ASSERT_TRUE(dir.ok());
  close(*dir);
  MakeTree(run / "trees/t", 2, 3);
  (*ws)->RecordTree("trees/t", 2, 3);
  fs::create_directories(run / "copy");
  std::ofstream(run / "copy/f") << "f";
  (*ws)->Record("copy", true);
  (*ws)->Record("copy/f", false);

  EXPECT_EQ((*ws)->RemoveFiles(), 1u + 6u + 2u + 1u);  // job-0.dat, the tree's files and dirs, copy/f
  EXPECT_FALSE(fs::exists(run / "job-0.dat"));
  EXPECT_FALSE(fs::exists(run / "copy/f"));
  EXPECT_TRUE(fs::is_directory(run / "trees/t"));
  EXPECT_EQ(testing::CountEntries(run / "trees/t"), 0u);
  EXPECT_TRUE(fs::is_directory(run / "copy"));
  EXPECT_EQ((*ws)->RemoveFiles(), 0u);
  // The directories are still recorded: cleanup removes them.
  (*ws)->Cleanup();
  EXPECT_FALSE(fs::exists(tmp_ / "root/iofleet"));
}

// A hard link to a file outside the root, put at a name the agent writes,
// never receives the agent's writes: once the agent created the file, every open goes through
// the descriptor from that creation; a file it did not create is refused.
TEST_F(WorkspaceTest, AHardLinkPlantedAtAnOwnFileNeverReceivesWrites) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok()) << ws.status().message();
  const fs::path job = tmp_ / "root/iofleet/run-1/node1/job-0.dat";
  auto created = (*ws)->OpenFile("job-0.dat", O_RDWR | O_CREAT);
  ASSERT_TRUE(created.ok());
  close(*created);
  fs::remove(job);  // someone who can write in the run directory swaps in a hard link
  fs::create_hard_link(tmp_ / "outside" / "canary", job);
  auto reopened = (*ws)->OpenFile("job-0.dat", O_RDWR | O_CREAT);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  ASSERT_EQ(pwrite(*reopened, "OVERWRITTEN", 11, 0), 11);
  close(*reopened);
  ExpectCanaryUntouched();

  fs::create_hard_link(tmp_ / "outside" / "canary", tmp_ / "root/iofleet/run-1/node1/job-1.dat");  // before creation
  auto planted = (*ws)->OpenFile("job-1.dat", O_RDWR | O_CREAT);
  ASSERT_FALSE(planted.ok());
  EXPECT_NE(planted.status().message().find("not created by this run"), std::string::npos) << planted.status().message();
  fs::remove(job);
  fs::remove(tmp_ / "root/iofleet/run-1/node1/job-1.dat");
  (*ws)->Cleanup();
  ExpectCanaryUntouched();
}

// Shared and peer files may be another agent's: a second link to them is refused.
TEST_F(WorkspaceTest, SharedFileWithASecondLinkIsRefused) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  fs::create_directories(tmp_ / "root/iofleet/run-1/shared");
  fs::create_hard_link(tmp_ / "outside" / "canary", tmp_ / "root/iofleet/run-1/shared/shared.dat");
  auto shared = (*ws)->OpenSharedFile("shared.dat", O_RDWR | O_CREAT);
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(shared.status().message().find("single link"), std::string::npos) << shared.status().message();
  fs::create_directories(tmp_ / "root/iofleet/run-1/node2");
  fs::create_hard_link(tmp_ / "outside" / "canary", tmp_ / "root/iofleet/run-1/node2/job-0.dat");
  EXPECT_FALSE((*ws)->OpenPeerFile("node2", "job-0.dat", O_RDONLY).ok());
  fs::remove_all(tmp_ / "root/iofleet/run-1/shared");
  fs::remove_all(tmp_ / "root/iofleet/run-1/node2");
  (*ws)->Cleanup();
  ExpectCanaryUntouched();
}

// An io step's job file that is another agent's (peer, shared) is opened
// without blocking: a FIFO put at its name is refused naming the path and what it is, and never
// holds the agent in open() until someone writes to it.
TEST_F(WorkspaceTest, AFifoAtAPeerOrSharedFileIsRefusedWithoutHanging) {
  auto ws = Workspace::Create(root(), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok());
  fs::create_directories(tmp_ / "root/iofleet/run-1/node2");
  fs::create_directories(tmp_ / "root/iofleet/run-1/shared");
  const fs::path peer = tmp_ / "root/iofleet/run-1/node2/job-0.dat";
  const fs::path shared = tmp_ / "root/iofleet/run-1/shared/shared.dat";
  ASSERT_EQ(mkfifo(peer.c_str(), 0644), 0);
  ASSERT_EQ(mkfifo(shared.c_str(), 0644), 0);
  Result<int> from_peer = Status::Ok(), from_shared = Status::Ok();
  EXPECT_TRUE(testing::ReturnsWithin(std::chrono::seconds(10), {peer, shared}, [&] {
    from_peer = (*ws)->OpenPeerFile("node2", "job-0.dat", O_RDONLY);
    from_shared = (*ws)->OpenSharedFile("shared.dat", O_WRONLY | O_CREAT);
  })) << "opening a FIFO hung";
  ASSERT_FALSE(from_peer.ok());
  EXPECT_NE(from_peer.status().message().find(peer.string() + ": not a regular file (a FIFO)"), std::string::npos)
      << from_peer.status().message();
  ASSERT_FALSE(from_shared.ok());
  EXPECT_NE(from_shared.status().message().find(shared.string() + ": not a regular file (a FIFO)"), std::string::npos)
      << from_shared.status().message();
  fs::remove_all(tmp_ / "root/iofleet/run-1/node2");
  fs::remove_all(tmp_ / "root/iofleet/run-1/shared");
  (*ws)->Cleanup();
}

TEST(OpenByWalking, RefusesWhatOpenat2Refuses) {
  testing::TempDir tmp;
  fs::create_directories(tmp / "root/a");
  fs::create_directories(tmp / "outside");
  std::ofstream(tmp / "outside/canary") << "canary";
  std::ofstream(tmp / "root/a/file") << "x";
  fs::create_directory_symlink(tmp / "outside", tmp / "root/link");
  fs::create_symlink(tmp / "outside/canary", tmp / "root/a/filelink");
  int root = open((tmp / "root").c_str(), O_PATH | O_DIRECTORY);
  ASSERT_GE(root, 0);
  for (const char* path : {"link/canary", "a/../../outside/canary", "../outside/canary", "a/filelink"}) {
    int walked = OpenByWalking(root, path, O_RDONLY);
    int direct = OpenBeneath(root, path, O_RDONLY);
    EXPECT_LT(walked, 0) << path;
    EXPECT_LT(direct, 0) << path;
  }
  EXPECT_LT(OpenByWalking(root, (tmp / "outside/canary").string(), O_RDONLY), 0);
  int fd = OpenByWalking(root, "a/file", O_RDONLY);
  EXPECT_GE(fd, 0);
  close(fd);
  fd = OpenByWalking(root, "a/new", O_RDWR | O_CREAT | O_EXCL, 0644);
  EXPECT_GE(fd, 0);
  close(fd);
  close(root);
  std::ifstream in(tmp / "outside/canary");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}), "canary");
}

TEST(Roots, NamesAndErrors) {
  testing::TempDir tmp;
  fs::create_directories(tmp / "a");
  fs::create_directories(tmp / "b");
  auto roots = Roots::Open({(tmp / "a").string(), "scratch=" + (tmp / "b").string()});
  ASSERT_TRUE(roots.ok()) << roots.status().message();
  EXPECT_NE(roots->Find("default"), nullptr);
  EXPECT_NE(roots->Find("scratch"), nullptr);
  EXPECT_FALSE(Roots::Open({(tmp / "missing").string()}).ok());
  EXPECT_FALSE(Roots::Open({(tmp / "a").string(), (tmp / "b").string()}).ok());  // two unnamed
  EXPECT_FALSE(Roots::Open({}).ok());
}

}  // namespace
}  // namespace iofleet::agent
