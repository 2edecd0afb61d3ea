// The iofleet_result_* families that carry figures: bandwidth, IOPS, latency and verdicts. Both
// `iofleet run --pushgateway` and `iofleet serve`'s /metrics write them with this one function,
// so a family has one meaning and one set of labels wherever it is scraped from: a series is one
// step at one point and one cycle (`cycle` a number: one instance as pushed, with `group_cycle`
// for a group's step; `cycle="mean"`: the mean over the run's cycles, as serve gives it). The
// labels a push's grouping key or serve's suite add come first (`labels`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace iofleet::controller {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

// A step's figures at one point and cycle.
struct ResultFigures {
  PromLabels labels;       // before the step's: serve's suite and workload; none for a push
  std::string step;
  uint32_t point = 0;
  std::string cycle;       // "0", "1", ... or "mean"
  int32_t group_cycle = -1;  // a group's step: its cycle within the group; -1: none
  std::optional<double> bytes_per_sec;
  std::optional<double> iops;
  std::vector<std::pair<std::string, double>> latency_seconds;  // quantile ("0.99") -> seconds
  std::string stream = {};  // a stream of an io step with streams (label `stream`); "": the step's
  std::string limit = {};   // io steps: what held the slowest agent back (label `verdict`); "": not judged
};

// A judged headline figure of a step at one point: 1 a regression, 0 not.
struct ResultVerdict {
  PromLabels labels;
  std::string step;
  uint32_t point = 0;
  std::string figure;
  bool regression = false;
  std::string stream = {};  // a stream's figure (label `stream`); "": the step's
};

// The families iofleet_result_bytes_per_second, _iops, _latency_seconds{quantile} and _verdict
// in Prometheus's text format, HELP and TYPE included; a family with no series is left out.
std::string ResultFamilies(const std::vector<ResultFigures>& figures, const std::vector<ResultVerdict>& verdicts);

// A label value escaped for the text format: backslash, double quote and newline.
std::string PromLabelValue(const std::string& value);

}  // namespace iofleet::controller
