// Conversions between core/base types and their wire form.
#pragma once

#include "core/base/histogram.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::spec {

void ToProto(const LatencyHistogram& histogram, v1::Histogram* out);
// Adds the counts in `in` to `histogram` (merging by addition).
void AddFromProto(const v1::Histogram& in, LatencyHistogram& histogram);

}  // namespace iofleet::spec
