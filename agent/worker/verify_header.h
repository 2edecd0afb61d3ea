// verify: true writes a 32-byte header at the start of every block, and reads check it:
// magic, the block's own offset and length, the run's token, and a CRC-32 of the whole block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iofleet::agent {

enum class VerifyFailure : uint8_t { kNone, kMagic, kLength, kOffset, kRun, kChecksum };

const char* VerifyFailureName(VerifyFailure failure);

struct VerifyResult {
  VerifyFailure failure = VerifyFailure::kNone;
  uint64_t found = 0;     // what the header said (offset, length or token)
  uint64_t expected = 0;
};

constexpr size_t kVerifyHeaderBytes = 32;

// Writes the header into the first 32 bytes of `block` (length >= 32).
void WriteVerifyHeader(std::byte* block, uint32_t length, uint64_t offset, uint64_t run_token) noexcept;
VerifyResult CheckVerifyHeader(const std::byte* block, uint32_t length, uint64_t offset,
                               uint64_t run_token) noexcept;

}  // namespace iofleet::agent
