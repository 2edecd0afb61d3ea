// The fio options that size a job's requests: bs, bssplit and bsrange. Part of the importer
// (fio_importer.h); the option table is in fio_options.cc.
#include <sstream>

#include "controller/workload/fio_importer.h"

namespace iofleet::controller::fio_detail {

namespace pb = google::protobuf;

void Importer::BlockSize(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read, write and trim block sizes are not supported: give one size");
    return;
  }
  if (auto size = SizeValue(o, o.value, l.kb_base, IoField(v1::IoSpec::kBlockSizeFieldNumber))) {
    l.io.set_block_size(*size);
    Record(l, {v1::IoSpec::kBlockSizeFieldNumber}, o);
  }
}

// bssplit=4k/60:64k/40. A blank share takes an even part of what the others leave, as in fio.
void Importer::BlockSizeSplit(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read and write splits are not supported: give one split");
    return;
  }
  const pb::FieldDescriptor* size_field = v1::BlockSizeWeight::descriptor()->FindFieldByNumber(v1::BlockSizeWeight::kSizeFieldNumber);
  std::vector<std::pair<uint64_t, std::optional<uint64_t>>> entries;
  uint64_t given = 0;
  size_t blanks = 0;
  std::istringstream parts(o.value);
  std::string part;
  bool ok = true;
  while (std::getline(parts, part, ':')) {
    size_t slash = part.find('/');
    std::string pct = slash == std::string::npos ? "" : part.substr(slash + 1);
    auto size = SizeValue(o, part.substr(0, slash), l.kb_base, size_field);
    if (!size) {
      ok = false;
      continue;
    }
    if (pct.empty()) {
      ++blanks;
      entries.push_back({*size, std::nullopt});
    } else if (!IsDigits(pct) || pct.size() > 3 || std::stoul(pct) > 100) {
      Error(ValueAt(o), "\"" + part + "\": the share after / is a percentage, 0 to 100");
      ok = false;
    } else {
      given += std::stoul(pct);
      entries.push_back({*size, std::stoul(pct)});
    }
  }
  if (!ok) return;
  if (given > 100 || (blanks == 0 && given != 100) || (blanks > 0 && given == 100)) {
    Error(ValueAt(o), "\"" + o.value + "\": the percentages add up to " + std::to_string(given) + ", not 100");
    return;
  }
  const uint64_t blank_share = blanks ? (100 - given) / blanks : 0;
  l.io.clear_block_size_split();
  for (const auto& [size, pct] : entries) {
    uint64_t weight = pct ? *pct : blank_share;
    if (weight == 0) continue;  // never chosen
    v1::BlockSizeWeight* w = l.io.add_block_size_split();
    w->set_size(size);
    w->set_weight(static_cast<uint32_t>(weight));
  }
  Record(l, {v1::IoSpec::kBlockSizeSplitFieldNumber}, o);
}

// bsrange=MIN-MAX: fio draws MIN + MAX * u and rounds it down to a multiple of MIN, so each
// multiple of MIN up to MAX comes up equally often.
void Importer::BlockSizeRange(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read and write ranges are not supported: give one range");
    return;
  }
  const size_t dash = o.value.find('-');
  if (dash == std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\" is not a range MIN-MAX (e.g. 4k-16k)");
    return;
  }
  const pb::FieldDescriptor* field = IoField(v1::IoSpec::kBlockSizeFieldNumber);
  auto low = SizeValue(o, o.value.substr(0, dash), l.kb_base, field);
  auto high = SizeValue(o, o.value.substr(dash + 1), l.kb_base, field);
  if (!low || !high) return;
  if (*high < *low) {
    Error(ValueAt(o), "\"" + o.value + "\": the largest size is below the smallest");
    return;
  }
  if (*low == *high) {
    l.io.set_block_size(*low);
    Record(l, {v1::IoSpec::kBlockSizeFieldNumber}, o);
    return;
  }
  if (*high % *low != 0 || *high / *low > 16) {
    Unsupported(ValueAt(o), "\"" + o.value + "\": a range is taken as the multiples of its smallest size, up to 16 of them, "
                            "and the largest must be one; write bssplit= for other sizes");
    return;
  }
  l.io.clear_block_size_split();
  for (uint64_t size = *low; size <= *high; size += *low) {
    v1::BlockSizeWeight* w = l.io.add_block_size_split();
    w->set_size(size);
    w->set_weight(1);
  }
  Record(l, {v1::IoSpec::kBlockSizeSplitFieldNumber}, o);
}

}  // namespace iofleet::controller::fio_detail
