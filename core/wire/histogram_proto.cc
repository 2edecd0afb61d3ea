#include "core/wire/histogram_proto.h"

namespace iofleet::wire {

void ToProto(const LatencyHistogram& histogram, v1::Histogram* out) {
  out->Clear();
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    uint64_t n = histogram.bucket_count(b);
    if (n == 0) continue;
    out->add_bucket(b);
    out->add_count(n);
  }
  out->set_sum(histogram.sum());
  out->set_min(histogram.min());
  out->set_max(histogram.max());
}

void ToProto(const SparseHistogram& histogram, v1::Histogram* out) {
  out->Clear();
  for (const auto& [b, n] : histogram.buckets()) {
    out->add_bucket(b);
    out->add_count(n);
  }
  out->set_sum(histogram.sum());
  out->set_min(histogram.min());
  out->set_max(histogram.max());
}

namespace {

template <typename Histogram>
void AddAll(const v1::Histogram& in, Histogram& histogram) {
  int n = std::min(in.bucket_size(), in.count_size());
  uint64_t total = 0;
  for (int i = 0; i < n; ++i) {
    histogram.AddBucket(in.bucket(i), in.count(i));
    total += in.count(i);
  }
  if (total) histogram.AddSummary(in.sum(), in.min(), in.max());
}

}  // namespace

void AddFromProto(const v1::Histogram& in, LatencyHistogram& histogram) { AddAll(in, histogram); }
void AddFromProto(const v1::Histogram& in, SparseHistogram& histogram) { AddAll(in, histogram); }

}  // namespace iofleet::wire
