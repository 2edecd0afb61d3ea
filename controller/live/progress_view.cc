#include "controller/live/progress_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace iofleet::controller {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kBarWidth = 20;

bool CountsFiles(const LiveSnapshot& s) { return s.step.kind == "files" || s.step.kind == "copy"; }
// sync, drop_caches, readahead and hook steps move no data of their own: only their time shows.
bool MovesData(const LiveSnapshot& s) { return s.step.kind == "io" || CountsFiles(s); }

// At a thousand agents every name would make a line of thousands of characters: the first few
// are named (in the fleet's order), the others counted.
constexpr size_t kNamedAgents = 5;

std::string Names(const LiveSnapshot& s, bool LiveAgent::*flag) {
  std::string names;
  size_t flagged = 0;
  for (const auto& a : s.agents) {
    if (!(a.*flag)) continue;
    if (++flagged <= kNamedAgents) names += (names.empty() ? "" : ", ") + a.name;
  }
  if (flagged > kNamedAgents) names += fmt::format(" and {} more", flagged - kNamedAgents);
  return names;
}

// "512.0 MiB/s  512 IOPS  p99 1.20 ms", or "ramp" while the ramp lasts.
std::string Figures(const LiveSnapshot& s) {
  if (!MovesData(s)) return "running";
  if (s.clock.ramp) return "ramp";
  if (!s.rate.known) return s.all_done ? "done" : s.measured ? "no agent reporting" : "waiting for the first sample";
  std::string out = fmt::format("{:.1f} MiB/s  {:.0f} {}", s.rate.bytes_per_sec / kMiB, s.rate.ops_per_sec,
                                CountsFiles(s) ? "files/s" : "IOPS");
  if (s.p99_ns) out += "  p99 " + ShortLatency(*s.p99_ns);
  return out;
}

std::string Agents(const LiveSnapshot& s) {
  std::string out = fmt::format("{}/{} agents", s.reporting, s.agents.size());
  if (const std::string lost = Names(s, &LiveAgent::lost); !lost.empty()) out += "  lost: " + lost;
  if (const std::string silent = Names(s, &LiveAgent::silent); !silent.empty()) out += "  silent: " + silent;
  return out;
}

// The slowest and fastest reporting agents' last-interval rates: the slow one stands out.
std::string Spread(const LiveSnapshot& s) {
  double low = -1, high = 0;
  for (const auto& a : s.agents) {
    if (a.lost || a.silent || a.done || !a.rate.known) continue;
    low = low < 0 ? a.rate.bytes_per_sec : std::min(low, a.rate.bytes_per_sec);
    high = std::max(high, a.rate.bytes_per_sec);
  }
  if (low < 0 || s.agents.size() < 2 || s.clock.ramp || !MovesData(s)) return "";
  return fmt::format("  per agent {:.1f}..{:.1f} MiB/s", low / kMiB, high / kMiB);
}

// A step with streams: each stream's last interval as fio shows a job's, reads and writes apart:
// "  probe [r=12.0MiB/s,w=0.0MiB/s][r=3072,w=0 IOPS] p99 850 us".
std::string Streams(const LiveSnapshot& s) {
  if (s.clock.ramp || !s.rate.known) return "";
  std::string out;
  for (const LiveStream& stream : s.streams) {
    if (!stream.read.known && !stream.write.known) continue;
    out += fmt::format("  {} [r={:.1f}MiB/s,w={:.1f}MiB/s][r={:.0f},w={:.0f} IOPS]", stream.name, stream.read.bytes_per_sec / kMiB,
                       stream.write.bytes_per_sec / kMiB, stream.read.ops_per_sec, stream.write.ops_per_sec);
    if (stream.p99_ns) out += " p99 " + ShortLatency(*stream.p99_ns);
  }
  return out;
}

class NoView : public ProgressView {
 public:
  void Tick(const LiveRun&, int64_t) override {}
  void StepEnded(const LiveRun&) override {}
};

// plain and json: a line every sample interval, at most once a second, once there is a sample.
class LineView : public ProgressView {
 public:
  LineView(std::ostream& out, bool json) : out_(out), json_(json) {}
  void Tick(const LiveRun& live, int64_t now) override {
    const auto every = static_cast<int64_t>(std::max<uint64_t>(live.sample_interval_ns(), 1'000'000'000));
    if (last_ != 0 && now - last_ < every) return;
    LiveSnapshot s = live.Snapshot();
    if (s.clock.elapsed_s == 0 || s.all_done) return;  // nothing before the first sample or once all are done
    last_ = now;
    if (json_) {
      out_ << JsonLine(s, "progress").dump() << std::endl;
    } else {
      out_ << PlainLine(s) << std::endl;
    }
  }
  void StepEnded(const LiveRun& live) override {
    last_ = 0;
    if (json_) out_ << JsonLine(live.Snapshot(), "step_end").dump() << std::endl;
  }

 private:
  std::ostream& out_;
  const bool json_;
  int64_t last_ = 0;
};

class TtyView : public ProgressView {
 public:
  TtyView(std::ostream& out, int width) : out_(out), width_(std::max(width, 20)) {}
  // Redrawn when the model changed, at most 4 times a second, and once a second anyway (the
  // elapsed time, an agent turning silent).
  void Tick(const LiveRun& live, int64_t now) override {
    const uint64_t changes = live.changes();
    if (last_ != 0 && (now - last_ < kRedrawNs || (changes == drawn_changes_ && now - last_ < kIdleRedrawNs))) return;
    last_ = now;
    drawn_changes_ = changes;
    Draw(live.Snapshot());
  }
  // The line drawn last stays: its figures were the step's last interval.
  void StepEnded(const LiveRun&) override {
    if (last_ != 0) out_ << "\n" << std::flush;
    last_ = 0;
  }

 private:
  static constexpr int64_t kRedrawNs = 250'000'000;
  static constexpr int64_t kIdleRedrawNs = 1'000'000'000;
  void Draw(const LiveSnapshot& s) {
    std::string line = TtyLine(s);
    if (line.size() >= static_cast<size_t>(width_)) line.resize(static_cast<size_t>(width_ - 1));
    out_ << "\r" << line << "\x1b[K" << std::flush;
  }
  std::ostream& out_;
  const int width_;
  int64_t last_ = 0;
  uint64_t drawn_changes_ = 0;
};

}  // namespace

std::optional<ProgressMode> ParseProgressMode(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "tty") return ProgressMode::kTty;
  if (text == "plain") return ProgressMode::kPlain;
  if (text == "json") return ProgressMode::kJson;
  if (text == "none") return ProgressMode::kNone;
  return std::nullopt;
}

