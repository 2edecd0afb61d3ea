#include "controller/run/silence_watch.h"

#include <algorithm>

namespace iofleet::controller {

void SilenceWatch::Begin(uint64_t first_due_ns, uint64_t limit_ns, uint64_t sample_interval_ns) {
  first_due_ns_ = first_due_ns;
  limit_ns_ = limit_ns;
  sample_interval_ns_ = sample_interval_ns;
  for (size_t i = 0; i < heard_at_.size(); ++i) {
    heard_at_[i].store(first_due_ns);
    open_[i].store(false);
    silenced_[i].store(false);
  }
}

void SilenceWatch::Opened(size_t i, uint64_t now_ns) {
  heard_at_[i].store(std::max(first_due_ns_, now_ns + sample_interval_ns_));
  open_[i].store(true);
}

// A message before the first sample due (none is sent today) does not bring the deadline closer.
void SilenceWatch::Heard(size_t i, uint64_t now_ns) { heard_at_[i].store(std::max(now_ns, first_due_ns_)); }

bool SilenceWatch::TurnedSilent(size_t i, uint64_t now_ns) {
  if (!open_[i].load() || silenced_[i].load() || now_ns < heard_at_[i].load() + limit_ns_) return false;
  return !silenced_[i].exchange(true);
}

}  // namespace iofleet::controller
