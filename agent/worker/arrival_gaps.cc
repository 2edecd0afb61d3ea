#include "agent/worker/arrival_gaps.h"

#include <cmath>

namespace iofleet::agent {

ArrivalGaps::ArrivalGaps() : table_((size_t{1} << kTableBits) + 1) {
  const long double step = 1.0L / static_cast<long double>(uint64_t{2} << kTableBits);
  for (size_t k = 0; k < table_.size(); ++k) table_[k] = static_cast<double>(-std::log(0.5L + k * step));
}

const ArrivalGaps& SharedArrivalGaps() {
  static const ArrivalGaps gaps;  // immutable once built; C++ makes its first use thread-safe
  return gaps;
}

}  // namespace iofleet::agent
