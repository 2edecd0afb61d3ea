// The steps a workload runs, groups opened: a group (`group: { repeat: N, steps: [...] }`) is no
// step of its own but a list of steps run N times in order. The planner plans each of these
// "leaf" steps once, the run manager runs a group's leaves N times, the report numbers them.
// Groups do not nest (core/rules/validate.cc refuses a group inside a group).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {

struct LeafStep {
  int top = 0;          // its index in workload.steps (the group's, for a group's step)
  int member = -1;      // its index in the group's steps; -1: a top-level step
  std::string path;     // "steps[2]" or "steps[2].group.steps[0]": where errors point
  std::string name;     // its name, or the default name
  std::string group;    // the group's name; empty for a top-level step
};

// Every step that runs, in workload order, each group's steps where the group stands. The
// position in this list is the step's `index` in report.json.
std::vector<LeafStep> LeafSteps(const v1::Workload& workload);

// The step a leaf names in `workload` (which must have the same shape as the one the leaves
// were taken from, e.g. an agent's copy with its overrides).
const v1::Step& StepOf(const v1::Workload& workload, const LeafStep& leaf);

// The default name of step `member` of the group named `group`: <group>-<kind>-<member>.
std::string GroupMemberName(const std::string& group, const v1::Step& step, int member);

// The steps' names and kinds, groups with their repeat and their steps: every agent and every
// sweep point must run the same steps, so the planner compares these as values. A sweep may
// change a group's repeat from point to point; the agents at one point must agree on it.
struct StepShape {
  struct Member {
    std::string name;
    std::string kind;
    bool operator==(const Member&) const = default;
  };
  struct Step {
    std::string name;
    std::string kind;
    uint32_t repeat = 0;          // a group's; 0 for a step
    std::vector<Member> members;  // a group's steps
  };
  std::vector<Step> steps;

  // The same steps, groups' repeats aside.
  bool SameSteps(const StepShape& other) const;
  // The same steps and the same repeats.
  bool operator==(const StepShape& other) const;
  // "make (files), in (group) x30 [drop (drop_caches), copy (copy)]" for messages;
  // `with_repeat` adds each group's "xN".
  std::string Text(bool with_repeat) const;
};
StepShape ShapeOf(const v1::Workload& workload);

}  // namespace iofleet::rules
