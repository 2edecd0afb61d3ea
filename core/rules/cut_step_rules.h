// The rules of the io steps that the controller cuts into windows while they run (target_latency,
// curve, steady: workload.proto): at most one of them in a step, and nothing that would fight the
// rates they set or the end they choose (rate, think, flow, stonewall), in the step and in each
// of its streams.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/rules/validate.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {

// A resolved io step that has one of them: `place` names where each of the step's fields came
// from, `stream_place` each of stream k's.
using StreamPlace = std::function<std::string(int stream, int field)>;
void CheckCutStep(const v1::IoSpec& io, const FieldPlace& place, const StreamPlace& stream_place, std::vector<Violation>& out);

}  // namespace iofleet::rules
