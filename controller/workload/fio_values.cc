#include "controller/workload/fio_values.h"

#include <cctype>
#include <limits>
#include <map>

namespace iofleet::controller {

std::string LowerFio(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// fio's sizes: an integer (or 0x hex) with an optional unit. With kb_base=1024, fio's default,
// k/m/g/t/p (with an optional b) are powers of 2 and the IEC forms ki/kib/mi/... are powers of
// 10, the reverse of the standards, kept by fio for old scripts; kb_base=1000 swaps them back.
// `iec` tells the caller an IEC form was used. "1.5k" is fine when it is a whole number of bytes.
Result<uint64_t> ParseFioSize(const std::string& text, int kb_base, bool& iec) {
  const std::string t = LowerFio(text);
  const Status bad = InvalidArgument("\"" + text + "\" is not a size (fio sizes: 4096, 4k, 64k, 1m, 4g)");
  iec = false;
  if (t.rfind("0x", 0) == 0) {
    std::string hex = t.substr(2);
    if (hex.empty() || hex.size() > 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return bad;
    return std::stoull(hex, nullptr, 16);
  }
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  std::string whole = t.substr(0, i), fraction;
  if (i < t.size() && t[i] == '.') {
    size_t f = ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    fraction = t.substr(f, i - f);
  }
  if (whole.empty() || whole.size() > 19 || fraction.size() > 9) return bad;
  std::string unit = t.substr(i);
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') {
    iec = true;
    unit.pop_back();
  }
  static const std::string kPrefixes = "kmgtp";
  size_t power = 0;
  if (!unit.empty()) {
    if (unit.size() != 1 || kPrefixes.find(unit[0]) == std::string::npos) return bad;
    power = kPrefixes.find(unit[0]) + 1;
  } else if (iec) {
    return bad;  // a bare "i"
  }
  const bool binary = (kb_base == 1024) != iec;
  unsigned __int128 multiplier = 1;
  for (size_t p = 0; p < power; ++p) multiplier *= binary ? 1024 : 1000;
  unsigned __int128 scale = 1;
  for (size_t p = 0; p < fraction.size(); ++p) scale *= 10;
  unsigned __int128 digits = std::stoull(whole) * scale + (fraction.empty() ? 0 : std::stoull(fraction));
  const unsigned __int128 limit = static_cast<unsigned __int128>(std::numeric_limits<uint64_t>::max()) * scale;
  if (digits > limit / multiplier) return InvalidArgument("\"" + text + "\" is too large");
  unsigned __int128 bytes = digits * multiplier;
  if (bytes % scale != 0) return InvalidArgument("\"" + text + "\" is not a whole number of bytes");
  bytes /= scale;
  if (bytes > std::numeric_limits<uint64_t>::max()) return InvalidArgument("\"" + text + "\" is too large");
  return static_cast<uint64_t>(bytes);
}

// fio's times: an integer, in seconds unless a unit says otherwise (us, ms, s, m, h, d; fio
// reads them case-insensitively, so "m" is minutes). Returns nanoseconds.
Result<uint64_t> ParseFioTime(const std::string& text) {
  const std::string t = LowerFio(text);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  static const std::map<std::string, uint64_t> kUnits = {
      {"", 1'000'000'000ull},   {"s", 1'000'000'000ull},  {"sec", 1'000'000'000ull},
      {"ms", 1'000'000ull},     {"msec", 1'000'000ull},   {"us", 1'000ull},
      {"usec", 1'000ull},       {"m", 60'000'000'000ull}, {"min", 60'000'000'000ull},
      {"h", 3'600'000'000'000ull}, {"d", 86'400'000'000'000ull}};
  auto unit = kUnits.find(t.substr(i));
  if (i == 0 || i > 12 || unit == kUnits.end()) {
    return InvalidArgument("\"" + text + "\" is not a time (seconds, or with a unit: 500ms, 30s, 5m, 1h)");
  }
  unsigned __int128 ns = static_cast<unsigned __int128>(std::stoull(t.substr(0, i))) * unit->second;
  if (ns > std::numeric_limits<uint64_t>::max()) return InvalidArgument("\"" + text + "\" is too long");
  return static_cast<uint64_t>(ns);
}

}  // namespace iofleet::controller
