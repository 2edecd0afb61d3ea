// The host counters of consecutive windows of one agent (a steady span) as the span's: what the
// kernel counts (device, network, throttle and NFS counters, busy and queue time, the window's
// length) adds up exactly, and what the windows ran under (the devices, the throttle limits, the
// load asked) must be the same in each. The busiest core's share of the span is the windows'
// shares weighted by their length only when the same core was the busiest in each (then no other
// core can have been busier over the span); otherwise the span has none (absent, never a guess).
#pragma once

#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

// Adds `next` (the window after those in `into`) to `into`; false, leaving `into` as it was,
// where the two are not of the same devices, limits or load, and do not add up.
bool AddSpanResources(const v1::ResourceStats& next, v1::ResourceStats& into);

}  // namespace iofleet::controller
