#include "agent/worker/verify_header.h"

#include <zlib.h>

#include <cstring>

namespace iofleet::agent {
namespace {

constexpr uint32_t kMagic = 0x10F1EE7u;

struct Header {
  uint32_t magic;
  uint32_t crc;
  uint64_t offset;
  uint64_t token;
  uint32_t length;
  uint32_t reserved;
};
static_assert(sizeof(Header) == kVerifyHeaderBytes);

uint32_t BlockCrc(const std::byte* block, uint32_t length) {
  // The CRC field itself is excluded: covered are the bytes after it.
  const auto* bytes = reinterpret_cast<const Bytef*>(block);
  return static_cast<uint32_t>(crc32(0, bytes + 8, length - 8));
}

}  // namespace

const char* VerifyFailureName(VerifyFailure failure) {
  switch (failure) {
    case VerifyFailure::kNone: return "ok";
    case VerifyFailure::kMagic: return "no verify header (never written by this run, or overwritten)";
    case VerifyFailure::kLength: return "block length differs";
    case VerifyFailure::kOffset: return "block belongs at another offset";
    case VerifyFailure::kRun: return "block written by another run";
    case VerifyFailure::kChecksum: return "checksum mismatch (data corrupted)";
  }
  return "?";
}

void WriteVerifyHeader(std::byte* block, uint32_t length, uint64_t offset, uint64_t run_token) noexcept {
  Header h{kMagic, 0, offset, run_token, length, 0};
  std::memcpy(block, &h, sizeof(h));
  h.crc = BlockCrc(block, length);
  std::memcpy(block, &h, sizeof(h));
}

VerifyResult CheckVerifyHeader(const std::byte* block, uint32_t length, uint64_t offset,
                               uint64_t run_token) noexcept {
  Header h;
  std::memcpy(&h, block, sizeof(h));
  if (h.magic != kMagic) return {VerifyFailure::kMagic, h.magic, kMagic};
  if (h.length != length) return {VerifyFailure::kLength, h.length, length};
  if (h.offset != offset) return {VerifyFailure::kOffset, h.offset, offset};
  if (h.token != run_token) return {VerifyFailure::kRun, h.token, run_token};
  uint32_t crc = BlockCrc(block, length);
  if (crc != h.crc) return {VerifyFailure::kChecksum, crc, h.crc};
  return {};
}

}  // namespace iofleet::agent