std::unique_ptr<ProgressView> MakeProgressView(ProgressMode mode, std::ostream& out, bool is_tty, int width) {
  if (mode == ProgressMode::kAuto) mode = is_tty ? ProgressMode::kTty : ProgressMode::kPlain;
  switch (mode) {
    case ProgressMode::kTty: return std::make_unique<TtyView>(out, width);
    case ProgressMode::kPlain: return std::make_unique<LineView>(out, false);
    case ProgressMode::kJson: return std::make_unique<LineView>(out, true);
    default: return std::make_unique<NoView>();
  }
}

std::string TtyLine(const LiveSnapshot& s) {
  std::string line = s.step.name + " ";
  if (s.clock.fraction) line += Bar(*s.clock.fraction, kBarWidth) + " ";
  line += ShortDuration(s.clock.elapsed_s);
  if (s.clock.eta_s) line += " ETA " + ShortDuration(*s.clock.eta_s);
  return line + "  " + Figures(s) + "  " + Agents(s) + Streams(s);
}

std::string PlainLine(const LiveSnapshot& s) {
  std::string line = fmt::format("[{}] {}", s.step.name, ShortDuration(s.clock.elapsed_s));
  if (s.clock.eta_s) line += "  ETA " + ShortDuration(*s.clock.eta_s);
  return line + "  " + Figures(s) + Spread(s) + "  " + Agents(s) + Streams(s);
}

nlohmann::json JsonLine(const LiveSnapshot& s, const std::string& event) {
  using nlohmann::json;
  auto optional = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json agents = json::array();
  for (const auto& a : s.agents) {
    agents.push_back({{"agent", a.name},
                      {"state", a.lost ? "lost" : a.silent ? "silent" : a.done ? "done" : "running"},
                      {"ops", a.ops},
                      {"bytes", a.bytes},
                      {"errors", a.errors},
                      {"progress_rejected", a.rejected},
                      {"bytes_per_sec", a.rate.known ? json(a.rate.bytes_per_sec) : json(nullptr)},
                      {"ops_per_sec", a.rate.known ? json(a.rate.ops_per_sec) : json(nullptr)}});
  }
  json streams = json::array();
  for (const auto& stream : s.streams) {
    auto rate = [](const IntervalRate& r, bool bytes) { return r.known ? json(bytes ? r.bytes_per_sec : r.ops_per_sec) : json(nullptr); };
    streams.push_back({{"stream", stream.name},
                       {"read_ops", stream.read_ops},
                       {"read_bytes", stream.read_bytes},
                       {"write_ops", stream.write_ops},
                       {"write_bytes", stream.write_bytes},
                       {"read_bytes_per_sec", rate(stream.read, true)},
                       {"read_ops_per_sec", rate(stream.read, false)},
                       {"write_bytes_per_sec", rate(stream.write, true)},
                       {"write_ops_per_sec", rate(stream.write, false)},
                       {"p99_ns", optional(stream.p99_ns)}});
  }
  return {{"event", event},
          {"run_id", s.run_id},
          {"workload", s.workload},
          {"step", s.step.name},
          {"kind", s.step.kind},
          {"index", s.step.index},
          {"point", s.step.point},
          {"cycle", s.step.cycle},
          {"phase", s.clock.ramp ? "ramp" : "run"},
          {"elapsed_seconds", s.clock.elapsed_s},
          {"expected_seconds", optional(s.clock.expected_s)},
          {"eta_seconds", optional(s.clock.eta_s)},
          {"fraction", optional(s.clock.fraction)},
          {"ops", s.ops},
          {"bytes", s.bytes},
          {"errors", s.errors},
          {"bytes_per_sec", s.rate.known ? json(s.rate.bytes_per_sec) : json(nullptr)},
          {"ops_per_sec", s.rate.known ? json(s.rate.ops_per_sec) : json(nullptr)},
          {"p99_ns", optional(s.p99_ns)},
          {"p99_step_ns", optional(s.p99_step_ns)},
          {"agents_reporting", s.reporting},
          {"agents_lost", s.lost},
          {"start_skew_seconds", optional(s.start_skew_s)},
          {"agents", agents},
          {"streams", streams}};
}

}  // namespace iofleet::controller
