#include "core/rules/step_tree.h"

#include "core/rules/defaults.h"

namespace iofleet::rules {

std::string GroupMemberName(const std::string& group, const v1::Step& step, int member) {
  if (!step.name().empty()) return step.name();
  return group + "-" + StepKind(step) + "-" + std::to_string(member);
}

std::vector<LeafStep> LeafSteps(const v1::Workload& workload) {
  std::vector<LeafStep> out;
  for (int i = 0; i < workload.steps_size(); ++i) {
    const v1::Step& step = workload.steps(i);
    const std::string path = "steps[" + std::to_string(i) + "]";
    if (!step.has_group()) {
      out.push_back({i, -1, path, StepName(workload, i), ""});
      continue;
    }
    const std::string group = StepName(workload, i);
    for (int m = 0; m < step.group().steps_size(); ++m) {
      out.push_back({i, m, path + ".group.steps[" + std::to_string(m) + "]",
                     GroupMemberName(group, step.group().steps(m), m), group});
    }
  }
  return out;
}

const v1::Step& StepOf(const v1::Workload& workload, const LeafStep& leaf) {
  const v1::Step& top = workload.steps(leaf.top);
  return leaf.member < 0 ? top : top.group().steps(leaf.member);
}

std::string StepShape(const v1::Workload& workload, bool with_repeat) {
  std::string out;
  for (int i = 0; i < workload.steps_size(); ++i) {
    const v1::Step& step = workload.steps(i);
    out += (i ? ", " : "") + StepName(workload, i) + " (" + StepKind(step) + ")";
    if (!step.has_group()) continue;
    if (with_repeat) out += " x" + std::to_string(step.group().repeat());
    out += " [";
    for (int m = 0; m < step.group().steps_size(); ++m) {
      out += (m ? ", " : "") + GroupMemberName(StepName(workload, i), step.group().steps(m), m) + " (" +
             StepKind(step.group().steps(m)) + ")";
    }
    out += "]";
  }
  return out;
}

}  // namespace iofleet::rules
