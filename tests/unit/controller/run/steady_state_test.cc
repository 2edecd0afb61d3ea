#include "controller/run/steady_state.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofleet::controller {
namespace {

TEST(SteadyChangePct, NoiseAloneMovesARangeButHardlyASlope) {
  // +-6% around 1000, alternating, 20 samples: the noise measured here for 4 KiB random reads.
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 940 : 1060);
  EXPECT_NEAR(SteadyChangePct(noisy, v1::STEADY_CRITERION_RANGE), 6.0, 1e-9);
  EXPECT_LT(SteadyChangePct(noisy, v1::STEADY_CRITERION_SLOPE), 2.0);
}

TEST(SteadyChangePct, ARampIsItsChangeOverTheWindow) {
  const std::vector<double> ramp = {900, 950, 1000, 1050, 1100};  // +200 over the window, mean 1000
  EXPECT_NEAR(SteadyChangePct(ramp, v1::STEADY_CRITERION_SLOPE), 20.0, 1e-9);
  EXPECT_NEAR(SteadyChangePct(ramp, v1::STEADY_CRITERION_RANGE), 10.0, 1e-9);
  const std::vector<double> falling = {1100, 1050, 1000, 950, 900};
  EXPECT_NEAR(SteadyChangePct(falling, v1::STEADY_CRITERION_SLOPE), 20.0, 1e-9) << "either way";
}

TEST(SteadyChangePct, NothingMovingOrTooFewSamplesIsNeverSteady) {
  EXPECT_TRUE(std::isinf(SteadyChangePct({0, 0, 0}, v1::STEADY_CRITERION_SLOPE)));
  EXPECT_TRUE(std::isinf(SteadyChangePct({5}, v1::STEADY_CRITERION_RANGE)));
  EXPECT_DOUBLE_EQ(SteadyChangePct({7, 7, 7}, v1::STEADY_CRITERION_SLOPE), 0.0);
}

}  // namespace
}  // namespace iofleet::controller
