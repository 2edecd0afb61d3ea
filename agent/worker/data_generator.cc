#include "agent/worker/data_generator.h"

#include <algorithm>
#include <cstring>

#include "core/base/random.h"

namespace iofleet::agent {

std::string DataGenerator::DecodePattern(const std::string& pattern) {
  if (pattern.rfind("0x", 0) != 0) return pattern;
  std::string out;
  for (size_t i = 2; i + 1 < pattern.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(pattern.substr(i, 2), nullptr, 16)));
  }
  return out;
}

void DataGenerator::Prepare(const DataOptions& options, std::byte* buffers, size_t size, size_t count) {
  options_ = options;
  base_ = buffers;
  total_ = size * count;
  rng_ = options.stream * 0x2545F4914F6CDD1Dull + 7;
  // A chunk keeps at least its stamp (and a verify header) random.
  size_t random = kChunk * (100 - std::min<uint32_t>(options.compressible_pct, 100)) / 100;
  random_bytes_ = std::max<size_t>(random / 8 * 8, kStampOffset + 16);

  SplitMix64 rng(options.stream ^ 0xA0761D6478BD642Full);
  for (size_t at = 0; at < total_; at += kChunk) {
    size_t chunk = std::min(kChunk, total_ - at);
    size_t random_end = std::min(random_bytes_, chunk);
    for (size_t i = 0; i + 8 <= random_end; i += 8) {
      uint64_t v = rng.Next();
      std::memcpy(buffers + at + i, &v, 8);
    }
    for (size_t i = random_end; i < chunk; ++i) {
      buffers[at + i] = options.pattern.empty()
                            ? std::byte{0}
                            : static_cast<std::byte>(options.pattern[(i - random_end) % options.pattern.size()]);
    }
  }
  if (options.dedupe_pct > 0) {
    template_.assign(buffers, buffers + total_);
    is_duplicate_.assign((total_ + kChunk - 1) / kChunk, 0);
    duplicate_.assign(buffers, buffers + std::min(kChunk, total_));
    uint64_t marker = 0xD0D0D0D0D0D0D0D0ull;  // a stamp no unique chunk carries
    std::memcpy(duplicate_.data() + kStampOffset, &marker, 8);
    std::memcpy(duplicate_.data() + kStampOffset + 8, &marker, 8);
  }
}

void DataGenerator::Restore(std::byte* chunk, size_t chunk_index) noexcept {
  std::memcpy(chunk, template_.data() + chunk_index * kChunk, std::min(kChunk, total_ - chunk_index * kChunk));
  is_duplicate_[chunk_index] = 0;
}

void DataGenerator::Stamp(std::byte* buffer, uint32_t length) noexcept {
  for (uint32_t at = 0; at + kStampOffset + 16 <= length; at += kChunk) {
    std::byte* chunk = buffer + at;
    if (options_.dedupe_pct > 0) {
      size_t index = static_cast<size_t>(chunk - base_) / kChunk;
      // xorshift: one multiply-free step per chunk decides duplicate or unique.
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      if (rng_ % 100 < options_.dedupe_pct) {
        if (length - at >= kChunk) {
          std::memcpy(chunk, duplicate_.data(), kChunk);
          is_duplicate_[index] = 1;
          continue;
        }
      }
      if (is_duplicate_[index]) Restore(chunk, index);
    }
    uint64_t stamp[2] = {options_.stream, ++counter_};
    std::memcpy(chunk + kStampOffset, stamp, sizeof(stamp));
  }
}

}  // namespace iofleet::agent
