#include "controller/push/result_families.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

std::string HelpLine(const std::string& text, const std::string& family) {
  size_t at = text.find("# HELP " + family + " ");
  if (at == std::string::npos) return "";
  return text.substr(at, text.find('\n', at) - at);
}

TEST(ResultFamilies, AStepInstanceAndARunsMeanAreSeriesOfOneFamilyWithOneHelp) {
  ResultFigures instance;
  instance.step = "read";
  instance.point = 1;
  instance.cycle = "2";
  instance.group_cycle = 0;
  instance.bytes_per_sec = 1.5e9;
  instance.iops = 366210.9375;
  instance.latency_seconds = {{"0.5", 0.0001}, {"0.99", 0.00025}};
  const std::string pushed = ResultFamilies({instance}, {{{}, "read", 1, "iops", true}});

  ResultFigures mean;
  mean.labels = {{"suite", "nightly"}, {"workload", "w"}};
  mean.step = "read";
  mean.point = 1;
  mean.cycle = "mean";
  mean.iops = 1000;
  mean.latency_seconds = {{"0.99", 0.002}};
  const std::string served = ResultFamilies({mean}, {{mean.labels, "read", 1, "bandwidth", false}});

  EXPECT_NE(pushed.find("iofleet_result_bytes_per_second{step=\"read\",point=\"1\",cycle=\"2\",group_cycle=\"0\"} 1500000000\n"),
            std::string::npos)
      << pushed;
  EXPECT_NE(pushed.find("iofleet_result_iops{step=\"read\",point=\"1\",cycle=\"2\",group_cycle=\"0\"} 366210.9375\n"), std::string::npos);
  EXPECT_NE(pushed.find("iofleet_result_latency_seconds{step=\"read\",point=\"1\",cycle=\"2\",group_cycle=\"0\",quantile=\"0.99\"} 0.00025\n"),
            std::string::npos);
  EXPECT_NE(pushed.find("iofleet_result_verdict{step=\"read\",point=\"1\",figure=\"iops\"} 1\n"), std::string::npos) << pushed;
  EXPECT_NE(served.find("iofleet_result_iops{suite=\"nightly\",workload=\"w\",step=\"read\",point=\"1\",cycle=\"mean\"} 1000\n"),
            std::string::npos)
      << served;
  EXPECT_NE(served.find("iofleet_result_verdict{suite=\"nightly\",workload=\"w\",step=\"read\",point=\"1\",figure=\"bandwidth\"} 0\n"),
            std::string::npos)
      << served;
  EXPECT_EQ(served.find("iofleet_result_bytes_per_second"), std::string::npos) << "a family with no series is left out";
  for (const char* family : {"iofleet_result_iops", "iofleet_result_latency_seconds", "iofleet_result_verdict"}) {
    EXPECT_FALSE(HelpLine(pushed, family).empty()) << family;
    EXPECT_EQ(HelpLine(pushed, family), HelpLine(served, family)) << family;
  }
  EXPECT_NE(HelpLine(pushed, "iofleet_result_iops").find("cycle=\"mean\""), std::string::npos)
      << "HELP says what cycle=\"mean\" is: " << HelpLine(pushed, "iofleet_result_iops");
}

TEST(ResultFamilies, LabelValuesAreEscaped) {
  ResultFigures f;
  f.labels = {{"suite", "a\"b\\c\nd"}};
  f.step = "s";
  f.cycle = "0";
  f.iops = 1;
  const std::string text = ResultFamilies({f}, {});
  EXPECT_NE(text.find("suite=\"a\\\"b\\\\c\\nd\""), std::string::npos) << text;
  EXPECT_EQ(ResultFamilies({}, {}), "");
}

}  // namespace
}  // namespace iofleet::controller

namespace iofleet::controller {
namespace {

// What held the step back is one series with the verdict as its label, and none where no agent
// sent its host's counters.
TEST(ResultFamilies, TheLimitIsASeriesLabelledByItsVerdict) {
  ResultFigures judged;
  judged.step = "read";
  judged.cycle = "0";
  judged.limit = "queue_depth";
  ResultFigures unjudged = judged;
  unjudged.step = "sync";
  unjudged.limit.clear();
  const std::string pushed = ResultFamilies({judged, unjudged}, {});
  EXPECT_NE(pushed.find("# TYPE iofleet_result_limit gauge\n"), std::string::npos) << pushed;
  EXPECT_NE(pushed.find("iofleet_result_limit{step=\"read\",point=\"0\",cycle=\"0\",verdict=\"queue_depth\"} 1\n"), std::string::npos) << pushed;
  EXPECT_EQ(pushed.find("iofleet_result_limit{step=\"sync\""), std::string::npos) << pushed;
  EXPECT_EQ(ResultFamilies({unjudged}, {}).find("iofleet_result_limit"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller

namespace iofleet::controller {
namespace {

// The host's figures are one family per unit, a device's labelled by its name and role, an
// interface's by its name and direction; a figure the agent could not read is no series at all.
TEST(ResultFamilies, ResourcesAreAFamilyPerFigure) {
  ResultFigures f;
  f.step = "read";
  f.cycle = "0";
  ResultResources r;
  r.core_busy_ratio = 0.25;
  r.devices.push_back({"loop3", "target", 0.97, 15.5, 0.002});
  r.devices.push_back({"vda", "backing", 0.5, 1.25, std::nullopt});
  r.networks.push_back({"eth0", 1000, 2000});
  f.resources = r;
  const std::string text = ResultFamilies({f}, {});
  const std::string at = "step=\"read\",point=\"0\",cycle=\"0\"";
  EXPECT_NE(text.find("# TYPE iofleet_result_core_busy_ratio gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_result_core_busy_ratio{" + at + "} 0.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_result_device_busy_ratio{" + at + ",device=\"loop3\",role=\"target\"} 0.97\n"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_result_device_queue{" + at + ",device=\"vda\",role=\"backing\"} 1.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_result_device_latency_seconds{" + at + ",device=\"loop3\",role=\"target\"} 0.002\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("iofleet_result_device_latency_seconds{" + at + ",device=\"vda\""), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_result_network_bytes_per_second{" + at + ",interface=\"eth0\",direction=\"tx\"} 2000\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("iofleet_result_page_cache_read_ratio"), std::string::npos) << text;  // not read: absent, never 0
  f.resources.reset();
  EXPECT_EQ(ResultFamilies({f}, {}).find("iofleet_result_core_busy_ratio"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller
