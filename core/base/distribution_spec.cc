#include "core/base/distribution_spec.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace iofleet {
namespace {

constexpr size_t kOffsetMaxZones = 256;      // fio's limit
constexpr size_t kOffsetMaxSequence = 64;    // fio's limit
constexpr double kOffsetFioZipfTheta = 1.1;  // fio's values for a bare "zipf" and "pareto"
constexpr double kOffsetFioParetoH = 0.2;

std::string OffsetNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", v);
  return text;
}

std::string_view OffsetTrim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

template <typename T>
bool OffsetParseAll(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// "60/10:30/20:..." -> zones; the sums are checked by ValidateDistribution.
Status ParseDistributionZones(std::string_view list, std::vector<Zone>& zones) {
  std::vector<size_t> blanks;  // zones written ACCESS/ without a range
  if (list.empty()) return InvalidArgument("zoned needs its zones: zoned:ACCESS/RANGE:... (e.g. zoned:60/10:40/90)");
  size_t index = 0;
  while (true) {
    ++index;
    const size_t colon = list.find(':');
    const std::string_view item = list.substr(0, colon);
    const size_t slash = item.find('/');
    Zone zone;
    const bool blank_range = slash != std::string_view::npos && slash + 1 == item.size();
    if (slash == std::string_view::npos || !OffsetParseAll(item.substr(0, slash), zone.access_pct) ||
        (!blank_range && !OffsetParseAll(item.substr(slash + 1), zone.range_pct))) {
      return InvalidArgument("zone " + std::to_string(index) + " (\"" + std::string(item) +
                             "\") is not ACCESS/RANGE in whole percent (e.g. 60/10)");
    }
    if (blank_range) blanks.push_back(zones.size());
    zones.push_back(zone);
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  // fio's rule (its zone_split_ddir): a zone written ACCESS/ with no range gets an even part of
  // the range the others leave. fio's integer division may leave a percent or two uncovered;
  // here the last blank zone takes them, so that the zones still cover the whole range.
  uint32_t given = 0;
  for (const Zone& z : zones) given += z.range_pct;
  if (!blanks.empty() && given < 100) {
    const uint32_t rest = 100 - given;
    const uint32_t share = rest / static_cast<uint32_t>(blanks.size());
    for (size_t b : blanks) zones[b].range_pct = share;
    zones[blanks.back()].range_pct += rest - share * static_cast<uint32_t>(blanks.size());
  }
  return Status::Ok();
}

Status ParseDistributionValue(std::string_view name, std::string_view value, DistributionSpec& spec) {
  if (value.find(':') != std::string_view::npos) {
    return InvalidArgument("a second value (fio's distribution centre, as in zipf:1.2:0.25) is not supported");
  }
  if (!OffsetParseAll(value, spec.param)) {
    return InvalidArgument("\"" + std::string(value) + "\" is not a number (" + std::string(name) + ":VALUE)");
  }
  return Status::Ok();
}

Status ParseDistributionInto(std::string_view text, DistributionSpec& spec) {
  const size_t colon = text.find(':');
  const bool has_value = colon != std::string_view::npos;
  const std::string_view name = text.substr(0, colon);
  const std::string_view value = has_value ? text.substr(colon + 1) : std::string_view();
  using Kind = DistributionSpec::Kind;
  if (name == "random" || name == "uniform") {
    if (has_value) return InvalidArgument(std::string(name) + " takes no value");
    spec.kind = Kind::kUniform;
    return Status::Ok();
  }
  if (name == "zipf" || name == "pareto") {
    spec.kind = name == "zipf" ? Kind::kZipf : Kind::kPareto;
    spec.param = name == "zipf" ? kOffsetFioZipfTheta : kOffsetFioParetoH;
    return has_value ? ParseDistributionValue(name, value, spec) : Status::Ok();
  }
  if (name == "normal") {
    spec.kind = Kind::kNormal;
    if (!has_value) {
      return InvalidArgument("normal needs its sigma: normal:SIGMA, the standard deviation in percent of the range");
    }
    return ParseDistributionValue(name, value, spec);
  }
  if (name == "zoned") {
    spec.kind = Kind::kZoned;
    return ParseDistributionZones(value, spec.zones);
  }
  if (name == "zoned_abs") {
    return InvalidArgument("zoned_abs (zones in bytes) is not supported: give zones in percent, zoned:ACCESS/RANGE:...");
  }
  if (name == "sequence") {
    spec.kind = Kind::kSequence;
    std::string_view rest = value;
    if (rest.empty()) return InvalidArgument("sequence needs its slots: sequence:2,0,1");
    while (spec.sequence.size() <= kOffsetMaxSequence) {  // one past the limit is enough to refuse
      const size_t comma = rest.find(',');
      uint64_t slot = 0;
      if (!OffsetParseAll(OffsetTrim(rest.substr(0, comma)), slot)) {
        return InvalidArgument("sequence slot \"" + std::string(rest.substr(0, comma)) + "\" is not a whole number");
      }
      spec.sequence.push_back(slot);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    return Status::Ok();
  }
  return InvalidArgument("not a distribution: random, zipf:THETA, pareto:H, normal:SIGMA, zoned:ACCESS/RANGE:... or sequence:SLOT,...");
}

Status ValidateDistributionZones(const std::vector<Zone>& zones) {
  if (zones.empty()) return InvalidArgument("zoned needs at least one zone");
  if (zones.size() > kOffsetMaxZones) {
    return InvalidArgument("zoned has " + std::to_string(zones.size()) + " zones; fio allows at most 256");
  }
  uint64_t access = 0, range = 0;
  for (size_t i = 0; i < zones.size(); ++i) {
    const std::string which = "zone " + std::to_string(i + 1) + " ";
    if (zones[i].access_pct > 100) {
      return InvalidArgument(which + "takes " + std::to_string(zones[i].access_pct) + "% of the I/Os, more than 100%");
    }
    if (zones[i].range_pct == 0) return InvalidArgument(which + "spans 0% of the range: a zone spans at least 1%");
    if (zones[i].range_pct > 100) {
      return InvalidArgument(which + "spans " + std::to_string(zones[i].range_pct) + "% of the range, more than 100%");
    }
    access += zones[i].access_pct;
    range += zones[i].range_pct;
  }
  if (access != 100) return InvalidArgument("zoned access percentages add up to " + std::to_string(access) + ", not 100");
  if (range != 100) return InvalidArgument("zoned range percentages add up to " + std::to_string(range) + ", not 100");
  return Status::Ok();
}

}  // namespace

Result<DistributionSpec> ParseDistribution(std::string_view text) {
  const std::string_view trimmed = OffsetTrim(text);
  DistributionSpec spec;
  Status st = ParseDistributionInto(trimmed, spec);
  if (st.ok()) st = ValidateDistribution(spec);
  if (!st.ok()) return InvalidArgument("\"" + std::string(trimmed) + "\": " + st.message());
  return spec;
}

Status ValidateDistribution(const DistributionSpec& spec) {
  const double v = spec.param;
  switch (spec.kind) {
    case DistributionSpec::Kind::kUniform:
      return Status::Ok();
    case DistributionSpec::Kind::kZipf:
      if (!(v > 0) || !std::isfinite(v)) return InvalidArgument("zipf theta must be more than 0 (got " + OffsetNumber(v) + ")");
      if (v == 1) return InvalidArgument("zipf theta must not be 1 (fio refuses it: its generator divides by 1 - theta)");
      return Status::Ok();
    case DistributionSpec::Kind::kPareto:
      if (!(v > 0 && v < 1)) return InvalidArgument("pareto h must be more than 0 and less than 1 (got " + OffsetNumber(v) + ")");
      return Status::Ok();
    case DistributionSpec::Kind::kNormal:
      if (!(v > 0 && v < 100)) {
        return InvalidArgument("normal sigma must be more than 0 and less than 100 (percent of the range; got " +
                               OffsetNumber(v) + ")");
      }
      return Status::Ok();
    case DistributionSpec::Kind::kZoned:
      return ValidateDistributionZones(spec.zones);
    case DistributionSpec::Kind::kSequence:
      if (spec.sequence.empty() || spec.sequence.size() > kOffsetMaxSequence) {
        return InvalidArgument("a sequence has 1 to 64 slots (fio's limit), not " + std::to_string(spec.sequence.size()));
      }
      for (uint64_t slot : spec.sequence) {
        if (slot >= (uint64_t{1} << 62)) return InvalidArgument("sequence slot " + std::to_string(slot) + " is beyond any range");
      }
      return Status::Ok();
  }
  return InvalidArgument("unknown distribution kind");
}

}  // namespace iofleet
