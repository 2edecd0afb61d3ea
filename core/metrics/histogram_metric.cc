#include "core/metrics/histogram_metric.h"

#include <limits>

namespace iofleet {

prometheus::ClientMetric HistogramMetric(std::vector<prometheus::ClientMetric::Label> labels, const FoldedHistogram& folded) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.histogram.sample_count = folded.count;
  m.histogram.sample_sum = folded.sum_seconds;
  for (size_t i = 0; i < kLatencyBoundsSeconds.size(); ++i) {
    m.histogram.bucket.push_back({folded.cumulative[i], kLatencyBoundsSeconds[i]});
  }
  m.histogram.bucket.push_back({folded.count, std::numeric_limits<double>::infinity()});
  return m;
}

}  // namespace iofleet
