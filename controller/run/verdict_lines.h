// The verdicts of a run (report.json's `verdicts`) as console lines, for `iofleet run`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace iofleet::controller {

std::string VerdictLines(const nlohmann::ordered_json& verdicts);

}  // namespace iofleet::controller
