#include "controller/run/search_driver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/rules/defaults.h"

namespace iofleet::controller {
namespace {

std::string Unit(bool bandwidth) { return bandwidth ? "bytes_per_sec" : "iops"; }

}  // namespace

// percentile 100 is the slowest I/O itself, not its bucket's middle.
uint64_t SearchDriver::Latency(const SparseHistogram& h) const { return quantile_ >= 1.0 ? h.max() : h.Quantile(quantile_); }

double SearchQuantile(const v1::TargetLatency& target) {
  const std::string& p = target.has_percentile() ? target.percentile() : "99";
  return std::strtod(p.c_str(), nullptr) / 100.0;
}

SearchDriver::SearchDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns,
                           uint64_t window_open_ns, uint64_t jobs)
    : cuts_(fleet, std::move(run_id), step_index, CutInBytes(io), start_ns, window_open_ns, StreamNames(io)),
      target_(io.target_latency()), jobs_(std::max<uint64_t>(jobs, 1)), queue_depth_(std::max<uint32_t>(io.queue_depth(), 1)),
      quantile_(SearchQuantile(io.target_latency())), split_(jobs_) {
  report_.percentile = quantile_ * 100;
  report_.max_latency_ns = target_.max_latency();
  report_.unit = Unit(cuts_.bandwidth());
  report_.settle_ns = target_.has_settle() ? target_.settle() : 1'000'000'000;
  report_.probe_ns = target_.has_probe() ? target_.probe() : 10'000'000'000;
  // A depth search over streams searches and judges the stream it names (the rules checked it).
  for (int k = 0; k < io.streams_size() && target_.has_stream(); ++k) {
    if (io.streams(k).name() != target_.stream()) continue;
    searched_stream_ = static_cast<size_t>(k);
    queue_depth_ = std::max<uint32_t>(io.streams(k).queue_depth(), 1);
    report_.stream = target_.stream();
    cuts_.SetQueueDepthStream(target_.stream());
  }
}

void SearchDriver::Run(const std::function<bool()>& give_up) {
  if (!cuts_.WaitReleased(give_up)) return;  // the agents take a cut once their jobs are released
  if (target_.vary() == v1::SEARCH_VARY_QUEUE_DEPTH) RunDepth(give_up);
  else RunRate(give_up);
}

std::optional<FleetWindow> SearchDriver::Probe(bool first, const Pace& pace, uint32_t queue_depth, const std::function<bool()>& give_up) {
  // The change of load (the first window: the ramp's end), then the settling, then the probe.
  if (!first && !cuts_.Cut(UnixNowNs(), pace, give_up, queue_depth)) return std::nullopt;
  if (report_.settle_ns > 0 && !cuts_.Cut(cuts_.last_cut_ns() + report_.settle_ns, pace, give_up, queue_depth)) return std::nullopt;
  return cuts_.Cut(cuts_.last_cut_ns() + report_.probe_ns, pace, give_up, queue_depth);
}

void SearchDriver::Failed(const std::string& why) {
  if (cuts_.error().empty() && !why.empty()) cuts_.Fail(why);
}

void SearchDriver::RunRate(const std::function<bool()>& give_up) {
  const uint32_t max_probes = target_.has_max_probes() ? target_.max_probes() : 12;
  const double least = cuts_.bandwidth() ? 4096 : 1;  // per job: about a block, or an I/O, a second
  LatencySearch search(target_.max_latency(), max_probes, static_cast<double>(jobs_) * least);
  for (LatencySearch::Next next = search.next(); !next.done; next = search.next()) {
    const Pace pace = next.rate ? split_.For(*next.rate, 1) : Pace{};
    std::optional<FleetWindow> probe = Probe(!next.rate, pace, 0, give_up);
    if (!probe) break;
    if (!next.rate) split_.Learn(*probe, cuts_.bandwidth());  // the full-speed window: each stream's share
    const std::optional<double> asked = next.rate ? std::optional<double>(pace.asked) : std::nullopt;
    search.Record(asked, next.confirm, probe->rate, Latency(*probe->latency), probe->window_ns, probe->ops);
    if (next.confirm && search.met()) confirmed_ = std::move(probe->agents);
  }
  report_.probes = search.probes();
  report_.found_rate = search.found();
  report_.met = search.met();
  report_.failed_above = search.failed_above();
  report_.converged = search.converged();
  if (!search.met() && !give_up()) {
    char p[32];
    std::snprintf(p, sizeof p, "%g", quantile_ * 100);
    Failed(search.Failure(p, Unit(cuts_.bandwidth())));
  }
}

void SearchDriver::RunDepth(const std::function<bool()>& give_up) {
  report_.vary = "queue_depth";
  DepthSearch search(target_.max_latency(), target_.has_max_probes() ? target_.max_probes() : 12, queue_depth_);
  for (DepthSearch::Next next = search.next(); !next.done; next = search.next()) {
    std::optional<FleetWindow> probe = Probe(search.probes().empty(), Pace{}, next.queue_depth, give_up);
    if (!probe) break;
    if (searched_stream_ && *searched_stream_ >= probe->streams.size()) {
      Failed("window " + std::to_string(search.probes().size()) + " has no stream " + target_.stream());
      break;
    }
    const StreamWindow judged = searched_stream_ ? probe->streams[*searched_stream_]
                                                 : StreamWindow{probe->rate, probe->ops, probe->latency};
    search.Record(next.queue_depth, next.confirm, judged.rate, Latency(*judged.latency), probe->window_ns, judged.ops);
    if (next.confirm && search.met()) confirmed_ = std::move(probe->agents);
  }
  report_.probes = search.probes();
  report_.found_rate = search.found_rate();
  report_.found_queue_depth = search.found();
  report_.met = search.met();
  if (const std::optional<uint32_t> above = search.failed_above()) report_.failed_above = *above;
  report_.converged = search.converged();
  if (!search.met() && !give_up()) {
    char p[32];
    std::snprintf(p, sizeof p, "%g", quantile_ * 100);
    Failed(search.Failure(p));
  }
}

}  // namespace iofleet::controller
