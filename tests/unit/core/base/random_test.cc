#include "core/base/random.h"

#include <gtest/gtest.h>

#include <vector>

namespace iofleet {
namespace {

TEST(Permutation, VisitsEveryIndexExactlyOnce) {
  for (uint64_t n : {1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 4097ull, 262144ull, 1000003ull}) {
    Permutation p(n, n * 31 + 7);
    std::vector<bool> seen(n, false);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v = p(i);
      ASSERT_LT(v, n);
      ASSERT_FALSE(seen[v]) << "n=" << n << " repeats " << v;
      seen[v] = true;
    }
  }
}

TEST(Permutation, KeysGiveDifferentOrdersThatLookRandom) {
  const uint64_t n = 100000;
  Permutation a(n, 1), b(n, 2);
  uint64_t same = 0, ascending = 0;
  for (uint64_t i = 0; i < n; ++i) {
    same += a(i) == b(i);
    if (i > 0) ascending += a(i) > a(i - 1);
  }
  EXPECT_LT(same, 50u);
  EXPECT_NEAR(static_cast<double>(ascending) / n, 0.5, 0.02);  // no sequential runs
}

TEST(SplitMix64, BelowIsUniform) {
  SplitMix64 rng(42);
  std::vector<int> buckets(10, 0);
  for (int i = 0; i < 100000; ++i) buckets[rng.Below(10)]++;
  for (int b : buckets) EXPECT_NEAR(b, 10000, 500);
}

}  // namespace
}  // namespace iofleet
