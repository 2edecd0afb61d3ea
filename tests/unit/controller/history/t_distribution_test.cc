#include "controller/history/t_distribution.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofleet::controller {
namespace {

TEST(StudentTCdf, MatchesClosedFormsAndTables) {
  EXPECT_NEAR(StudentTCdf(0, 7), 0.5, 1e-12);
  EXPECT_NEAR(StudentTCdf(1, 1), 0.75, 1e-10);                                  // Cauchy
  EXPECT_NEAR(StudentTCdf(1, 2), 0.5 + 1 / (2 * std::sqrt(3.0)), 1e-10);        // df 2 closed form
  EXPECT_NEAR(StudentTCdf(2.131846786, 4), 0.95, 1e-7);                         // t tables
  EXPECT_NEAR(StudentTCdf(-1.812461123, 10), 0.05, 1e-7);
  EXPECT_NEAR(StudentTCdf(2.570581836, 5), 0.975, 1e-7);
  EXPECT_NEAR(StudentTCdf(1.959963985, 1e7), 0.975, 1e-6);                      // tends to the normal
}

TEST(StudentTCdf, InfiniteAndExtremeArguments) {
  EXPECT_EQ(StudentTCdf(INFINITY, 3), 1.0);
  EXPECT_EQ(StudentTCdf(-INFINITY, 3), 0.0);
  EXPECT_GT(StudentTCdf(-1e6, 3), 0.0);
  EXPECT_LT(StudentTCdf(-1e6, 3), 1e-15);
  EXPECT_TRUE(std::isnan(StudentTCdf(NAN, 3)));
}

}  // namespace
}  // namespace iofleet::controller
