#pragma once

#include <string>

// What the report writers share: the units their figures are printed in, and CSV quoting.

namespace iofleet::controller {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kMB = 1e6;

// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a newline.
inline std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace iofleet::controller
