#include "core/rules/non_io_steps.h"

#include <gtest/gtest.h>

#include "tests/support/violations.h"

namespace iofleet::rules {
namespace {

constexpr uint64_t kMiB = 1 << 20;

std::vector<Violation> Check(const v1::Step& step) {
  std::vector<Violation> out;
  ValidateNonIoStep(step, "steps[2]", "default", out);
  return out;
}

v1::Step FilesStep(uint32_t dirs) {
  v1::Step step;
  step.mutable_files()->set_dirs(dirs);
  return step;
}

v1::Step CopyStep(const std::string& from, const std::string& to) {
  v1::Step step;
  step.mutable_copy()->set_from(from);
  step.mutable_copy()->set_to(to);
  return step;
}

TEST(ParseStepPlace, RootAndPath) {
  StepPlace p = ParseStepPlace("local:src");
  EXPECT_EQ(p.root, "local");
  EXPECT_EQ(p.path, "src");
  p = ParseStepPlace("src");
  EXPECT_EQ(p.root, "");
  EXPECT_EQ(p.path, "src");
  p = ParseStepPlace("a/b");
  EXPECT_EQ(p.root, "");
  EXPECT_EQ(p.path, "a/b");
  p = ParseStepPlace("scratch:a/b");
  EXPECT_EQ(p.root, "scratch");
  EXPECT_EQ(p.path, "a/b");
}

TEST(ResolveFiles, FillsDefaults) {
  v1::FilesStep in;
  in.set_dirs(4);
  v1::FilesStep out = ResolveFiles(in);
  EXPECT_EQ(out.dir(), "tree");
  ASSERT_EQ(out.ops_size(), 6);
  EXPECT_EQ(out.ops(0), v1::FILES_OP_MKDIR);
  EXPECT_EQ(out.ops(1), v1::FILES_OP_CREATE);
  EXPECT_EQ(out.ops(2), v1::FILES_OP_STAT);
  EXPECT_EQ(out.ops(3), v1::FILES_OP_READ);
  EXPECT_EQ(out.ops(4), v1::FILES_OP_DELETE);
  EXPECT_EQ(out.ops(5), v1::FILES_OP_RMDIR);
  EXPECT_EQ(out.jobs(), 1u);
  EXPECT_EQ(out.block_size(), kMiB);
  EXPECT_TRUE(out.has_file_size());
  EXPECT_EQ(out.file_size(), 0u);
  EXPECT_EQ(out.dirs(), 4u);
}

TEST(ResolveFiles, KeepsWhatIsSet) {
  v1::FilesStep in;
  in.set_dir("scratch:t");
  in.set_dirs(2);
  in.set_files_per_dir(9);
  in.set_file_size(4096);
  in.add_ops(v1::FILES_OP_CREATE);
  in.add_ops(v1::FILES_OP_READ);
  in.set_jobs(8);
  in.set_block_size(65536);
  v1::FilesStep out = ResolveFiles(in);
  EXPECT_EQ(out.dir(), "scratch:t");
  ASSERT_EQ(out.ops_size(), 2);
  EXPECT_EQ(out.ops(0), v1::FILES_OP_CREATE);
  EXPECT_EQ(out.ops(1), v1::FILES_OP_READ);
  EXPECT_EQ(out.jobs(), 8u);
  EXPECT_EQ(out.block_size(), 65536u);
  EXPECT_EQ(out.file_size(), 4096u);
  EXPECT_EQ(out.files_per_dir(), 9u);
}

TEST(ResolveFiles, SizesAreKeptAndNoFileSizeIsAdded) {
  v1::FilesStep in;
  in.set_dirs(1);
  auto* a = in.add_sizes();
  a->set_size(4096);
  a->set_weight(3);
  auto* b = in.add_sizes();
  b->set_size(kMiB);
  b->set_weight(1);
  v1::FilesStep out = ResolveFiles(in);
  EXPECT_FALSE(out.has_file_size());
  ASSERT_EQ(out.sizes_size(), 2);
  EXPECT_EQ(out.sizes(0).size(), 4096u);
  EXPECT_EQ(out.sizes(0).weight(), 3u);
  EXPECT_EQ(out.sizes(1).size(), kMiB);
  EXPECT_EQ(out.sizes(1).weight(), 1u);
}

TEST(ResolveCopy, FillsDefaultsAndKeepsWhatIsSet) {
  v1::CopyStep in;
  in.set_from("local:src");
  in.set_to("dst");
  v1::CopyStep out = ResolveCopy(in);
  EXPECT_EQ(out.jobs(), 1u);
  EXPECT_EQ(out.block_size(), kMiB);
  EXPECT_EQ(out.from(), "local:src");
  EXPECT_EQ(out.to(), "dst");

  in.set_jobs(16);
  in.set_block_size(8192);
  out = ResolveCopy(in);
  EXPECT_EQ(out.jobs(), 16u);
  EXPECT_EQ(out.block_size(), 8192u);
}

TEST(MeanFileSize, FileSizeOrWeightedMean) {
  v1::FilesStep f;
  EXPECT_EQ(MeanFileSize(f), 0u);
  f.set_file_size(5000);
  EXPECT_EQ(MeanFileSize(f), 5000u);

  v1::FilesStep w;
  auto* a = w.add_sizes();
  a->set_size(4096);
  a->set_weight(3);
  auto* b = w.add_sizes();
  b->set_size(kMiB);
  b->set_weight(1);
  EXPECT_EQ(MeanFileSize(w), (3 * 4096 + kMiB) / 4);  // weighted, not (4096 + 1MiB) / 2

  v1::FilesStep one;
  auto* c = one.add_sizes();
  c->set_size(777);
  c->set_weight(5);
  EXPECT_EQ(MeanFileSize(one), 777u);
}

TEST(FilesOpName, LowerCaseWithoutPrefix) {
  EXPECT_EQ(FilesOpName(v1::FILES_OP_MKDIR), "mkdir");
  EXPECT_EQ(FilesOpName(v1::FILES_OP_CREATE), "create");
  EXPECT_EQ(FilesOpName(v1::FILES_OP_STAT), "stat");
  EXPECT_EQ(FilesOpName(v1::FILES_OP_READ), "read");
  EXPECT_EQ(FilesOpName(v1::FILES_OP_DELETE), "delete");
  EXPECT_EQ(FilesOpName(v1::FILES_OP_RMDIR), "rmdir");
}

// Found by tests/fuzz/agent_session_fuzz: a files step whose ops hold a number that is no FilesOp
// (proto3 keeps unknown enum values) reached the agent's error message, where the name was cut
// after a prefix it did not have: std::out_of_range out of the step thread ended the agent.
TEST(FilesOpName, AValueThatIsNoOpIsNamedByItsNumber) {
  EXPECT_EQ(FilesOpName(static_cast<v1::FilesOp>(116)), "op 116");
  EXPECT_EQ(FilesOpName(v1::FILES_OP_UNSPECIFIED), "unspecified");
}

TEST(ValidateNonIoStep, ValidStepsHaveNoViolations) {
  v1::Step files = FilesStep(10);
  files.mutable_files()->set_files_per_dir(100);
  files.mutable_files()->set_file_size(4096);
  files.mutable_files()->set_dir("scratch:a/tree");
  EXPECT_TRUE(Check(files).empty()) << Describe(Check(files));
  EXPECT_TRUE(Check(CopyStep("local:src", "dst")).empty());
  EXPECT_TRUE(Check(CopyStep("src", "dst/copy")).empty());
  v1::Step hook;
  hook.mutable_hook()->set_name("mkfs_ext4-1");
  EXPECT_TRUE(Check(hook).empty()) << Describe(Check(hook));
  v1::Step io;
  io.mutable_io()->set_op(v1::OP_WRITE);
  EXPECT_TRUE(Check(io).empty());  // not a host step: nothing to say
}

TEST(ValidateNonIoStep, FilesNeedsDirs) {
  auto vs = Check(FilesStep(0));
  EXPECT_TRUE(HasViolation(vs, "steps[2].files.dirs", "needs dirs")) << Describe(vs);
}

TEST(ValidateNonIoStep, FilesFileSizeAndSizesTogether) {
  v1::Step step = FilesStep(1);
  step.mutable_files()->set_file_size(4096);
  auto* s = step.mutable_files()->add_sizes();
  s->set_size(8192);
  s->set_weight(1);
  auto vs = Check(step);
  EXPECT_TRUE(HasViolation(vs, "steps[2].files.sizes", "not both")) << Describe(vs);
  // file_size 0 is still "set".
  step.mutable_files()->set_file_size(0);
  EXPECT_TRUE(HasViolation(Check(step), "steps[2].files.sizes", "not both"));
  // Sizes alone are fine.
  step.mutable_files()->clear_file_size();
  EXPECT_TRUE(Check(step).empty()) << Describe(Check(step));
}

TEST(ValidateNonIoStep, FilesOpListedTwice) {
  v1::Step step = FilesStep(1);
  step.mutable_files()->add_ops(v1::FILES_OP_MKDIR);
  step.mutable_files()->add_ops(v1::FILES_OP_CREATE);
  step.mutable_files()->add_ops(v1::FILES_OP_MKDIR);
  auto vs = Check(step);
  ASSERT_EQ(vs.size(), 1u) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[2].files.ops[2]", "mkdir is listed twice")) << Describe(vs);
}

TEST(ValidateNonIoStep, FilesBadDir) {
  for (const char* dir : {"../outside", "a/../b", "/abs", "a//b", "local:../x", "local:"}) {
    v1::Step step = FilesStep(1);
    step.mutable_files()->set_dir(dir);
    auto vs = Check(step);
    EXPECT_TRUE(HasViolation(vs, "steps[2].files.dir", "relative path")) << dir << "\n" << Describe(vs);
  }
}

TEST(ValidateNonIoStep, FilesTooManyFiles) {
  v1::Step step = FilesStep(100000);
  step.mutable_files()->set_files_per_dir(100000);  // 10^10
  EXPECT_TRUE(HasViolation(Check(step), "steps[2].files", "4 billion"));
}

TEST(ValidateNonIoStep, CopyNeedsFromAndTo) {
  auto vs = Check(CopyStep("", ""));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.from", "needs from")) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.to", "needs to")) << Describe(vs);
  vs = Check(CopyStep("src", ""));
  EXPECT_FALSE(HasViolation(vs, "steps[2].copy.from", "needs from"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.to", "needs to")) << Describe(vs);
  vs = Check(CopyStep("", "dst"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.from", "needs from")) << Describe(vs);
  EXPECT_FALSE(HasViolation(vs, "steps[2].copy.to", "overlap")) << Describe(vs);
}

TEST(ValidateNonIoStep, CopyOverlappingPlaces) {
  const std::pair<const char*, const char*> overlapping[] = {
      {"src", "src"},                  // the same place
      {"src", "src/copy"},             // to inside from
      {"a/b/c", "a/b"},                // from inside to
      {"local:src", "local:src"},      // the same root named
      {"local:src", "local:src/deep"},
      {"src", "default:src"},          // the target root by either spelling
      {"default:a", "a/b"},
  };
  for (const auto& [from, to] : overlapping) {
    auto vs = Check(CopyStep(from, to));
    EXPECT_TRUE(HasViolation(vs, "steps[2].copy.to", "overlap")) << from << " -> " << to << "\n" << Describe(vs);
  }
}

TEST(ValidateNonIoStep, CopyNonOverlappingPlaces) {
  const std::pair<const char*, const char*> separate[] = {
      {"local:src", "src"},          // different roots
      {"src", "scratch:src"},
      {"local:src", "scratch:src/x"},
      {"src", "src2"},               // a common prefix is not nesting
      {"src2", "src"},
      {"a/b", "a/c"},
  };
  for (const auto& [from, to] : separate) {
    auto vs = Check(CopyStep(from, to));
    EXPECT_TRUE(vs.empty()) << from << " -> " << to << "\n" << Describe(vs);
  }
}

TEST(ValidateNonIoStep, CopyBadRootNameAndPath) {
  auto vs = Check(CopyStep("lo cal:src", "dst"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.from", "not a root name")) << Describe(vs);
  vs = Check(CopyStep("src", ":dst"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.to", "not a root name")) << Describe(vs);
  vs = Check(CopyStep("src", "a.b:dst"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.to", "not a root name")) << Describe(vs);
  vs = Check(CopyStep("../etc", "dst"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.from", "relative path")) << Describe(vs);
  vs = Check(CopyStep("src", "scratch:a/../b"));
  EXPECT_TRUE(HasViolation(vs, "steps[2].copy.to", "relative path")) << Describe(vs);
}

TEST(ValidateNonIoStep, ReadaheadNeedsKib) {
  v1::Step step;
  step.mutable_readahead();
  auto vs = Check(step);
  EXPECT_TRUE(HasViolation(vs, "steps[2].readahead.kib", "needs kib")) << Describe(vs);
  step.mutable_readahead()->set_kib(0);  // set, even if 0 (read-ahead off)
  EXPECT_TRUE(Check(step).empty()) << Describe(Check(step));
  step.mutable_readahead()->set_kib(4096);
  EXPECT_TRUE(Check(step).empty());
}

TEST(ValidateNonIoStep, HookFillOfIsADirectoryBelowTheRunDirectory) {
  v1::Step step;
  step.mutable_hook()->set_name("fsck");
  step.mutable_hook()->set_fill_of("mnt");
  EXPECT_TRUE(Check(step).empty()) << Describe(Check(step));
  for (const char* dir : {"../mnt", "/mnt", "a/../../b"}) {
    step.mutable_hook()->set_fill_of(dir);
    auto vs = Check(step);
    EXPECT_TRUE(HasViolation(vs, "steps[2].hook.fill_of", "not a directory below the run directory")) << dir << "\n" << Describe(vs);
  }
}

TEST(ValidateNonIoStep, HookNeedsAGoodName) {
  v1::Step step;
  step.mutable_hook();
  auto vs = Check(step);
  EXPECT_TRUE(HasViolation(vs, "steps[2].hook.name", "needs the name")) << Describe(vs);
  for (const char* name : {"mk fs", "../bin/sh", "a/b", "x;rm"}) {
    step.mutable_hook()->set_name(name);
    vs = Check(step);
    EXPECT_TRUE(HasViolation(vs, "steps[2].hook.name", "is not a hook name")) << name << "\n" << Describe(vs);
  }
}

}  // namespace
}  // namespace iofleet::rules
