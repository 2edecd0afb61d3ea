#include "core/base/version.h"

#include "iofleet/revision.h"

namespace iofleet {
namespace {

// "0.1" of "0.1.7"; the whole text when it has no second dot.
std::string MajorMinor(const std::string& version) {
  const size_t first = version.find('.');
  if (first == std::string::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

}  // namespace

const char* Revision() { return IOFLEET_REVISION; }

std::string VersionText() { return std::string(kVersion) + " (" + Revision() + ")"; }

bool CompatibleVersion(const std::string& version) { return MajorMinor(version) == MajorMinor(kVersion); }

}  // namespace iofleet
