// The latency histogram (core/base) and its wire form (result.proto), both ways.
#pragma once

#include "core/base/histogram.h"
#include "core/base/sparse_histogram.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::wire {

void ToProto(const LatencyHistogram& histogram, v1::Histogram* out);
// Adds the counts in `in` to `histogram` (merging by addition).
void AddFromProto(const v1::Histogram& in, LatencyHistogram& histogram);
void ToProto(const SparseHistogram& histogram, v1::Histogram* out);
void AddFromProto(const v1::Histogram& in, SparseHistogram& histogram);

}  // namespace iofleet::wire
