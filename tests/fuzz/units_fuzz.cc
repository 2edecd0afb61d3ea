// libFuzzer target: core/base/units.h. Parsing never crashes, and whatever parses prints back to a
// spelling that parses to the same value (the report and the effective YAML rely on that).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "core/base/units.h"

namespace {

void Check(bool ok, const char* what, std::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "units_fuzz: %s for input \"%.*s\"\n", what, static_cast<int>(input.size()), input.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto bytes = iofleet::ParseSize(text); bytes.ok()) {
    auto again = iofleet::ParseSize(iofleet::FormatSize(*bytes));
    Check(again.ok() && *again == *bytes, "FormatSize(ParseSize(x)) does not parse back to the same size", text);
  }
  if (auto ns = iofleet::ParseDuration(text); ns.ok()) {
    auto again = iofleet::ParseDuration(iofleet::FormatDuration(*ns));
    Check(again.ok() && *again == *ns, "FormatDuration(ParseDuration(x)) does not parse back to the same duration", text);
  }

  // Any 64-bit value prints to a spelling that parses back exactly.
  if (size >= sizeof(uint64_t)) {
    uint64_t value;
    std::memcpy(&value, data, sizeof value);
    auto size_back = iofleet::ParseSize(iofleet::FormatSize(value));
    Check(size_back.ok() && *size_back == value, "ParseSize(FormatSize(v)) != v", text.substr(0, sizeof value));
    auto ns_back = iofleet::ParseDuration(iofleet::FormatDuration(value));
    Check(ns_back.ok() && *ns_back == value, "ParseDuration(FormatDuration(v)) != v", text.substr(0, sizeof value));
  }
  return 0;
}
