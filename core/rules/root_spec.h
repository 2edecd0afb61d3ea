// "[NAME=]DIR", as --root and --local-root take it.
#pragma once

#include <string>

namespace iofleet::rules {

struct RootSpec {
  std::string name;  // empty when not named
  std::string dir;
};

// A '=' before the first '/' separates the name: "scratch=/data" is named, "/a=b" is not.
inline RootSpec ParseRootSpec(const std::string& spec) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || spec.find('/') < eq) return {"", spec};
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

}  // namespace iofleet::rules
