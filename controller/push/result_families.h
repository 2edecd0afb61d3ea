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

// What the host of a step's slowest agent did over the step's window: report.json's `resources`
// at the agent its `limit` names. Ratios are 0 to 1; at most 64 devices and interfaces each
// (kMaxResourceRows), so the labels stay bounded.
struct ResultResources {
  std::optional<double> core_busy_ratio;        // the busiest core's
  std::optional<double> page_cache_read_ratio;  // buffered reads the page cache served
  struct Device {
    std::string name, role;  // role: target, backing, under
    double busy_ratio = 0;   // iostat's %util / 100
    double queue = 0;        // iostat's aqu-sz
    std::optional<double> latency_seconds;  // iostat's await
  };
  std::vector<Device> devices;
  struct Network {
    std::string name;
    double rx_bytes_per_sec = 0, tx_bytes_per_sec = 0;
  };
  std::vector<Network> networks;
};

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
  std::optional<ResultResources> resources = {};  // io steps whose slowest agent sent its host's counters
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

// The families iofleet_result_bytes_per_second, _iops, _latency_seconds{quantile}, _limit, the
// resources' (_core_busy_ratio, _page_cache_read_ratio, _device_busy_ratio, _device_queue,
// _device_latency_seconds, _network_bytes_per_second) and _verdict in Prometheus's text format,
// HELP and TYPE included; a family with no series is left out.
std::string ResultFamilies(const std::vector<ResultFigures>& figures, const std::vector<ResultVerdict>& verdicts);

// A label value escaped for the text format: backslash, double quote and newline.
std::string PromLabelValue(const std::string& value);

}  // namespace iofleet::controller
