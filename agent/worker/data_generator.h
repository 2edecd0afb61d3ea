// The bytes writes carry. Buffers are filled once at setup, chunk by 4 KiB chunk: a random part,
// then the compressible part (the pattern, or zeros). Before each write, every chunk gets a
// unique 16-byte stamp in its random part, so no 4 KiB block repeats anywhere in the run at
// the cost of two stores per chunk. With dedupe_pct, that share of chunks instead becomes a copy
// of one fixed chunk (and is restored from the template before its next unique use), or, with a
// working set, of one of its chunks drawn at random: a set chunk's random part is regenerated
// from its seed (a chunk's worth of SplitMix64, about a microsecond), and the job's first unique
// chunks are its part of the set, as fio's first unique buffers are its working set.
//
// Thread-safety: one per job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iofleet::agent {

struct DataOptions {
  uint32_t compressible_pct = 0;
  std::string pattern;  // raw bytes; empty: zeros
  uint32_t dedupe_pct = 0;
  uint64_t stream = 0;  // unique per job and run: the high half of every stamp
  bool verify = false;  // keep the first 32 bytes of each block for the verify header
  // dedupe_pct's repeats from a working set of this many chunks (0: repeats of one chunk), each
  // the bytes of its number under working_set_seed; this job's first unique chunks are the set's
  // chunks own_first .. own_first + own_count (the whole set, or its part of a global one).
  uint64_t working_set_chunks = 0;
  uint64_t working_set_seed = 0;
  uint64_t own_first = 0;
  uint64_t own_count = 0;
};

class DataGenerator {
 public:
  static constexpr size_t kChunk = 4096;
  static constexpr size_t kStampOffset = 32;  // after a verify header's 32 bytes

  DataGenerator() = default;
  // `buffers` holds `count` buffers of `size` bytes each (size a multiple of 512).
  void Prepare(const DataOptions& options, std::byte* buffers, size_t size, size_t count);
  // Makes the `length` bytes about to be written from `buffer` fresh.
  void Stamp(std::byte* buffer, uint32_t length) noexcept;
  // The random bytes at the start of each chunk (the rest is the compressible fill).
  size_t random_bytes_per_chunk() const { return random_bytes_; }

  // "0xdeadbeef" -> bytes de ad be ef; anything else is taken as text.
  static std::string DecodePattern(const std::string& pattern);

 private:
  void Restore(std::byte* chunk, size_t chunk_index) noexcept;
  // The working set's chunk `number`: its random part, the rest being the fill every chunk has.
  void WriteSetChunk(std::byte* chunk, uint64_t number) const noexcept;
  uint64_t NextRandom() noexcept;

  DataOptions options_;
  std::byte* base_ = nullptr;
  size_t total_ = 0;
  size_t random_bytes_ = kChunk;
  uint64_t counter_ = 0;
  uint64_t rng_ = 1;
  uint64_t own_written_ = 0;  // of the job's part of the working set
  std::vector<std::byte> template_;     // dedupe only: pristine buffers
  std::vector<uint8_t> is_duplicate_;   // dedupe only: per chunk of the buffers
  std::vector<std::byte> duplicate_;    // dedupe only: the chunk every duplicate copies
  std::vector<std::byte> set_fill_;     // working set only: a chunk's fill after its random part
};

}  // namespace iofleet::agent
