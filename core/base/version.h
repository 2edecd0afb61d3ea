// What this build is: the version (agents and controllers of the same major.minor work
// together) and the git revision it was built from (shown, never compared).
#pragma once

#include <string>

namespace iofleet {

inline constexpr const char* kVersion = IOFLEET_VERSION;

// `git describe --always --dirty` of the checkout at build time; "unknown" outside git.
const char* Revision();

// "0.1.0 (a1b2c3d4e5f6)"
std::string VersionText();

// Whether a peer of `version` works with this build: the same major.minor.
bool CompatibleVersion(const std::string& version);

}  // namespace iofleet
