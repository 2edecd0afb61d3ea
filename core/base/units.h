// Exact parsing and printing of sizes and durations, as workloads write them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace iofleet {

// "4KiB" (powers of 2: B KiB MiB GiB TiB), "4KB" (powers of 10: KB MB GB TB), "4096" (bytes),
// "1.5GiB" when the result is a whole number of bytes. Anything else is an error whose message
// suggests the likely intent ("4kb" -> did you mean 4KiB?).
Result<uint64_t> ParseSize(std::string_view text);

// "30s", "100ms", "2m", "1h", "250us", "10ns", or "0". Returns nanoseconds.
Result<uint64_t> ParseDuration(std::string_view text);

// The shortest exact spelling: 1048576 -> "1MiB", 1500 -> "1500B", 0 -> "0B".
std::string FormatSize(uint64_t bytes);
// The shortest exact spelling: 30000000000 -> "30s", 1500000 -> "1500us".
std::string FormatDuration(uint64_t ns);

}  // namespace iofleet
