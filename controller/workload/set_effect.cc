#include "controller/workload/set_effect.h"

#include <google/protobuf/util/message_differencer.h>

#include <vector>

#include "controller/workload/sweep.h"
#include "core/rules/defaults.h"
#include "core/rules/step_tree.h"

namespace iofleet::controller {
namespace {

// What a point runs: everything of the workload but the defaults and the sweep (which reach the
// run only through the steps), and every leaf step with its io resolved against the defaults.
struct Executed {
  explicit Executed(const v1::Workload& w) : rest(w) {
    rest.clear_defaults();
    rest.clear_sweep();
    rest.clear_sweep_axes();
    rest.clear_steps();
    for (const rules::LeafStep& leaf : rules::LeafSteps(w)) {
      v1::Step step = rules::StepOf(w, leaf);
      if (step.has_io()) {
        // As the planner reads it: total_jobs and total_size win over jobs and file_size, and a
        // field the step's engine or op does not use is neutral.
        v1::IoSpec io = rules::ResolveStepIo(w, step);
        auto planned = [](v1::IoSpec& spec) {
          if (spec.has_total_jobs()) spec.clear_jobs();
          if (spec.has_total_size()) spec.clear_file_size();
        };
        planned(io);
        for (v1::IoSpec& stream : *io.mutable_streams()) planned(stream);
        rules::NeutralizeInapplicable(io);
        *step.mutable_io() = io;
      }
      steps.push_back(step);
    }
  }
  bool operator==(const Executed& other) const {
    using google::protobuf::util::MessageDifferencer;
    if (!MessageDifferencer::Equals(rest, other.rest) || steps.size() != other.steps.size()) return false;
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!MessageDifferencer::Equals(steps[s], other.steps[s])) return false;
    }
    return true;
  }
  v1::Workload rest;
  std::vector<v1::Step> steps;
};

bool SameRun(const v1::Workload& a, const v1::Workload& b) {
  auto points_a = ExpandSweep(a);
  auto points_b = ExpandSweep(b);
  if (!points_a.ok() || !points_b.ok()) return false;  // validation reports it
  if (points_a->size() != points_b->size()) return false;
  for (size_t p = 0; p < points_a->size(); ++p) {
    if (!(Executed((*points_a)[p].workload) == Executed((*points_b)[p].workload))) return false;
  }
  return true;
}

// The io field a defaults path sets (runtime for "runtime" or "defaults.runtime", rate for
// "defaults.rate.iops"), or nullptr for a path elsewhere.
const google::protobuf::FieldDescriptor* DefaultsField(const std::string& path) {
  std::string rest = path;
  if (rest.rfind("defaults.", 0) == 0) rest = rest.substr(9);
  else if (v1::Workload::descriptor()->FindFieldByName(rest.substr(0, rest.find_first_of(".["))) != nullptr) return nullptr;
  return v1::IoSpec::descriptor()->FindFieldByName(rest.substr(0, rest.find_first_of(".[")));
}

bool SetsIoField(const v1::IoSpec& io, int number) {
  const auto* desc = v1::IoSpec::descriptor()->FindFieldByNumber(number);
  const auto* refl = v1::IoSpec::GetReflection();
  return desc->is_repeated() ? refl->FieldSize(io, desc) > 0 : refl->HasField(io, desc);
}

}  // namespace

std::optional<std::string> UnchangingSetWarning(const v1::Workload& before, const v1::Workload& after, const std::string& path,
                                                const std::string& set_text) {
  if (!SameRun(before, after)) return std::nullopt;
  std::string message = "warning: --set " + set_text + " changes nothing any step runs";
  const google::protobuf::FieldDescriptor* field = DefaultsField(path);
  if (!field) return message;
  std::vector<std::string> by;
  for (int over : rules::FieldsReplacing(field->number())) {
    for (const auto& [swept, values] : after.sweep()) {
      const google::protobuf::FieldDescriptor* swept_field = DefaultsField(swept);
      if (swept_field && swept_field->number() == over) by.push_back("sweep." + swept + " (at every point)");
    }
  }
  std::vector<std::string> steps;
  for (const rules::LeafStep& leaf : rules::LeafSteps(after)) {
    const v1::Step& step = rules::StepOf(after, leaf);
    if (!step.has_io()) continue;
    for (int over : rules::FieldsReplacing(field->number())) {
      if (SetsIoField(step.io(), over)) {
        steps.push_back(leaf.path + " (" + leaf.name + ") sets its own " + v1::IoSpec::descriptor()->FindFieldByNumber(over)->name());
        break;
      }
    }
  }
  by.insert(by.end(), steps.begin(), steps.end());
  if (by.empty()) return message + " (they run with that value already)";
  message += ": ";
  for (size_t i = 0; i < by.size(); ++i) message += (i ? "; " : "") + by[i];
  if (!steps.empty()) message += " (set one step's with --set steps[N].io." + field->name() + "=...)";
  return message;
}

}  // namespace iofleet::controller
