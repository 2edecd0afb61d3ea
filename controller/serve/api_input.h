// What `iofleet serve`'s API reads from a request besides its path, checked before anything acts
// on it (all of it comes from the wire): a POST's JSON body and the ?last=N count.
#pragma once

#include <cstddef>
#include <string>

#include "controller/serve/http_message.h"
#include "core/base/status.h"

namespace iofleet::controller {

// ?last=N when given: 1..kMaxLast. Anything else is an error naming the parameter.
inline constexpr size_t kDefaultLast = 100;
inline constexpr size_t kMaxLast = 1000;
Result<size_t> LastParameter(const HttpRequest& request);

// A POST names its suite (in the path) and nothing else: no body, {}, or {"suite": SUITE}
// (`suite` empty: no field at all). Nothing a POST carries can change what runs (no `set`, no
// workload). Every refusal is kInvalidArgument naming the field where there is one.
Status CheckPostBody(const HttpRequest& request, const std::string& suite);

}  // namespace iofleet::controller
