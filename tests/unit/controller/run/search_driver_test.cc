#include "controller/run/search_driver.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(SearchQuantile, ReadsThePercentileAsWritten) {
  v1::TargetLatency t;
  EXPECT_DOUBLE_EQ(SearchQuantile(t), 0.99);
  t.set_percentile("99.9");
  EXPECT_DOUBLE_EQ(SearchQuantile(t), 0.999);
}

}  // namespace
}  // namespace iofleet::controller
