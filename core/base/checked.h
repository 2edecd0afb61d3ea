// Checked 64-bit arithmetic for sizes and counts that come from users or the wire: a product or
// sum that wraps would turn "far too much" into "a little" (2 jobs x 8 EiB passed a free-space
// check on a 24 MiB file system). An overflow is an error, never a wrapped value.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"

namespace iofleet {

// a x b, or an error "`what`: A x B overflows 64 bits".
inline Result<uint64_t> CheckedMul(uint64_t a, uint64_t b, const std::string& what) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    return InvalidArgument(what + ": " + std::to_string(a) + " x " + std::to_string(b) + " overflows 64 bits");
  }
  return product;
}

// a + b, or an error "`what`: A + B overflows 64 bits".
inline Result<uint64_t> CheckedAdd(uint64_t a, uint64_t b, const std::string& what) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return InvalidArgument(what + ": " + std::to_string(a) + " + " + std::to_string(b) + " overflows 64 bits");
  }
  return sum;
}

// The sum of every element of `values` (any range of integers), or an error "`what`: the sum
// overflows 64 bits".
template <typename Range>
Result<uint64_t> CheckedSum(const Range& values, const std::string& what) {
  uint64_t sum = 0;
  for (const auto& v : values) {
    if (__builtin_add_overflow(sum, static_cast<uint64_t>(v), &sum)) {
      return InvalidArgument(what + ": the sum overflows 64 bits");
    }
  }
  return sum;
}

}  // namespace iofleet
