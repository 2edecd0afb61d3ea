// Semantic validation of a loaded workload. The loader has already checked keys, types, units
// and per-field ranges; this checks what needs more than one field.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {

struct Violation {
  std::string path;     // workload path, e.g. "steps[1].io.block_size"
  std::string message;  // what is wrong, e.g. "must be a multiple of 512 with direct: true"
};

// Every violation, not just the first.
std::vector<Violation> Validate(const v1::Workload& workload);

// Rules within one level of io fields (the defaults, a step's own io block, or a planned step):
// exclusive pairs and the data pattern. `path` is the level's path ("defaults").
void ValidateIoLevel(const v1::IoSpec& io, const std::string& path, std::vector<Violation>& out);

// Where a field of a resolved io spec should be reported: "steps[1].io.block_size" where the
// step set it, "defaults.block_size" where the defaults did; for a planned step, its own path.
// `field` is IoSpec's field number (v1::IoSpec::kBlockSizeFieldNumber).
using FieldPlace = std::function<std::string(int field)>;

// The rules on one resolved io spec that need several of its fields together: an op, block
// sizes and direct, a block for every job in the file or total, sizes and durations that fit in
// 64 bits, read_from and verify. Validate runs them on every io step; the agent runs them on
// every planned step it receives (core/rules/planned_check.h), which knows `global_jobs`: how many
// jobs of the whole run share a shared_global file (0: not known yet). False when there is no op
// (the other rules would only repeat that).
bool ValidateResolvedIo(const v1::IoSpec& io, const FieldPlace& place, std::vector<Violation>& out,
                        uint64_t global_jobs = 0);

// The workload's target: a root name and a confined relative dir (paths "target.root", "target.dir").
void ValidateTarget(const v1::Target& target, std::vector<Violation>& out);

// A step's name as a workload may write it: [a-z0-9_-]+.
bool IsStepName(const std::string& name);

// A name that is safe as one path component: [A-Za-z0-9._-]+, not "." or "..", at most 64 chars.
bool IsSinglePathComponent(const std::string& name);
// A relative path of single components separated by '/': no "..", no leading '/', no empty part.
bool IsConfinedRelativePath(const std::string& path);

}  // namespace iofleet::rules
