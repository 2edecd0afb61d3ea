// fio's random_distribution text read into a spec, and the rules it must meet, with messages that
// say what is wrong (the table it builds is tests/unit/agent/worker/offset_distribution_test.cc).
#include "core/base/distribution_spec.h"

#include <gtest/gtest.h>

#include <string>

namespace iofleet {
namespace {

TEST(ParseDistribution, ReadsFioForms) {
  using Kind = DistributionSpec::Kind;
  struct Case {
    const char* text;
    Kind kind;
    double param;
  };
  for (const Case& c :
       {Case{"random", Kind::kUniform, 0}, Case{"uniform", Kind::kUniform, 0}, Case{"zipf:1.2", Kind::kZipf, 1.2},
        Case{"zipf:0.5", Kind::kZipf, 0.5}, Case{"zipf", Kind::kZipf, 1.1}, Case{" pareto:0.5 ", Kind::kPareto, 0.5},
        Case{"pareto", Kind::kPareto, 0.2}, Case{"normal:10", Kind::kNormal, 10}, Case{"normal:2.5", Kind::kNormal, 2.5}}) {
    auto spec = ParseDistribution(c.text);
    ASSERT_TRUE(spec.ok()) << c.text << ": " << spec.status().message();
    EXPECT_EQ(spec->kind, c.kind) << c.text;
    EXPECT_DOUBLE_EQ(spec->param, c.param) << c.text;
  }
  auto zoned = ParseDistribution("zoned:60/10:30/20:8/30:2/40");
  ASSERT_TRUE(zoned.ok()) << zoned.status().message();
  ASSERT_EQ(zoned->kind, Kind::kZoned);
  ASSERT_EQ(zoned->zones.size(), 4u);
  EXPECT_EQ(zoned->zones[0].access_pct, 60u);
  EXPECT_EQ(zoned->zones[0].range_pct, 10u);
  EXPECT_EQ(zoned->zones[3].access_pct, 2u);
  EXPECT_EQ(zoned->zones[3].range_pct, 40u);
  EXPECT_TRUE(ParseDistribution("zoned:100/100").ok());
}

// fio's examples/rand-zones.fio: a blank range takes an even part of what the others leave; where
// that does not divide, the last blank zone takes the rest, so the ranges still cover all of it.
TEST(ParseDistribution, BlankZoneRangeTakesTheRestAsInFio) {
  auto zoned = ParseDistribution("zoned:50/5:30/15:20/");
  ASSERT_TRUE(zoned.ok()) << zoned.status().message();
  ASSERT_EQ(zoned->zones.size(), 3u);
  EXPECT_EQ(zoned->zones[2].access_pct, 20u);
  EXPECT_EQ(zoned->zones[2].range_pct, 80u);
  auto thirds = ParseDistribution("zoned:40/:30/:30/");
  ASSERT_TRUE(thirds.ok()) << thirds.status().message();
  EXPECT_EQ(thirds->zones[0].range_pct, 33u);
  EXPECT_EQ(thirds->zones[1].range_pct, 33u);
  EXPECT_EQ(thirds->zones[2].range_pct, 34u);
  auto none_left = ParseDistribution("zoned:50/100:50/");
  ASSERT_FALSE(none_left.ok());
  EXPECT_NE(none_left.status().message().find("zone 2 spans 0% of the range"), std::string::npos)
      << none_left.status().message();
}

TEST(ParseDistribution, ASequenceIsItsSlotsInOrderUpToFiosSixtyFour) {
  auto spec = ParseDistribution("sequence:2, 0,1");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->kind, DistributionSpec::Kind::kSequence);
  EXPECT_EQ(spec->sequence, (std::vector<uint64_t>{2, 0, 1}));
  std::string longest = "sequence:0";
  for (int i = 1; i < 64; ++i) longest += "," + std::to_string(i);
  EXPECT_TRUE(ParseDistribution(longest).ok());
  auto too_long = ParseDistribution(longest + ",64");
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("1 to 64 slots (fio's limit), not 65"), std::string::npos) << too_long.status().message();
}

TEST(ParseDistribution, RefusesWhatFioRefusesAndSaysWhy) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {
           Case{"zipf:1", "must not be 1"},
           Case{"zipf:1.0", "must not be 1"},
           Case{"zipf:0", "more than 0"},
           Case{"zipf:-2", "more than 0"},
           Case{"zipf:abc", "\"abc\" is not a number"},
           Case{"zipf:", "\"\" is not a number"},
           Case{"zipf:nan", "more than 0"},
           Case{"zipf:1.2:0.25", "centre"},
           Case{"pareto:0", "more than 0 and less than 1"},
           Case{"pareto:1", "more than 0 and less than 1"},
           Case{"pareto:1.5", "more than 0 and less than 1"},
           Case{"normal", "needs its sigma"},
           Case{"normal:0", "more than 0 and less than 100"},
           Case{"normal:100", "more than 0 and less than 100"},
           Case{"zoned:60/10:30/20", "access percentages add up to 90, not 100"},
           Case{"zoned:60/10:40/20", "range percentages add up to 30, not 100"},
           Case{"zoned:120/50:0/50", "more than 100%"},
           Case{"zoned:50/0:50/100", "spans 0% of the range"},
           Case{"zoned:60/10:30", "zone 2 (\"30\") is not ACCESS/RANGE"},
           Case{"zoned:60.5/10:39.5/90", "zone 1 (\"60.5/10\") is not ACCESS/RANGE"},
           Case{"zoned:60/10:", "zone 2 (\"\") is not ACCESS/RANGE"},
           Case{"zoned:/10:100/90", "zone 1 (\"/10\") is not ACCESS/RANGE"},
           Case{"zoned:", "needs its zones"},
           Case{"zoned_abs:60/20G:40/100G", "zoned_abs"},
           Case{"sequence:", "needs its slots"},
           Case{"sequence:2,,1", "sequence slot \"\" is not a whole number"},
           Case{"sequence:2,-1", "sequence slot \"-1\" is not a whole number"},
           Case{"sequence:4611686018427387904", "beyond any range"},
           Case{"random:5", "takes no value"},
           Case{"gaussian:3", "not a distribution"},
       }) {
    auto spec = ParseDistribution(c.text);
    ASSERT_FALSE(spec.ok()) << c.text;
    EXPECT_EQ(spec.status().code(), Code::kInvalidArgument);
    EXPECT_NE(spec.status().message().find(c.says), std::string::npos) << c.text << ": " << spec.status().message();
    EXPECT_NE(spec.status().message().find(c.text), std::string::npos) << "names the text: " << spec.status().message();
  }
}

}  // namespace
}  // namespace iofleet
