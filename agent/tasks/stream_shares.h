// What a step's streams share on an agent, worked out by the supervisor before their tasks
// exist: fio's flows (a FlowShare per flow id) and a working set of repeats (data.dedupe_global).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "agent/worker/flow_share.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::agent {

// Where a stream's jobs' parts lie in a working set the step's streams share.
struct DedupeSetPlace {
  uint64_t first = 0;
  uint64_t chunks = 0;  // the whole set's; 0: the stream shares none
};

// The chunks of a job's part of its working set (data.dedupe_working_set_pct of its range,
// at least one); 0 without a working set.
uint64_t WorkingSetChunks(const v1::IoSpec& io, uint32_t global_jobs);

// Each stream's place in the agent's shared working set (data.dedupe_global), in order: the
// streams that share it, one after another, each job's part after the one before.
std::vector<DedupeSetPlace> DedupeSetsOf(const std::vector<const v1::IoSpec*>& streams, uint32_t global_jobs);

// The flow of each of a step's streams (or of the step without streams), in order: one FlowShare
// per flow id, weighed by every job in it on this agent; null for a stream without flow.
std::vector<std::shared_ptr<FlowShare>> FlowSharesOf(const std::vector<const v1::IoSpec*>& streams);

}  // namespace iofleet::agent
