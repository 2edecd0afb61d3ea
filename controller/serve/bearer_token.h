// Checking the bearer token of `iofleet serve`'s requests. Which requests need it is the routes'
// policy, not this file's.
#pragma once

#include <string>

namespace iofleet::controller {

// True when `authorization` (an Authorization header) is "Bearer <token>" (the scheme in any
// case) with exactly `token`. The comparison takes the same time wherever the strings differ,
// and whatever their lengths (their SHA-256 digests are compared with CRYPTO_memcmp). False for
// an empty `token`: a server whose token file is empty admits nobody.
bool BearerTokenMatches(const std::string& authorization, const std::string& token);

}  // namespace iofleet::controller
