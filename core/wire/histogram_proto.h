// The latency histogram (core/base) and its wire form (result.proto), both ways.
#pragma once

#include "core/base/histogram.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::wire {

void ToProto(const LatencyHistogram& histogram, v1::Histogram* out);
// Adds the counts in `in` to `histogram` (merging by addition).
void AddFromProto(const v1::Histogram& in, LatencyHistogram& histogram);

}  // namespace iofleet::wire
