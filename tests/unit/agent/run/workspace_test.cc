#include "agent/run/workspace.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "agent/run/confined_fs.h"
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
