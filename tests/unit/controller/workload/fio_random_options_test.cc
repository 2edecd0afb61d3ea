// fio's random_generator (controller/workload/fio_random_options.cc).
#include <gtest/gtest.h>

#include "controller/workload/fio_import.h"

namespace iofleet::controller {
namespace {

std::string GeneratorLines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

TEST(FioRandomOptions, EveryGeneratorKeepsEachBlockOncePerPassAndLfsrDoesWithoutTheMap) {
  for (const char* generator : {"tausworthe", "tausworthe64", "lfsr", "LFSR"}) {
    FioImport imp = ImportFioJobText(std::string("[a]\nsize=1m\nrw=randread\nrandom_generator=") + generator + "\n", "g.fio", false);
    ASSERT_TRUE(imp.errors.empty()) << generator << ": " << GeneratorLines(imp.errors);
    EXPECT_FALSE(imp.workload.steps(0).io().has_random()) << generator << ": iofleet's default, a permutation";
  }
  // With norandommap fio's tausworthe repeats blocks; lfsr never does.
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nrw=randread\nnorandommap\nrandom_generator=tausworthe\n", "t.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << GeneratorLines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().random(), v1::RANDOM_ORDER_UNIFORM);
  imp = ImportFioJobText("[global]\nnorandommap\n[a]\nsize=1m\nrw=randread\nrandom_generator=lfsr\n", "l.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << GeneratorLines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().random(), v1::RANDOM_ORDER_PERMUTATION);
  EXPECT_NE(GeneratorLines(imp.warnings).find("l.fio:6:1: random_generator: lfsr never draws a block twice"), std::string::npos)
      << GeneratorLines(imp.warnings);
}

TEST(FioRandomOptions, AnUnknownGeneratorIsRefusedAtItsValue) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nrw=randread\nrandom_generator=mt19937\n", "u.fio", false);
  EXPECT_NE(GeneratorLines(imp.errors).find("u.fio:4:18: random_generator: \"mt19937\" is not tausworthe, tausworthe64 or lfsr"),
            std::string::npos)
      << GeneratorLines(imp.errors);
}

}  // namespace
}  // namespace iofleet::controller
