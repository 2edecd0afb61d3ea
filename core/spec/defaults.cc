#include "core/spec/defaults.h"

namespace iofleet::spec {

v1::IoSpec BuiltinIoDefaults() {
  v1::IoSpec io;
  io.set_engine(v1::ENGINE_LIBAIO);
  io.set_direct(true);
  io.set_block_size(1ull << 20);
  io.set_queue_depth(1);
  io.set_jobs(1);
  io.set_file_size(1ull << 30);
  io.set_runtime(0);
  return io;
}

v1::IoSpec ResolveIo(const v1::Workload& workload, int index) {
  v1::IoSpec io = BuiltinIoDefaults();
  io.MergeFrom(workload.defaults());  // proto3 optional: only fields that are set overwrite
  io.MergeFrom(workload.steps(index).io());
  return io;
}

std::string StepKind(const v1::Step& step) {
  switch (step.kind_case()) {
    case v1::Step::kIo: return "io";
    case v1::Step::KIND_NOT_SET: break;
  }
  return "step";
}

std::string StepName(const v1::Workload& workload, int index) {
  const v1::Step& step = workload.steps(index);
  if (!step.name().empty()) return step.name();
  return StepKind(step) + "-" + std::to_string(index);
}

v1::Workload Effective(const v1::Workload& workload) {
  v1::Workload out = workload;
  v1::IoSpec defaults = BuiltinIoDefaults();
  defaults.MergeFrom(workload.defaults());
  *out.mutable_defaults() = defaults;
  if (out.target().root().empty()) out.mutable_target()->set_root("default");
  for (int i = 0; i < out.steps_size(); ++i) {
    v1::Step* step = out.mutable_steps(i);
    step->set_name(StepName(workload, i));
    if (step->has_io()) *step->mutable_io() = ResolveIo(workload, i);
  }
  return out;
}

}  // namespace iofleet::spec
