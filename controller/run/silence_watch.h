// Which agents' step streams have gone silent: a frozen or cut-off agent, not one that is late
// because this controller was slow to reach it.
//
// Silence is counted on the controller's own running time (stall_clock.h), and for each agent
// from the later of the step's first sample due and one sample interval after its stream was
// opened (the first sample it could send). Opening a thousand streams on a busy two-core host
// took seconds here: counted from the step's first sample due alone, the streams opened last
// were taken for silent, and their agents for lost, before they could have sent anything.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace iofleet::controller {

class SilenceWatch {
 public:
  explicit SilenceWatch(size_t agents) : heard_at_(agents), open_(agents), silenced_(agents) {}

  // The step's first sample is due at `first_due_ns`; a stream quiet for `limit_ns` is silent.
  // Before any Opened of the step (its own fields are not atomic: the caller orders the two).
  void Begin(uint64_t first_due_ns, uint64_t limit_ns, uint64_t sample_interval_ns);
  // Agent i's stream is being opened now: its first sample is due an interval from now at the
  // earliest.
  void Opened(size_t i, uint64_t now_ns);
  void Closed(size_t i) { open_[i].store(false); }
  void Heard(size_t i, uint64_t now_ns);
  // Whether agent i's stream is open and was silent for the limit; true once per agent (its
  // stream is then cancelled).
  bool TurnedSilent(size_t i, uint64_t now_ns);
  // Whether agent i's stream was found silent.
  bool Silenced(size_t i) const { return silenced_[i].load(); }

 private:
  uint64_t first_due_ns_ = 0, limit_ns_ = 0, sample_interval_ns_ = 0;
  std::vector<std::atomic<uint64_t>> heard_at_;
  std::vector<std::atomic<bool>> open_, silenced_;
};

}  // namespace iofleet::controller
