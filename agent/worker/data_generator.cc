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
  own_written_ = 0;
  if (options.dedupe_pct > 0 && options.working_set_chunks > 0) {
    // A set chunk is whole wherever a block starts (blocks need not be 4 KiB multiples): its
    // random part, then the fill every full chunk has.
    set_fill_.assign(kChunk, std::byte{0});
    for (size_t i = random_bytes_; i < kChunk && !options.pattern.empty(); ++i) {
      set_fill_[i] = static_cast<std::byte>(options.pattern[(i - random_bytes_) % options.pattern.size()]);
    }
  }
  if (options.dedupe_pct > 0 && options.working_set_chunks == 0) {
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

// xorshift: one multiply-free step per chunk decides duplicate or unique.
uint64_t DataGenerator::NextRandom() noexcept {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}

void DataGenerator::WriteSetChunk(std::byte* chunk, uint64_t number) const noexcept {
  SplitMix64 bytes(options_.working_set_seed ^ (number * 0x9E3779B97F4A7C15ull));
  for (size_t i = 0; i < random_bytes_; i += 8) {
    const uint64_t v = bytes.Next();
    std::memcpy(chunk + i, &v, 8);
  }
  std::memcpy(chunk + random_bytes_, set_fill_.data() + random_bytes_, kChunk - random_bytes_);
}

void DataGenerator::Stamp(std::byte* buffer, uint32_t length) noexcept {
  for (uint32_t at = 0; at + kStampOffset + 16 <= length; at += kChunk) {
    std::byte* chunk = buffer + at;
    if (options_.working_set_chunks > 0 && length - at >= kChunk) {
      if (NextRandom() % 100 < options_.dedupe_pct) {
        const uint64_t draw = static_cast<uint64_t>((static_cast<unsigned __int128>(NextRandom()) * options_.working_set_chunks) >> 64);
        WriteSetChunk(chunk, draw);
        continue;
      }
      if (own_written_ < options_.own_count) {
        WriteSetChunk(chunk, options_.own_first + own_written_++);
        continue;
      }
    } else if (options_.dedupe_pct > 0 && options_.working_set_chunks == 0) {
      size_t index = static_cast<size_t>(chunk - base_) / kChunk;
      if (NextRandom() % 100 < options_.dedupe_pct) {
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
