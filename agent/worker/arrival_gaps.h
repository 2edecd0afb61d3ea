// The gaps between a job's request releases under fio's rate_process=poisson: exponential, so
// the releases form a Poisson process at the job's rate. Gap() reads a table built once instead
// of calling log per request.
//
// The table covers only the mantissa of 1 - u: with 1 - u = 2^-e * m, m in [1/2, 1), the gap
// -ln(1 - u) is e * ln 2 - ln m. The exponent is one count of leading zeros and exact, so the
// tail is exact (the exponential's memorylessness: past each ln 2 the rest is the same law);
// -ln m over [1/2, 1) is 4096 linear pieces, within 7.5e-9 of the curve. The largest gap, at
// the last of the 2^64 random numbers, is 64 ln 2 (44.4 means): the exponential's own chance of
// more is e^-44.4 = 5e-20, one number in 2^64.
//
// Thread-safety: immutable after construction.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace iofleet::agent {

class ArrivalGaps {
 public:
  static constexpr int kTableBits = 12;

  ArrivalGaps();

  // The gap before the next release as a multiple of the mean gap (an Exp(1) variate; the caller
  // multiplies by 1 / rate), for one uniform 64-bit random number. Non-decreasing in random64,
  // from 0 (random64 = 0) to 64 ln 2.
  double Gap(uint64_t random64) const noexcept {
    const uint64_t rest = ~random64 | 1;          // 1 - u in units of 2^-64, never 0
    const int exponent = std::countl_zero(rest);  // rest = 2^(63 - exponent) * (mantissa / 2^63)
    const uint64_t mantissa = rest << exponent;   // top bit set: mantissa / 2^64 in [1/2, 1)
    const uint64_t piece = (mantissa >> kFractionBits) & ((uint64_t{1} << kTableBits) - 1);
    const double within = static_cast<double>(mantissa & ((uint64_t{1} << kFractionBits) - 1)) * kFractionUnit;
    const double lo = table_[piece];
    return exponent * kLn2 + lo + (table_[piece + 1] - lo) * within;
  }

  size_t table_bytes() const { return table_.size() * sizeof(double); }

 private:
  static constexpr int kFractionBits = 63 - kTableBits;
  static constexpr double kFractionUnit = 1.0 / static_cast<double>(uint64_t{1} << kFractionBits);
  static constexpr double kLn2 = 0.693147180559945309417232121458176568;

  std::vector<double> table_;  // -ln(1/2 + k / 2^(kTableBits + 1)), k = 0 .. 2^kTableBits
};

// The one table every Poisson-paced job reads (built at first use, 32 KiB).
const ArrivalGaps& SharedArrivalGaps();

}  // namespace iofleet::agent
