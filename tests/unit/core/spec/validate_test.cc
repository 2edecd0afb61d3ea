#include "core/spec/validate.h"

#include <gtest/gtest.h>

#include "core/spec/defaults.h"

namespace iofleet::spec {
namespace {

v1::Workload Minimal() {
  v1::Workload w;
  w.set_name("t");
  w.add_steps()->mutable_io()->set_op(v1::OP_WRITE);
  return w;
}

bool HasViolation(const std::vector<Violation>& vs, const std::string& path, const std::string& text) {
  for (const auto& v : vs) {
    if (v.path == path && v.message.find(text) != std::string::npos) return true;
  }
  return false;
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
  w.mutable_steps(0)->mutable_io()->set_file_size(1000);
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "defaults.block_size", "multiple of 512"));
  w.mutable_steps(0)->mutable_io()->set_file_size(1500);
  w.mutable_defaults()->set_direct(false);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.file_size", "not a multiple of block_size"));
}

TEST(Validate, StepNeedsOpAndUniqueNames) {
  v1::Workload w = Minimal();
  w.add_steps()->mutable_io();
  w.mutable_steps(0)->set_name("io-1");  // collides with the default name of steps[1]
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[1].io", "needs an op"));
  EXPECT_TRUE(HasViolation(vs, "steps[1].name", "used twice"));
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

}  // namespace
}  // namespace iofleet::spec
