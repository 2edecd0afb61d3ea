// The verdicts of a run (report.json's `verdicts`) as console lines, for `iofleet run`.
#pragma once

#include <string>

#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

std::string VerdictLines(const v1::ReportVerdicts& verdicts);

}  // namespace iofleet::controller
