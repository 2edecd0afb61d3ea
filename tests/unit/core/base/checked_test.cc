#include "core/base/checked.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace iofleet {
namespace {

TEST(Checked, MulAndAddWithinRange) {
  EXPECT_EQ(*CheckedMul(4096, 1ull << 40, "x"), 1ull << 52);
  EXPECT_EQ(*CheckedAdd(~0ull - 1, 1, "x"), ~0ull);
  EXPECT_EQ(*CheckedSum(std::vector<uint32_t>{1, 2, 3}, "x"), 6u);
}

// 2 jobs x 8388608TiB summed to 0 and passed the free-space check.
TEST(Checked, OverflowIsAnError) {
  const uint64_t eight_eib = 8388608ull << 40;
  auto product = CheckedMul(2, eight_eib, "jobs x file_size");
  ASSERT_FALSE(product.ok());
  EXPECT_EQ(product.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(product.status().message(), "jobs x file_size: 2 x 9223372036854775808 overflows 64 bits");
  EXPECT_FALSE(CheckedAdd(eight_eib, eight_eib, "files").ok());
  auto sum = CheckedSum(std::vector<uint64_t>{eight_eib, eight_eib}, "the workload's files");
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().message(), "the workload's files: the sum overflows 64 bits");
}

}  // namespace
}  // namespace iofleet
