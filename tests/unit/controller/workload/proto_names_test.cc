#include "controller/workload/proto_names.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace iofleet::controller {
namespace {

TEST(NearestName, SuggestsWithinTwoEdits) {
  std::vector<std::string> names = {"block_size", "queue_depth", "jobs"};
  EXPECT_EQ(NearestName("queue_dept", names), "queue_depth");
  EXPECT_EQ(NearestName("blok_sise", names), "block_size");
  EXPECT_EQ(NearestName("verify", names), "");
}

// Found by tests/fuzz/fio_import_fuzz running at 17 inputs a second: every unknown key was
// compared with every option name by a full edit distance, so a job file of long garbage keys
// took seconds. A name whose length differs by more than the suggestion limit cannot be one.
TEST(NearestName, ALongUnknownWordIsAnsweredAtOnce) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("option_" + std::to_string(i));
  const std::string word(100'000, 'x');
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(NearestName(word, names), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

}  // namespace
}  // namespace iofleet::controller
