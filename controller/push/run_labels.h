// `iofleet run --label KEY=VALUE`: labels that describe a run (cluster, filesystem, build),
// written to report.json and attached to every pushed figure. A key becomes a Prometheus label
// name, so it must be one, and must not shadow a label iofleet itself sets.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace iofleet::controller {

using RunLabels = std::vector<std::pair<std::string, std::string>>;  // in the order given

// The label names iofleet's own series carry (DESIGN.md section 5b) plus Prometheus's own
// (job, instance, le): a --label with one of these would collide with them.
const std::vector<std::string>& ReservedLabelNames();

// "KEY=VALUE" -> {KEY, VALUE}; KEY matches [a-zA-Z_][a-zA-Z0-9_]*, does not start with "__" and
// is not reserved. The error names the argument: `--label 1x=y: ...`.
Result<std::pair<std::string, std::string>> ParseRunLabel(const std::string& text);

// Every argument parsed, a key given twice refused; errors (one per bad argument) go to `errors`.
RunLabels ParseRunLabels(const std::vector<std::string>& texts, std::vector<std::string>& errors);

}  // namespace iofleet::controller
