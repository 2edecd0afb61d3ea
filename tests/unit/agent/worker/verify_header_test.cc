#include "agent/worker/verify_header.h"

#include <gtest/gtest.h>

#include <vector>

namespace iofleet::agent {
namespace {

TEST(VerifyHeader, DetectsEveryKindOfMismatch) {
  std::vector<std::byte> block(4096, std::byte{0x5a});
  WriteVerifyHeader(block.data(), 4096, 8192, 77);
  EXPECT_EQ(CheckVerifyHeader(block.data(), 4096, 8192, 77).failure, VerifyFailure::kNone);
  EXPECT_EQ(CheckVerifyHeader(block.data(), 4096, 4096, 77).failure, VerifyFailure::kOffset);
  EXPECT_EQ(CheckVerifyHeader(block.data(), 4096, 8192, 78).failure, VerifyFailure::kRun);
  EXPECT_EQ(CheckVerifyHeader(block.data(), 2048, 8192, 77).failure, VerifyFailure::kLength);
  block[3000] = std::byte{0x00};
  EXPECT_EQ(CheckVerifyHeader(block.data(), 4096, 8192, 77).failure, VerifyFailure::kChecksum);
  std::vector<std::byte> zeros(4096);
  EXPECT_EQ(CheckVerifyHeader(zeros.data(), 4096, 0, 77).failure, VerifyFailure::kMagic);
}

}  // namespace
}  // namespace iofleet::agent
