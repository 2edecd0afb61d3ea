#include "controller/push/run_labels.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(RunLabelsTest, KeyValue) {
  auto label = ParseRunLabel("cluster=lab=1");
  ASSERT_TRUE(label.ok()) << label.status().message();
  EXPECT_EQ(label->first, "cluster");
  EXPECT_EQ(label->second, "lab=1");  // the first "=" splits
  label = ParseRunLabel("_fs2=");
  ASSERT_TRUE(label.ok());
  EXPECT_EQ(label->second, "");
}

TEST(RunLabelsTest, RefusesWhatIsNotALabelName) {
  for (const char* bad : {"cluster", "=x", "1x=y", "a-b=c", "a.b=c", "__name__=x", "__x=y"}) {
    auto label = ParseRunLabel(bad);
    ASSERT_FALSE(label.ok()) << bad;
    EXPECT_EQ(label.status().message().rfind(std::string("--label ") + bad + ": ", 0), 0u) << label.status().message();
  }
}

TEST(RunLabelsTest, RefusesIofleetsOwnLabels) {
  for (const char* own : {"workload=x", "step=x", "agent=x", "job=x", "instance=x", "quantile=x", "status=x", "run_id=x"}) {
    auto label = ParseRunLabel(own);
    ASSERT_FALSE(label.ok()) << own;
    EXPECT_NE(label.status().message().find("iofleet sets itself"), std::string::npos) << label.status().message();
  }
}

TEST(RunLabelsTest, AllParsedKeysOnce) {
  std::vector<std::string> errors;
  RunLabels labels = ParseRunLabels({"a=1", "bad-key=2", "b=2", "a=3"}, errors);
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0], std::make_pair(std::string("a"), std::string("1")));
  EXPECT_EQ(labels[1], std::make_pair(std::string("b"), std::string("2")));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[1].find("given twice"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller
