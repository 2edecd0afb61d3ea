#include "agent/stats/run_totals.h"

namespace iofleet::agent {

void RunTotals::Add(const std::string& step, const StepSample& sample, bool finished) {
  auto add_io = [&](const char* op, const std::optional<IoSample>& s) {
    if (!s) return;
    IoSample& into = io[IoSeriesKey{step, op, sample.engine}];
    into.Add(*s);
    if (finished) into.inflight = 0;
  };
  add_io("read", sample.read);
  add_io("write", sample.write);
  if (sample.files) files[FilesSeriesKey{step, sample.phase}].Add(*sample.files);
  if (sample.copy) copy[step].Add(*sample.copy);
}

}  // namespace iofleet::agent
