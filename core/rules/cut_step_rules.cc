#include "core/rules/cut_step_rules.h"

#include <algorithm>
#include <set>

#include "core/base/units.h"
#include "core/rules/defaults.h"

namespace iofleet::rules {
namespace {

constexpr int kMaxCurveLevels = 20;

// "99", "99.9": a percentile above 0 and at most 100, in at most three decimals ("100": every
// I/O, the window's slowest, fio's latency_percentile default).
bool IsPercentile(const std::string& p) {
  const size_t dot = p.find('.');
  const std::string whole = p.substr(0, dot), part = dot == std::string::npos ? "" : p.substr(dot + 1);
  const auto digits = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
  if (whole == "100") return dot == std::string::npos || (part.size() <= 3 && !part.empty() && part.find_first_not_of('0') == std::string::npos);
  if (!digits(whole) || whole.size() > 2 || (dot != std::string::npos && (!digits(part) || part.size() > 3))) return false;
  return part.find_first_not_of('0') != std::string::npos || (whole != "0" && whole != "00");
}

void CheckTargetLatency(const v1::TargetLatency& t, const std::string& at, std::vector<Violation>& out) {
  if (!t.has_max_latency()) out.push_back({at + ".max_latency", "is required: the latency the percentile must stay at or under (e.g. 1ms)"});
  if (t.has_percentile() && !IsPercentile(t.percentile())) {
    out.push_back({at + ".percentile", "\"" + t.percentile() + "\" is not a percentile above 0 and at most 100 (e.g. 99 or 99.9)"});
  }
}

void CheckCurve(const v1::LoadCurve& c, const std::string& at, std::vector<Violation>& out) {
  if (c.levels_pct_size() > kMaxCurveLevels) {
    out.push_back({at + ".levels_pct", std::to_string(c.levels_pct_size()) + " levels: at most " + std::to_string(kMaxCurveLevels)});
  }
  std::set<uint32_t> seen;
  for (uint32_t level : c.levels_pct()) {
    if (level < 1 || level > 100) out.push_back({at + ".levels_pct", std::to_string(level) + " is not a percent of the maximum from 1 to 100"});
    else if (!seen.insert(level).second) out.push_back({at + ".levels_pct", std::to_string(level) + " is there twice"});
  }
}

void CheckSteady(const v1::SteadyState& s, const std::string& at, std::vector<Violation>& out) {
  const uint64_t window = SteadyWindowNs(s), interval = SteadyIntervalNs(s);
  if (interval * 3 > window) {
    out.push_back({at + ".interval", FormatDuration(interval) + " leaves fewer than 3 samples in the window of " + FormatDuration(window)});
  }
  if (s.has_timeout() && s.timeout() < window) {
    out.push_back({at + ".timeout", FormatDuration(s.timeout()) + " is shorter than the window " + FormatDuration(window) + ": it could never be steady"});
  }
}

// One kind of job's fields (the step's, or a stream's): nothing that would hold back the load
// the windows set, and a depth to search when the search varies it.
void CheckCutJobs(const v1::IoSpec& job, const std::string& name, bool paces, bool vary_depth, const FieldPlace& place,
                  std::vector<Violation>& out) {
  if (vary_depth && job.queue_depth() < 2) {
    out.push_back({place(v1::IoSpec::kQueueDepthFieldNumber), "is " + std::to_string(std::max<uint32_t>(job.queue_depth(), 1)) +
                       ": vary: queue_depth searches each job's depth from 1 up to it, so give 2 or more (with libaio or io_uring)"});
  }
  const v1::RateSpec& rate = job.rate();
  if (rate.bytes_per_sec() > 0 || rate.iops() > 0 || rate.min_bytes_per_sec() > 0 || rate.min_iops() > 0) {
    out.push_back({place(v1::IoSpec::kRateFieldNumber), paces ? "is set by the " + name + " step's windows: leave it out"
                                                              : "would hold the steady figure at the rate: leave it out of a steady step"});
  }
  if (job.flow().has_weight()) out.push_back({place(v1::IoSpec::kFlowFieldNumber), "would hold the " + name + " step's load back: leave flow out"});
  if (job.think().time() > 0) out.push_back({place(v1::IoSpec::kThinkFieldNumber), "pauses would hold the " + name + " step's load back: leave think out"});
}

// A depth search over streams searches one of them (target_latency.stream names it): its index,
// or -1 (none named, or no depth search over streams; what is wrong is in `out`).
int SearchedStream(const v1::IoSpec& io, const std::string& at, std::vector<Violation>& out) {
  const v1::TargetLatency& t = io.target_latency();
  const bool vary_depth = t.vary() == v1::SEARCH_VARY_QUEUE_DEPTH;
  if (!t.has_stream()) {
    if (vary_depth && io.streams_size() > 0) {
      out.push_back({at + ".stream", "is required with vary: queue_depth over streams: the stream whose queue depth is "
                                     "searched and whose latency is judged (the others run as written)"});
    }
    return -1;
  }
  if (!vary_depth || io.streams_size() == 0) {
    out.push_back({at + ".stream", vary_depth ? "names a stream, but the step has no streams: leave it out"
                                              : "is for vary: queue_depth over streams (a rate is split over every stream): leave it out"});
    return -1;
  }
  for (int k = 0; k < io.streams_size(); ++k) {
    if (io.streams(k).name() == t.stream()) return k;
  }
  std::string names;
  for (const v1::IoSpec& s : io.streams()) names += (names.empty() ? "" : ", ") + s.name();
  out.push_back({at + ".stream", "\"" + t.stream() + "\" is not a stream of this step (" + names + ")"});
  return -1;
}

}  // namespace

void CheckCutStep(const v1::IoSpec& io, const FieldPlace& place, const StreamPlace& stream_place, std::vector<Violation>& out) {
  const int kinds = io.has_target_latency() + io.has_curve() + io.has_steady();
  const int field = io.has_target_latency() ? v1::IoSpec::kTargetLatencyFieldNumber
                    : io.has_curve()        ? v1::IoSpec::kCurveFieldNumber
                                            : v1::IoSpec::kSteadyFieldNumber;
  const std::string name = io.has_target_latency() ? "target_latency" : io.has_curve() ? "curve" : "steady";
  const std::string at = place(field);
  if (kinds > 1) {
    out.push_back({at, "target_latency, curve and steady exclude each other: a step measures one way"});
    return;
  }
  const bool vary_depth = io.target_latency().vary() == v1::SEARCH_VARY_QUEUE_DEPTH;
  if (io.has_target_latency()) CheckTargetLatency(io.target_latency(), at, out);
  const int searched = SearchedStream(io, at, out);
  if (io.has_curve()) CheckCurve(io.curve(), at, out);
  if (io.has_steady()) CheckSteady(io.steady(), at, out);
  // A bisection of the depths below it takes log2(queue_depth) windows, besides the first and
  // the confirming one: past what max_probes allows, its answer would not be exact.
  const uint32_t probes = io.target_latency().has_max_probes() ? io.target_latency().max_probes() : 12;
  const uint64_t exact_up_to = uint64_t{1} << std::min<uint32_t>(std::max<uint32_t>(probes, 2) - 2, 40);
  // Every job of every stream is cut at the same instants and, when paced, given the same pace.
  uint64_t jobs = 0;
  const std::vector<const v1::IoSpec*> streams = StreamsOf(io);
  for (size_t k = 0; k < streams.size(); ++k) {
    const v1::IoSpec& job = *streams[k];
    const FieldPlace job_place = io.streams_size() > 0 ? FieldPlace([&, k](int f) { return stream_place(static_cast<int>(k), f); }) : place;
    jobs += std::max<uint32_t>(job.jobs(), 1);
    const bool depth_searched = vary_depth && (io.streams_size() == 0 || searched == static_cast<int>(k));
    CheckCutJobs(job, name, io.has_target_latency() || io.has_curve(), depth_searched, job_place, out);
    if (depth_searched && job.queue_depth() > exact_up_to) {
      out.push_back({job_place(v1::IoSpec::kQueueDepthFieldNumber),
                     std::to_string(job.queue_depth()) + ": a search of the depths below it in " + std::to_string(probes) +
                         " windows (max_probes) is exact up to " + std::to_string(exact_up_to) + ": give at most that, or more max_probes"});
    }
    if (io.streams_size() > 0 && job.start_delay() > 0) {
      out.push_back({job_place(v1::IoSpec::kStartDelayFieldNumber), "delays a stream of a " + name +
                                                                          " step, whose windows open for every stream at once: leave it out"});
    }
  }
  if (jobs > kMaxSearchJobs) {
    out.push_back({io.streams_size() > 0 ? place(v1::IoSpec::kStreamsFieldNumber) : place(v1::IoSpec::kJobsFieldNumber),
                   std::to_string(jobs) + " jobs in a " + name + " step: at most " + std::to_string(kMaxSearchJobs) + " per agent"});
  }
  if (io.stonewall() == v1::STONEWALL_FIRST_DONE) {
    out.push_back({place(v1::IoSpec::kStonewallFieldNumber), "does not apply: a " + name + " step ends when its windows do"});
  }
  const uint64_t least = CutStepLeastRuntimeNs(io);
  // (Without one of the workload's, the step has CutStepRuntimeNs: that is enough.)
  if (io.runtime() > 0 && io.runtime() != CutStepRuntimeNs(io) && io.runtime() < least) {
    out.push_back({place(v1::IoSpec::kRuntimeFieldNumber), FormatDuration(io.runtime()) + " is too short for its " + name +
                                                                " windows: at least " + FormatDuration(least) + ", or leave runtime out"});
  }
}

}  // namespace iofleet::rules
