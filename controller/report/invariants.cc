#include "controller/report/invariants.h"

#include <fmt/format.h>

#include <map>

namespace iofleet::controller {
namespace {

// One step or one phase of a files step, as checked.
struct Scope {
  std::string where;  // "step mix (point 0, cycle 1)" or "step tree, phase stat"
  const StepStats& aggregate;
  const std::vector<AgentStep>& agents;
  uint64_t span_ns;  // the controller's measure of the step (0: not measured)
};

// Clocks of agent and controller tick at the same rate; the start instant each agent used is
// the controller's corrected by an offset known to within half a round trip.
constexpr uint64_t kSpanToleranceNs = 10'000'000;

class Checker {
 public:
  Checker(const RunReport& report, std::vector<std::string>& out) : report_(report), out_(out) {}

  void Sums(const Scope& s) {
    StepStats sum;
    for (const auto& a : s.agents) {
      sum.ops += a.stats.ops;
      sum.bytes += a.stats.bytes;
      sum.read.ops += a.stats.read.ops;
      sum.read.bytes += a.stats.read.bytes;
      sum.write.ops += a.stats.write.ops;
      sum.write.bytes += a.stats.write.bytes;
    }
    const std::pair<const char*, std::pair<uint64_t, uint64_t>> figures[] = {
        {"ops", {s.aggregate.ops, sum.ops}},
        {"bytes", {s.aggregate.bytes, sum.bytes}},
        {"read ops", {s.aggregate.read.ops, sum.read.ops}},
        {"read bytes", {s.aggregate.read.bytes, sum.read.bytes}},
        {"write ops", {s.aggregate.write.ops, sum.write.ops}},
        {"write bytes", {s.aggregate.write.bytes, sum.write.bytes}},
    };
    for (const auto& [name, values] : figures) {
      if (values.first == values.second) continue;
      Broken(s, "aggregate = sum of agents", "",
             fmt::format("{} {} in the aggregate, {} summed over agents", name, values.first, values.second));
    }
  }

  void Windows(const Scope& s) {
    if (s.span_ns == 0) return;
    const uint64_t limit = s.span_ns + s.span_ns / 1000 + kSpanToleranceNs;
    for (const auto& a : s.agents) {
      if (a.stats.window_ns <= limit) continue;
      Broken(s, "agent window within the step", a.agent,
             fmt::format("its window is {} ns, longer than the {} ns from the step's start to its last stream's end",
                         a.stats.window_ns, s.span_ns));
    }
  }

  void EveryAgent(const Scope& s) {
    std::map<std::string, int> rows;
    for (const auto& a : s.agents) ++rows[a.agent];
    for (const auto& agent : report_.agents) {
      auto it = rows.find(agent.name);
      const int n = it == rows.end() ? 0 : it->second;
      if (it != rows.end()) rows.erase(it);
      if (n == 1) continue;
      Broken(s, "every agent has a result", agent.name, n == 0 ? "no row" : fmt::format("{} rows", n));
    }
    for (const auto& [agent, n] : rows) Broken(s, "every agent has a result", agent, "a row for an agent not in the run");
  }

  void RanTheirCourse(const Scope& s) {
    for (const auto& a : s.agents) {
      if (!a.stopped_early) continue;
      Broken(s, "agents ran their course", a.agent, "it was stopped before finishing its share, and the step has no stonewall");
    }
  }

  // Every agent given work that ran its course moved bytes (one silent agent would shrink the
  // aggregate of a step that looks fine).
  void MovesBytes(const Scope& s) {
    if (s.aggregate.bytes == 0) Broken(s, "an io step moves bytes", "", "it moved none");
    for (const auto& a : s.agents) {
      if (a.has_work && !a.stopped_early && !a.cut_by_job_end && a.stats.bytes == 0 && s.aggregate.bytes > 0) {
        Broken(s, "an io step moves bytes", a.agent, "it was given work and moved none");
      }
    }
  }

  // A step with streams: its figures are its streams' together.
  void StreamsAdd(const Scope& step, const std::vector<StreamReport>& streams) {
    if (streams.empty()) return;
    StepStats sum;
    for (const auto& stream : streams) {
      sum.ops += stream.aggregate.ops;
      sum.bytes += stream.aggregate.bytes;
      sum.read.ops += stream.aggregate.read.ops;
      sum.write.ops += stream.aggregate.write.ops;
    }
    const std::pair<const char*, std::pair<uint64_t, uint64_t>> figures[] = {
        {"ops", {step.aggregate.ops, sum.ops}},
        {"bytes", {step.aggregate.bytes, sum.bytes}},
        {"read ops", {step.aggregate.read.ops, sum.read.ops}},
        {"write ops", {step.aggregate.write.ops, sum.write.ops}},
    };
    for (const auto& [name, values] : figures) {
      if (values.first == values.second) continue;
      Broken(step, "step = sum of streams", "", fmt::format("{} {} in the step, {} summed over streams", name, values.first, values.second));
    }
  }

  bool broken() const { return broken_; }

 private:
  void Broken(const Scope& s, const char* invariant, const std::string& agent, const std::string& found) {
    broken_ = true;
    out_.push_back(fmt::format("{}: invariant \"{}\" broken{}: {}", s.where, invariant,
                               agent.empty() ? "" : " by agent " + agent, found));
  }

  const RunReport& report_;
  std::vector<std::string>& out_;
  bool broken_ = false;
};

}  // namespace

std::vector<std::string> CheckInvariants(RunReport& report) {
  std::vector<std::string> out;
  bool several = false;  // name point and cycle only when they tell steps apart
  for (const auto& step : report.steps) several = several || step.point > 0 || step.cycle > 0 || step.group_cycle > 0;

  for (auto& step : report.steps) {
    std::string where = "step " + step.name;
    // A group's step runs once per group cycle: that tells its instances apart too.
    std::string group = step.group_cycle >= 0 ? fmt::format(", group {} cycle {}", step.group, step.group_cycle) : "";
    if (several) where += fmt::format(" (point {}, cycle {}{})", step.point, step.cycle, group);
    const bool succeeded = step.status == v1::STEP_STATUS_SUCCEEDED;
    const size_t first = out.size();
    Checker check(report, out);

    Scope whole{where, step.aggregate, step.agents, step.span_ns};
    check.Sums(whole);
    check.Windows(whole);
    if (succeeded && step.kind != "sleep") check.EveryAgent(whole);
    if (succeeded && !step.stonewall) check.RanTheirCourse(whole);
    if (succeeded && step.kind == "io") check.MovesBytes(whole);
    check.StreamsAdd(whole, step.streams);
    for (const auto& stream : step.streams) {
      Scope p{where + ", stream " + stream.name, stream.aggregate, stream.agents, step.span_ns};
      check.Sums(p);
      check.Windows(p);
      if (succeeded) check.EveryAgent(p);
      // A stream that moved nothing on an agent with its jobs hides in the step's total.
      if (succeeded) check.MovesBytes(p);
    }
    for (const auto& phase : step.phases) {
      Scope p{where + ", phase " + phase.op, phase.aggregate, phase.agents, phase.span_ns};
      check.Sums(p);
      check.Windows(p);
      if (succeeded) check.EveryAgent(p);
      if (succeeded) check.RanTheirCourse(p);  // a files phase never has stonewall
    }

    if (!check.broken()) continue;
    if (succeeded) step.status = v1::STEP_STATUS_FAILED;
    if (report.status == v1::RUN_STATUS_SUCCEEDED) {
      report.status = v1::RUN_STATUS_FAILED;
      report.error = out[first];
    }
  }
  return out;
}

}  // namespace iofleet::controller
