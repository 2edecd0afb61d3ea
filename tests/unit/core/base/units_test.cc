#include "core/base/units.h"

#include <gtest/gtest.h>

namespace iofleet {
namespace {

TEST(ParseSize, BinaryAndDecimalUnits) {
  EXPECT_EQ(*ParseSize("4096"), 4096u);
  EXPECT_EQ(*ParseSize("4096B"), 4096u);
  EXPECT_EQ(*ParseSize("4KiB"), 4096u);
  EXPECT_EQ(*ParseSize("1MiB"), 1u << 20);
  EXPECT_EQ(*ParseSize("2GiB"), 2ull << 30);
  EXPECT_EQ(*ParseSize("1TiB"), 1ull << 40);
  EXPECT_EQ(*ParseSize("4KB"), 4000u);
  EXPECT_EQ(*ParseSize("512GB"), 512'000'000'000u);
  EXPECT_EQ(*ParseSize("1.5GiB"), 3ull << 29);
  EXPECT_EQ(*ParseSize("0"), 0u);
}

TEST(ParseSize, RejectsWithSuggestion) {
  auto r = ParseSize("4kb");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("did you mean 4KiB?"), std::string::npos) << r.status().message();
  EXPECT_FALSE(ParseSize("4 KiB").ok());
  EXPECT_FALSE(ParseSize("-4KiB").ok());
  EXPECT_FALSE(ParseSize("KiB").ok());
  EXPECT_FALSE(ParseSize("").ok());
  EXPECT_FALSE(ParseSize("1.0000001KiB").ok());  // not a whole number of bytes
  EXPECT_FALSE(ParseSize("99999999999TiB").ok());  // overflows 64 bits
  EXPECT_FALSE(ParseSize("18446744073709551616").ok());
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(*ParseDuration("30s"), 30'000'000'000u);
  EXPECT_EQ(*ParseDuration("100ms"), 100'000'000u);
  EXPECT_EQ(*ParseDuration("5m"), 300'000'000'000u);
  EXPECT_EQ(*ParseDuration("1h"), 3'600'000'000'000u);
  EXPECT_EQ(*ParseDuration("250us"), 250'000u);
  EXPECT_EQ(*ParseDuration("10ns"), 10u);
  EXPECT_EQ(*ParseDuration("1.5s"), 1'500'000'000u);
  EXPECT_EQ(*ParseDuration("0"), 0u);
}

TEST(ParseDuration, Rejects) {
  auto bare = ParseDuration("30");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("did you mean 30s?"), std::string::npos);
  auto words = ParseDuration("30sec");
  ASSERT_FALSE(words.ok());
  EXPECT_NE(words.status().message().find("did you mean 30s?"), std::string::npos);
  EXPECT_FALSE(ParseDuration("-1s").ok());
  EXPECT_FALSE(ParseDuration("s").ok());
}

TEST(FormatUnits, ShortestExactSpelling) {
  EXPECT_EQ(FormatSize(0), "0B");
  EXPECT_EQ(FormatSize(1u << 20), "1MiB");
  EXPECT_EQ(FormatSize(1536), "1536B");
  EXPECT_EQ(FormatSize(3072), "3KiB");
  EXPECT_EQ(FormatSize(4000), "4KB");
  EXPECT_EQ(FormatSize(1001), "1001B");
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(300'000'000'000), "5m");
  EXPECT_EQ(FormatDuration(1'500'000'000), "1500ms");
  EXPECT_EQ(FormatDuration(7), "7ns");
}

TEST(FormatUnits, RoundTrips) {
  for (uint64_t v : std::initializer_list<uint64_t>{1, 512, 4096, 65536, 1000, 123456789, 3ull << 40, 5'000'000'000}) {
    EXPECT_EQ(*ParseSize(FormatSize(v)), v) << v;
    EXPECT_EQ(*ParseDuration(FormatDuration(v)), v) << v;
  }
}

}  // namespace
}  // namespace iofleet
