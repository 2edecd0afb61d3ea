// Reading what a user hands the controller (a YAML workload, an fio job file) with bounds that
// hold before any parsing: a 21 MB workload once took 16 s and 1.9 GB before it was refused.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "controller/workload/source_map.h"
#include "core/base/status.h"

namespace iofleet::controller {

// The largest workload or job file accepted; the shipped ones are a few KiB.
constexpr size_t kMaxInputFileBytes = 4 << 20;

// The whole file, or an error naming it: "PATH: cannot read: ..." or "PATH: 22020096 bytes is more
// than a workload file may hold (4MiB)". The size is checked before reading (and, for a pipe, while
// reading: no more than the limit is read).
Result<std::string> ReadInputFile(const std::string& path);

// The same refusal for text already in memory; `file` names it.
Status CheckInputSize(const std::string& text, const std::string& file);

// Where the first NUL byte of `text` is, if it holds one.
std::optional<SourcePosition> FindNul(const std::string& text);

}  // namespace iofleet::controller
