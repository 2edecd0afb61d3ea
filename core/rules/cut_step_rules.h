// The rules of the io steps that the controller cuts into windows while they run (target_latency,
// curve, steady: workload.proto): at most one of them in a step, and nothing that would fight the
// rates they set or the end they choose (rate, think, stonewall, streams).
#pragma once

#include <string>
#include <vector>

#include "core/rules/validate.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {

// A resolved io step that has one of them: `place` names where each field came from.
void CheckCutStep(const v1::IoSpec& io, bool has_streams, const FieldPlace& place, std::vector<Violation>& out);

}  // namespace iofleet::rules
