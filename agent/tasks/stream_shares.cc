#include "agent/tasks/stream_shares.h"

#include <algorithm>
#include <map>

#include "agent/worker/data_generator.h"
#include "core/rules/defaults.h"

namespace iofleet::agent {

uint64_t WorkingSetChunks(const v1::IoSpec& io, uint32_t global_jobs) {
  if (io.data().dedupe_pct() == 0 || !io.data().has_dedupe_working_set_pct()) return 0;
  const uint64_t range_chunks = rules::JobRangeBytes(io, global_jobs) / DataGenerator::kChunk;
  return std::max<uint64_t>(1, range_chunks * io.data().dedupe_working_set_pct() / 100);
}

std::vector<DedupeSetPlace> DedupeSetsOf(const std::vector<const v1::IoSpec*>& streams, uint32_t global_jobs) {
  std::vector<DedupeSetPlace> out(streams.size());
  uint64_t total = 0;
  for (size_t k = 0; k < streams.size(); ++k) {
    if (!streams[k]->data().dedupe_global()) continue;
    out[k].first = total;
    // Beyond 2^62 chunks (exbibytes of files) the set stops growing rather than wrap.
    total = std::min<uint64_t>(uint64_t{1} << 62, total + std::min<uint64_t>(uint64_t{1} << 62, WorkingSetChunks(*streams[k], global_jobs) * streams[k]->jobs()));
  }
  for (size_t k = 0; k < streams.size(); ++k) {
    if (streams[k]->data().dedupe_global()) out[k].chunks = total;
  }
  return out;
}

std::vector<std::shared_ptr<FlowShare>> FlowSharesOf(const std::vector<const v1::IoSpec*>& streams) {
  std::map<uint32_t, uint64_t> weight;  // flow id -> every job's weight in it
  for (const v1::IoSpec* io : streams) {
    if (io->flow().has_weight()) weight[io->flow().id()] += uint64_t{io->jobs()} * io->flow().weight();
  }
  std::map<uint32_t, std::shared_ptr<FlowShare>> shares;
  for (const auto& [id, total] : weight) shares[id] = std::make_shared<FlowShare>(total);
  std::vector<std::shared_ptr<FlowShare>> out;
  for (const v1::IoSpec* io : streams) out.push_back(io->flow().has_weight() ? shares[io->flow().id()] : nullptr);
  return out;
}

}  // namespace iofleet::agent
