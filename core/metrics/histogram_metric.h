// A folded latency histogram (core/base/histogram_fold.h) as a Prometheus classic histogram
// sample, for every /metrics iofleet serves (the agent's and the controller's): one spelling of
// the buckets, +Inf and the sum in seconds. Not for the hot path: scrape time only.
#pragma once

#include <prometheus/client_metric.h>

#include <vector>

#include "core/base/histogram_fold.h"

namespace iofleet {

prometheus::ClientMetric HistogramMetric(std::vector<prometheus::ClientMetric::Label> labels, const FoldedHistogram& folded);

}  // namespace iofleet
