#pragma once

#include <string>
#include <vector>

#include "core/rules/validate.h"

// Finding a validation error in a list of them, and printing the list when a test fails.

namespace iofleet::rules {

inline bool HasViolation(const std::vector<Violation>& vs, const std::string& path, const std::string& text) {
  for (const auto& v : vs) {
    if (v.path == path && v.message.find(text) != std::string::npos) return true;
  }
  return false;
}

inline std::string Describe(const std::vector<Violation>& vs) {
  std::string s;
  for (const auto& v : vs) s += v.path + ": " + v.message + "\n";
  return s;
}

}  // namespace iofleet::rules
