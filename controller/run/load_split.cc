#include "controller/run/load_split.h"

#include <algorithm>
#include <cmath>

namespace iofleet::controller {

void LoadSplit::Learn(const FleetWindow& full_speed, bool bandwidth) {
  if (full_speed.agents.empty() || full_speed.agents[0].streams_size() == 0) return;
  std::vector<double> rates(static_cast<size_t>(full_speed.agents[0].streams_size()), 0.0);
  std::vector<Stream> streams(rates.size());
  for (const v1::StepResult& agent : full_speed.agents) {
    // Each agent's window was checked to hold the step's streams in order (CheckWindow).
    for (size_t k = 0; k < rates.size() && k < static_cast<size_t>(agent.streams_size()); ++k) {
      const v1::StreamResult& stream = agent.streams(static_cast<int>(k));
      const v1::StepResult& r = stream.result();
      if (r.window_ns() > 0) rates[k] += static_cast<double>(bandwidth ? r.bytes() : r.ops()) / (static_cast<double>(r.window_ns()) / 1e9);
      streams[k].jobs += stream.jobs();
    }
  }
  double total = 0;
  for (double r : rates) total += r;
  if (total <= 0) return;  // nothing moved: no mix to keep (the curve refuses such a maximum)
  for (size_t k = 0; k < rates.size(); ++k) streams[k].share = rates[k] / total;
  streams_ = std::move(streams);
}

Pace LoadSplit::For(double rate, double least) const {
  Pace pace;
  if (streams_.empty()) {
    const uint64_t jobs = std::max<uint64_t>(jobs_, 1);
    pace.per_job = static_cast<uint64_t>(std::max(least, std::round(rate / static_cast<double>(jobs))));
    pace.asked = static_cast<double>(pace.per_job) * static_cast<double>(jobs);
    return pace;
  }
  for (const Stream& s : streams_) {
    // A stream without a job anywhere asks nothing; it still gets a pace, never "flat out".
    const uint64_t per_job =
        s.jobs == 0 ? static_cast<uint64_t>(least)
                    : static_cast<uint64_t>(std::max(least, std::round(rate * s.share / static_cast<double>(s.jobs))));
    pace.per_stream_job.push_back(per_job);
    pace.asked += static_cast<double>(per_job) * static_cast<double>(s.jobs);
  }
  return pace;
}

}  // namespace iofleet::controller
