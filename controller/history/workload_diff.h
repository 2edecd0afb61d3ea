// What differs between two effective workloads (workload.effective.yaml, every default filled
// in): a run judged against baselines of another workload (`--set queue_depth=1` under the same
// name) would compare unlike with unlike, so the verdict names each field that differs.
#pragma once

#include <string>
#include <vector>

namespace iofleet::controller {

// "defaults.queue_depth: 32 -> 1", one per differing scalar (by path, "steps[0].io.op"; a key
// one side lacks reads "(absent)"), in path order; at most `max`, then "... and N more". Text that
// does not parse as YAML compares as one value named "(workload)".
std::vector<std::string> WorkloadDifferences(const std::string& baseline_yaml, const std::string& now_yaml, size_t max = 12);

}  // namespace iofleet::controller
