#include "core/base/units.h"

#include <array>
#include <cctype>
#include <limits>

namespace iofleet {
namespace {

struct UnitFactor {
  std::string_view name;
  uint64_t factor;
};

constexpr std::array<UnitFactor, 10> kSizeUnits{{
    {"B", 1},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"KB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"", 1},
}};

constexpr std::array<UnitFactor, 6> kDurationUnits{{
    {"ns", 1},
    {"us", 1'000},
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
}};

struct Number {
  uint64_t whole = 0;
  uint64_t frac = 0;        // digits after the point, as an integer
  uint64_t frac_scale = 1;  // 10^(number of fraction digits)
  std::string_view suffix;
};

// Digits, an optional fraction, then a suffix. Fails on signs, empty digits and overflow.
bool SplitNumber(std::string_view text, Number& out) {
  size_t i = 0;
  auto digits = [&](uint64_t& value, uint64_t* scale) {
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      uint64_t d = static_cast<uint64_t>(text[i] - '0');
      if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
      value = value * 10 + d;
      if (scale) {
        if (*scale > std::numeric_limits<uint64_t>::max() / 10) return false;
        *scale *= 10;
      }
      ++i;
    }
    return i > start;
  };
  if (!digits(out.whole, nullptr)) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits(out.frac, &out.frac_scale)) return false;
  }
  out.suffix = text.substr(i);
  return true;
}

// whole*factor + frac*factor/scale, exactly, or an error when it is not a whole number.
bool Scale(const Number& n, uint64_t factor, uint64_t& out) {
  if (n.whole != 0 && factor > std::numeric_limits<uint64_t>::max() / n.whole) return false;
  uint64_t value = n.whole * factor;
  if (n.frac != 0) {
    unsigned __int128 f = static_cast<unsigned __int128>(n.frac) * factor;
    if (f % n.frac_scale != 0) return false;
    unsigned __int128 total = value + f / n.frac_scale;
    if (total > std::numeric_limits<uint64_t>::max()) return false;
    value = static_cast<uint64_t>(total);
  }
  out = value;
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// What a user most likely meant by a suffix in the wrong case ("kb", "mib", "k").
std::string_view SuggestSizeUnit(std::string_view suffix) {
  std::string s = Lower(suffix);
  if (s == "k" || s == "kb" || s == "kib") return "KiB";
  if (s == "m" || s == "mb" || s == "mib") return "MiB";
  if (s == "g" || s == "gb" || s == "gib") return "GiB";
  if (s == "t" || s == "tb" || s == "tib") return "TiB";
  if (s == "b" || s == "bytes") return "B";
  return {};
}

}  // namespace

Result<uint64_t> ParseSize(std::string_view text) {
  Number n;
  std::string quoted = "\"" + std::string(text) + "\"";
  if (!SplitNumber(text, n)) {
    return InvalidArgument(quoted + " is not a size (write e.g. 4KiB, 1MiB, 4GB)");
  }
  for (const auto& unit : kSizeUnits) {
    if (unit.name != n.suffix) continue;
    uint64_t value = 0;
    if (!Scale(n, unit.factor, value)) {
      return InvalidArgument(quoted + " is not a whole number of bytes, or too large");
    }
    return value;
  }
  std::string message = quoted + " is not a size";
  std::string_view hint = SuggestSizeUnit(n.suffix);
  if (!hint.empty()) {
    std::string number(text.substr(0, text.size() - n.suffix.size()));
    message += " (did you mean " + number + std::string(hint) + "?)";
  } else {
    message += " (units: B KiB MiB GiB TiB, or KB MB GB TB for powers of 10)";
  }
  return InvalidArgument(message);
}

Result<uint64_t> ParseDuration(std::string_view text) {
  Number n;
  std::string quoted = "\"" + std::string(text) + "\"";
  if (!SplitNumber(text, n)) {
    return InvalidArgument(quoted + " is not a duration (write e.g. 30s, 100ms, 5m)");
  }
  if (n.suffix.empty()) {
    if (n.whole == 0 && n.frac == 0) return uint64_t{0};
    return InvalidArgument(quoted + " needs a unit (did you mean " + std::string(text) + "s?)");
  }
  for (const auto& unit : kDurationUnits) {
    if (unit.name != n.suffix) continue;
    uint64_t value = 0;
    if (!Scale(n, unit.factor, value)) {
      return InvalidArgument(quoted + " is not a whole number of nanoseconds, or too large");
    }
    return value;
  }
  std::string s = Lower(n.suffix);
  std::string number(text.substr(0, text.size() - n.suffix.size()));
  std::string_view hint;
  if (s == "sec" || s == "secs" || s == "second" || s == "seconds" || s == "s") hint = "s";
  if (s == "min" || s == "mins" || s == "minute" || s == "minutes") hint = "m";
  if (s == "msec" || s == "millis") hint = "ms";
  if (s == "usec" || s == "µs") hint = "us";
  std::string message = quoted + " is not a duration";
  message += hint.empty() ? std::string(" (units: ns us ms s m h)")
                          : " (did you mean " + number + std::string(hint) + "?)";
  return InvalidArgument(message);
}

std::string FormatSize(uint64_t bytes) {
  if (bytes == 0) return "0B";
  // Binary units first: they are what block and file sizes are usually written in.
  static constexpr std::array<UnitFactor, 8> kPreferred{{
      {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10},
      {"TB", 1'000'000'000'000}, {"GB", 1'000'000'000}, {"MB", 1'000'000}, {"KB", 1'000}}};
  for (const auto& unit : kPreferred) {
    if (bytes % unit.factor == 0) return std::to_string(bytes / unit.factor) + std::string(unit.name);
  }
  return std::to_string(bytes) + "B";
}

std::string FormatDuration(uint64_t ns) {
  if (ns == 0) return "0s";
  for (size_t i = kDurationUnits.size(); i-- > 0;) {
    const auto& unit = kDurationUnits[i];
    if (ns % unit.factor == 0) return std::to_string(ns / unit.factor) + std::string(unit.name);
  }
  return std::to_string(ns) + "ns";
}

}  // namespace iofleet
