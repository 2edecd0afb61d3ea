#include "agent/worker/io_sequence.h"

namespace iofleet::agent {

IoSequence::IoSequence(const SequenceSpec& spec)
    : spec_(spec), rng_(spec.seed), mixed_(spec.read_pct % 100 != 0), draws_r_(mixed_ || spec.split_count) {
  permutation_ = Permutation(spec_.slots, spec_.seed);
  pass_ = 1;
}

void IoSequence::NextPass() noexcept {
  ++pass_;
  index_ = 0;
  cursor_ = {};  // fio starts each loop of a job from the range's start again
  if (spec_.random) permutation_ = Permutation(spec_.slots, spec_.seed + pass_ * 0x632BE59BD9B4E019ull);
}

}  // namespace iofleet::agent
