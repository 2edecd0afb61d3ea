// Whether a `--set PATH=VALUE` changes anything a run executes. A default that every step sets for
// itself, or that a sweep sets at every point (`--set jobs=4` beside a swept `total_jobs`), is
// overridden where it would act: the run then does what it did without the --set, under a command
// line that says otherwise. Such a --set gets a warning naming what overrides it.
#pragma once

#include <optional>
#include <string>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

// The warning for `set_text` ("runtime=3s", the --set as given, whose path is `path`), which
// turned `before` into `after`; nullopt when some step runs differently at some sweep point.
std::optional<std::string> UnchangingSetWarning(const v1::Workload& before, const v1::Workload& after, const std::string& path,
                                                const std::string& set_text);

}  // namespace iofleet::controller
