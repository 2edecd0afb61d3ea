// OpenBeneath against a real directory tree with every way out a client could try, through
// openat2 and through the per-component fallback.
#include "controller/serve/open_beneath.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include "tests/support/test_paths.h"

namespace iofleet::controller {
namespace {

namespace fs = std::filesystem;

using Opener = Result<UniqueFd> (*)(const std::string&, const std::string&);

class OpenBeneathTest : public ::testing::TestWithParam<Opener> {
 protected:
  void SetUp() override {
    base_ = fs::path(IOFLEET_TEST_TMP) / ("open_beneath_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    root_ = base_ / "results";
    fs::create_directories(root_ / "run1");
    Write(root_ / "run1" / "report.html", "<html>report</html>");
    Write(base_ / "secret.txt", "secret");
    fs::create_directories(base_ / "outside");
    Write(base_ / "outside" / "x", "outside");
  }
  void TearDown() override { fs::remove_all(base_); }

  static void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

  Result<UniqueFd> Open(const std::string& relative) { return GetParam()(root_.string(), relative); }

  static std::string ReadAll(int fd) {
    std::string text;
    char buf[256];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
    return text;
  }

  fs::path base_;
  fs::path root_;
};

TEST_P(OpenBeneathTest, OpensARegularFileUnderTheRoot) {
  auto fd = Open("run1/report.html");
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  EXPECT_EQ(ReadAll(fd->get()), "<html>report</html>");
  EXPECT_EQ(::fcntl(fd->get(), F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC, 0);
}

TEST_P(OpenBeneathTest, TheRootItselfMayBeReachedThroughALink) {
  fs::create_directory_symlink(root_, base_ / "results-link");
  auto fd = GetParam()((base_ / "results-link").string(), "run1/report.html");
  ASSERT_TRUE(fd.ok()) << fd.status().message();
}

TEST_P(OpenBeneathTest, MissingIsNotFound) {
  auto fd = Open("run1/nothing.html");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kNotFound);
  EXPECT_EQ(GetParam()((base_ / "no-root").string(), "x").status().code(), Code::kNotFound);
}

TEST_P(OpenBeneathTest, RefusesASymlinkOutOfTheRoot) {
  fs::create_symlink(base_ / "secret.txt", root_ / "run1" / "leak.txt");
  auto fd = Open("run1/leak.txt");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied) << fd.status().message();
  // A directory link pointing out, used as a directory on the way.
  fs::create_directory_symlink(base_ / "outside", root_ / "run2");
  fd = Open("run2/x");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied) << fd.status().message();
}

TEST_P(OpenBeneathTest, RefusesASymlinkInsideTheRootToo) {
  // Even a link that stays inside: links are how a tree gets a way out later.
  fs::create_symlink("report.html", root_ / "run1" / "alias.html");
  auto fd = Open("run1/alias.html");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied);
  fs::create_directory_symlink("run1", root_ / "latest");
  fd = Open("latest/report.html");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied);
}

TEST_P(OpenBeneathTest, RefusesClimbingAbsoluteAndEmptyComponents) {
  for (std::string path : {"../secret.txt", "run1/../../secret.txt", "run1/../run1/report.html", "..",
                           "run1/a/b/../../../../secret.txt", "./run1/report.html", "run1/./report.html",
                           "/etc/passwd", "", "run1//report.html", "run1/report.html/", "run1/"}) {
    auto fd = Open(path);
    ASSERT_FALSE(fd.ok()) << path;
    EXPECT_EQ(fd.status().code(), Code::kInvalidArgument) << path << ": " << fd.status().message();
  }
  auto fd = Open(std::string("run1/report.html\0.txt", 21));
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kInvalidArgument);
}

TEST_P(OpenBeneathTest, RefusesAFileUsedAsADirectory) {
  auto fd = Open("run1/report.html/x");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied) << fd.status().message();
}

TEST_P(OpenBeneathTest, RefusesDirectoriesAndFifos) {
  auto fd = Open("run1");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied) << fd.status().message();
  ASSERT_EQ(::mkfifo((root_ / "run1" / "pipe").c_str(), 0600), 0);
  // Without O_NONBLOCK this would wait for a writer forever.
  fd = Open("run1/pipe");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kPermissionDenied) << fd.status().message();
}

INSTANTIATE_TEST_SUITE_P(Openers, OpenBeneathTest,
                         ::testing::Values(&OpenBeneath, &serve_internal::OpenBeneathByComponents),
                         [](const auto& info) { return info.index == 0 ? std::string("Openat2") : std::string("ByComponents"); });

}  // namespace
}  // namespace iofleet::controller
