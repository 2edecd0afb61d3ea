#include "controller/report/report_model.h"

#include <algorithm>

#include "core/spec/proto_convert.h"

namespace iofleet::controller {

StepStats StepStats::FromProto(const v1::StepResult& result) {
  StepStats s;
  s.ops = result.ops();
  s.bytes = result.bytes();
  s.window_ns = result.window_ns();
  s.passes = result.passes();
  s.filled_bytes = result.filled_bytes();
  spec::AddFromProto(result.latency_ns(), *s.latency);
  return s;
}

void StepStats::Add(const StepStats& other, bool first) {
  ops += other.ops;
  bytes += other.bytes;
  filled_bytes += other.filled_bytes;
  window_ns = std::max(window_ns, other.window_ns);
  passes = first ? other.passes : std::min(passes, other.passes);
  latency->Add(*other.latency);
}

}  // namespace iofleet::controller
