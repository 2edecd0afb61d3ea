// Writes a report file whole, or says why not: a report that could not be written fails the run
// (DESIGN.md section 5), so every error on the way (open, a short or failed write, close) counts.
#pragma once

#include <filesystem>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

// Writes `text` to `path` (mode 0644 before umask), replacing what was there: through
// "<path>.tmp" renamed into place, so `path` ends up holding all of `text` or, on an error, is
// left as it was (a new file is not created). The error reads "<path>: <strerror> (<errno name>)".
Status WriteTextFile(const std::filesystem::path& path, const std::string& text);

}  // namespace iofleet::controller
