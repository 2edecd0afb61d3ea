// Small, fast, deterministic generators for the hot path: a PRNG for per-I/O choices and a
// keyed bijection for random offsets that visit every block once per pass.
#pragma once

#include <cstdint>

namespace iofleet {

// SplitMix64: good statistical quality, one multiply-xorshift chain per number; also used to
// derive independent seeds.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() noexcept {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) (bound > 0), by multiply-shift: no division on the hot path.
  uint64_t Below(uint64_t bound) noexcept {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }

 private:
  uint64_t state_;
};

// A pseudo-random permutation of [0, n): index i -> Permute(i), every value exactly once.
// A keyed bijection on the enclosing power of two, cycle-walked into [0, n) (at most two steps
// on average). Stateless, so any prefix can be replayed.
class Permutation {
 public:
  Permutation() = default;
  Permutation(uint64_t n, uint64_t key) : n_(n) {
    bits_ = 0;
    while (bits_ < 64 && (uint64_t{1} << bits_) < n) ++bits_;
    mask_ = bits_ >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits_) - 1;
    shift_ = bits_ / 2 + 1;
    SplitMix64 keys(key);
    k1_ = keys.Next();
    k2_ = keys.Next();
  }

  uint64_t operator()(uint64_t i) const noexcept {
    uint64_t x = i;
    do {
      x = Round(x);
    } while (x >= n_);
    return x;
  }

 private:
  uint64_t Round(uint64_t x) const noexcept {
    // Each line is a bijection on [0, 2^bits): odd multiply and add mod 2^bits, xorshift right.
    x = (x * 0x9E3779B97F4A7C15ull + k1_) & mask_;
    x ^= x >> shift_;
    x = (x * 0xD6E8FEB86659FD93ull + k2_) & mask_;
    x ^= x >> shift_;
    return x;
  }

  uint64_t n_ = 1;
  uint64_t mask_ = 0;
  uint32_t bits_ = 0;
  uint32_t shift_ = 1;
  uint64_t k1_ = 0;
  uint64_t k2_ = 0;
};

}  // namespace iofleet
