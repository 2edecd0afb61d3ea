// Semantic validation of a loaded workload. The loader has already checked keys, types, units
// and per-field ranges; this checks what needs more than one field.
#pragma once

#include <string>
#include <vector>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::spec {

struct Violation {
  std::string path;     // workload path, e.g. "steps[1].io.block_size"
  std::string message;  // what is wrong, e.g. "must be a multiple of 512 with direct: true"
};

// Every violation, not just the first.
std::vector<Violation> Validate(const v1::Workload& workload);

// A name that is safe as one path component: [A-Za-z0-9._-]+, not "." or "..", at most 64 chars.
bool IsSinglePathComponent(const std::string& name);
// A relative path of single components separated by '/': no "..", no leading '/', no empty part.
bool IsConfinedRelativePath(const std::string& path);

}  // namespace iofleet::spec
