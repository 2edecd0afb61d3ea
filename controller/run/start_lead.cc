#include "controller/run/start_lead.h"

#include <algorithm>

namespace iofleet::controller {
namespace {

constexpr uint64_t kMinStartLeadNs = 100'000'000;
constexpr uint64_t kLeadPerFanOut = 4;
// A receipt this long after the choice is no reading (a clock stepped, an agent's wrong word).
constexpr int64_t kMaxFanOutNs = 60'000'000'000;

}  // namespace

uint64_t ConservativeLeadNs(uint64_t max_rtt_ns, size_t agents) {
  return std::max<uint64_t>(kMinStartLeadNs, 20 * max_rtt_ns + agents * 200'000);
}

uint64_t StartLead::NextNs(uint64_t max_rtt_ns, size_t agents) const {
  const uint64_t conservative = ConservativeLeadNs(max_rtt_ns, agents);
  if (!fan_out_ns_) return conservative;
  return std::min(conservative, std::max(kMinMeasuredLeadNs, kLeadPerFanOut * *fan_out_ns_));
}

void StartLead::Observe(uint64_t decided_ns, uint64_t start_at_ns, const std::vector<std::optional<int64_t>>& received_ns) {
  fan_out_ns_.reset();
  if (received_ns.empty() || start_at_ns <= decided_ns) return;
  int64_t latest = 0;
  for (const auto& received : received_ns) {
    if (!received) return;
    const int64_t after = *received - static_cast<int64_t>(decided_ns);
    // At or past the instant: that agent started late, and the lead was too short.
    if (*received >= static_cast<int64_t>(start_at_ns) || after > kMaxFanOutNs) return;
    latest = std::max(latest, after);  // before the choice: within the clock offset's error
  }
  fan_out_ns_ = static_cast<uint64_t>(latest);
}

}  // namespace iofleet::controller
