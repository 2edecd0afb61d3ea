#include "agent/fs/coverage.h"

#include <gtest/gtest.h>

namespace iofleet::agent {
namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

TEST(FileCoverage, MergesAndReportsHoles) {
  FileCoverage c;
  EXPECT_EQ(c.Holes("f", 0, 100), (Ranges{{0, 100}}));
  c.Add("f", 10, 20);
  c.Add("f", 30, 40);
  c.Add("f", 20, 25);  // touches [10, 20)
  EXPECT_EQ(c.Holes("f", 0, 50), (Ranges{{0, 10}, {25, 30}, {40, 50}}));
  EXPECT_EQ(c.Holes("f", 12, 24), Ranges{});
  c.Add("f", 0, 100);
  EXPECT_EQ(c.Holes("f", 0, 100), Ranges{});
  EXPECT_EQ(c.Holes("g", 5, 6), (Ranges{{5, 6}}));
}

}  // namespace
}  // namespace iofleet::agent
