// Where a job's random I/Os land when they are not uniform: fio's random_distribution (zipf,
// pareto, normal, zoned). Build() turns a spec into a table once, on the cold path (it allocates
// and calls pow/erfc); Draw() turns one 64-bit random number into a slot with a few table reads
// and no maths library, so a step's jobs can share one table read-only.
//
// The table is the distribution's inverse CDF over the 64-bit numbers: buckets of ranks, each
// owning the run of random numbers its probability is worth and spreading them evenly over its
// ranks. The hottest 4096 ranks of zipf and pareto are a bucket each (exact); beyond them a
// bucket spans 1/512 of its first rank, so a bucket's probability is exact and only its spread
// within is uniform (zipf's p(k) changes by theta/512 across one). A guide indexed by the top
// bits of the random number names the first bucket to look at, so a draw reads the guide, one
// bucket (rarely a short binary search) and, for zipf and pareto, the scatter's bijection.
//
// Thread-safety: immutable after Build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/base/distribution_spec.h"
#include "core/base/random.h"
#include "core/base/status.h"

namespace iofleet::agent {

using DistributionSpec = iofleet::DistributionSpec;
using Zone = iofleet::Zone;

class OffsetDistribution {
 public:
  static constexpr uint64_t kMaxSlots = uint64_t{1} << 62;

  // Validates the spec; slots in [1, kMaxSlots]. The table stays under 1.5 MiB whatever slots is.
  static Result<std::shared_ptr<const OffsetDistribution>> Build(const DistributionSpec& spec, uint64_t slots);

  // The slot, in [0, slots), for one uniform 64-bit random number.
  uint64_t Draw(uint64_t random64) const noexcept {
    uint64_t rank = Rank(random64);
    return scatter_ ? scatter_(rank) : rank;
  }

  // The slot before the scatter: for zipf and pareto the rank (0 is the hottest), for the others
  // the slot itself. Non-decreasing in random64: the distribution's inverse CDF.
  uint64_t Rank(uint64_t random64) const noexcept {
    const uint64_t cell = random64 >> guide_shift_;
    uint32_t lo = guide_[cell];
    uint32_t hi = guide_[cell + 1];
    while (lo < hi) {  // usually no step: the guide names the bucket
      uint32_t mid = (lo + hi) / 2;
      if (random64 > buckets_[mid].last_random) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const Bucket& b = buckets_[lo];
    // Counted back from the bucket's last rank, so that a larger random64 gives a larger rank.
    auto below = static_cast<uint64_t>((static_cast<unsigned __int128>(b.last_random - random64) * b.scale) >> b.shift);
    return b.last_rank - below;
  }

  uint64_t slots() const { return slots_; }
  bool scattered() const { return static_cast<bool>(scatter_); }
  size_t bucket_count() const { return buckets_.size(); }
  size_t table_bytes() const { return buckets_.size() * sizeof(Bucket) + guide_.size() * sizeof(uint32_t); }

 private:
  friend class OffsetTableBuilder;

  // Ranks [last_rank - width + 1, last_rank], drawn by the random numbers up to last_random
  // (from the previous bucket's last_random + 1): `scale / 2^shift` is width / numbers, so
  // (last_random - r) * scale >> shift is in [0, width). shift is up to 127.
  struct Bucket {
    uint64_t last_random;
    uint64_t last_rank;
    uint64_t scale;
    uint32_t shift;
  };

  // The scatter of zipf and pareto: a keyed bijection of [0, slots); false for the others.
  class Scatter {
   public:
    explicit operator bool() const { return on_; }
    uint64_t operator()(uint64_t rank) const noexcept { return permutation_(rank); }
    void Set(uint64_t slots, uint64_t seed) {
      permutation_ = Permutation(slots, seed);
      on_ = true;
    }

   private:
    Permutation permutation_;
    bool on_ = false;
  };

  OffsetDistribution() = default;

  std::vector<Bucket> buckets_;
  std::vector<uint32_t> guide_;  // 2^(64 - guide_shift_) + 1 entries: the bucket of cell << guide_shift_
  uint32_t guide_shift_ = 63;
  uint64_t slots_ = 0;
  Scatter scatter_;
};

}  // namespace iofleet::agent
