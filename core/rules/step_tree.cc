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

StepShape ShapeOf(const v1::Workload& workload) {
  StepShape shape;
  for (int i = 0; i < workload.steps_size(); ++i) {
    const v1::Step& step = workload.steps(i);
    StepShape::Step& s = shape.steps.emplace_back();
    s.name = StepName(workload, i);
    s.kind = StepKind(step);
    if (!step.has_group()) continue;
    s.repeat = step.group().repeat();
    for (int m = 0; m < step.group().steps_size(); ++m) {
      s.members.push_back({GroupMemberName(s.name, step.group().steps(m), m), StepKind(step.group().steps(m))});
    }
  }
  return shape;
}

bool StepShape::SameSteps(const StepShape& other) const {
  if (steps.size() != other.steps.size()) return false;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& a = steps[i];
    const Step& b = other.steps[i];
    if (a.name != b.name || a.kind != b.kind || a.members != b.members) return false;
  }
  return true;
}

bool StepShape::operator==(const StepShape& other) const {
  if (!SameSteps(other)) return false;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].repeat != other.steps[i].repeat) return false;
  }
  return true;
}

std::string StepShape::Text(bool with_repeat) const {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    out += (i ? ", " : "") + s.name + " (" + s.kind + ")";
    if (s.kind != "group") continue;
    if (with_repeat) out += " x" + std::to_string(s.repeat);
    out += " [";
    for (size_t m = 0; m < s.members.size(); ++m) out += (m ? ", " : "") + s.members[m].name + " (" + s.members[m].kind + ")";
    out += "]";
  }
  return out;
}

}  // namespace iofleet::rules
