// What each I/O of a job does: offset, length, read or write. Deterministic from its spec, so
// the cold path can replay a job's first N I/Os (to know what a step wrote) with a fresh copy.
#pragma once

#include <array>
#include <cstdint>

#include "agent/engine/io_engine.h"
#include "agent/worker/offset_distribution.h"
#include "core/base/random.h"

namespace iofleet::agent {

struct SequenceSpec {
  uint64_t base = 0;          // byte offset of the job's range in its file
  uint64_t slots = 0;         // slots in the job's range
  uint64_t slot_size = 0;     // the largest transfer
  uint64_t stride = 1;        // strided shared files: slot i of the job is file slot first + i * stride
  uint64_t first = 0;
  bool random = false;
  bool reverse = false;       // sequential: slot slots - 1 first, slot 0 last (fio's rw=read:-N)
  // Random jobs only. `repeats`: each I/O a slot drawn uniformly (fio's norandommap) instead of
  // a permutation per pass; `distribution` (owned by the job's task, shared by its jobs): each
  // I/O a slot drawn from it (zipf, pareto, normal, zoned), with repeats.
  bool repeats = false;
  const OffsetDistribution* distribution = nullptr;
  // fio's sequence distribution: these slots, in this order, over and over; strided, each round
  // of them lies pattern_count slots further on, back at the range's start where a round would
  // pass its end. pattern_max is the largest of them (below `slots`).
  uint32_t pattern_count = 0;
  bool pattern_strided = false;
  uint64_t pattern_max = 0;
  std::array<uint64_t, 64> pattern{};
  uint32_t read_pct = 100;    // 100: reads only, 0: writes only
  uint32_t split_count = 0;   // 0: every transfer is slot_size
  std::array<uint32_t, 16> split_size{};
  std::array<uint64_t, 16> split_cumulative{};  // running sum of weights
  uint64_t seed = 1;
};

// Where slot `i` of a job's range lies in its file.
inline uint64_t SlotOffset(const SequenceSpec& s, uint64_t i) noexcept { return s.base + (s.first + i * s.stride) * s.slot_size; }

// The bytes of its file a job's slots lie in, [begin, end): the whole span from its first slot
// to the end of its last (for a strided job, other jobs' slots lie in between).
struct ByteSpan {
  uint64_t begin;
  uint64_t end;
};
inline ByteSpan JobSpan(const SequenceSpec& s) noexcept {
  if (s.slots == 0) return {s.base, s.base};
  return {SlotOffset(s, 0), SlotOffset(s, s.slots - 1) + s.slot_size};
}

struct IoChoice {
  uint64_t offset;
  uint32_t length;
  IoDir dir;
};

class IoSequence {
 public:
  IoSequence() = default;
  explicit IoSequence(const SequenceSpec& spec);

  // The next I/O of the current pass; false when the pass is complete. Inlined into the worker's
  // loop: a call of its own cost a seventh of a null-engine I/O (bench/null-instructions).
  [[gnu::always_inline]] bool Next(IoChoice& out) noexcept {
    if (index_ == spec_.slots) return false;
    // (A sequence is a random job's without repeats, tested last: other jobs pay nothing for it.)
    uint64_t slot = spec_.distribution ? spec_.distribution->Draw(rng_.Next())
                    : spec_.repeats    ? UniformSlot(rng_.Next())
                    : spec_.random     ? (spec_.pattern_count ? PatternSlot() : permutation_(index_))
                                       : index_;
    ++index_;
    uint64_t r = draws_r_ ? rng_.Next() : 0;
    out.dir = spec_.read_pct == 100 ? IoDir::kRead
              : spec_.read_pct == 0 ? IoDir::kWrite
              : ((r & 0xFFFFFFFF) % 100 < spec_.read_pct ? IoDir::kRead : IoDir::kWrite);
    if (!spec_.random) {
      // Sequential: a mixed job's reads and writes each go through the range from its start,
      // one after the other, as fio keeps an offset per direction (a 60/40 job reads 60% of
      // the range in a pass and writes over the first 40% of it).
      if (mixed_) {
        uint64_t& cursor = cursor_[out.dir == IoDir::kRead ? 0 : 1];
        slot = cursor;
        cursor = cursor + 1 == spec_.slots ? 0 : cursor + 1;
      }
      if (spec_.reverse) slot = spec_.slots - 1 - slot;
    }
    out.length = spec_.split_count ? PickSize(r >> 32) : static_cast<uint32_t>(spec_.slot_size);
    out.offset = SlotOffset(spec_, slot);
    return true;
  }

  // Begins the next pass: the same slots, in a new order when random.
  void NextPass() noexcept;
  uint64_t passes_started() const { return pass_; }
  uint64_t index_in_pass() const { return index_; }
  const SequenceSpec& spec() const { return spec_; }

 private:
  // A uniform slot from 64 random bits: the high half of r x slots (Lemire's multiply, no division).
  uint64_t UniformSlot(uint64_t r) const noexcept {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * spec_.slots) >> 64);
  }
  uint64_t PatternSlot() noexcept {
    const uint64_t slot = pattern_base_ + spec_.pattern[pattern_pos_];
    if (++pattern_pos_ == spec_.pattern_count) {
      pattern_pos_ = 0;
      if (spec_.pattern_strided) {
        pattern_base_ += spec_.pattern_count;
        if (pattern_base_ + spec_.pattern_max >= spec_.slots) pattern_base_ = 0;
      }
    }
    return slot;
  }
  uint32_t PickSize(uint64_t r32) const noexcept {
    uint64_t total = spec_.split_cumulative[spec_.split_count - 1];
    uint64_t pick = (r32 * total) >> 32;
    uint32_t i = 0;
    while (pick >= spec_.split_cumulative[i]) ++i;
    return spec_.split_size[i];
  }

  SequenceSpec spec_;
  Permutation permutation_;
  SplitMix64 rng_{1};
  uint64_t index_ = 0;
  uint64_t pass_ = 0;
  std::array<uint64_t, 2> cursor_{};  // a mixed sequential job's next read and write slot
  uint32_t pattern_pos_ = 0;          // a sequence: the next of its slots ...
  uint64_t pattern_base_ = 0;         // ... and, strided, where its round begins
  bool mixed_ = false;    // reads and writes (read_pct neither 0 nor 100)
  bool draws_r_ = false;  // each I/O draws a number for its direction or its size
};

}  // namespace iofleet::agent
