// fio options the import knows and refuses, each with why: what they ask of fio has no iofleet
// counterpart yet, or cannot mean the same here. Part of the importer (fio_importer.h); an option
// in neither this table nor the option table (fio_options.cc) is refused as unknown.
#include "controller/workload/fio_importer.h"

namespace iofleet::controller::fio_detail {

const char* Importer::RefusalReason(const std::string& option) {
  static const std::map<std::string, const char*> kReasons = {
      {"zonemode", "zoned block devices and fio's zones are not supported: iofleet tests files in a file system"},
      {"zonesize", "zoned block devices and fio's zones are not supported: iofleet tests files in a file system"},
      {"zoneskip", "zoned block devices and fio's zones are not supported: iofleet tests files in a file system"},
      {"prio", "I/O priorities are not set by iofleet's jobs"},
      {"prioclass", "I/O priorities are not set by iofleet's jobs"},
      {"cmdprio", "I/O priorities are not set by iofleet's jobs"},
      {"cmdprio_class", "I/O priorities are not set by iofleet's jobs"},
      {"cmdprio_percentage", "I/O priorities are not set by iofleet's jobs"},
      {"cmdprio_bssplit", "I/O priorities are not set by iofleet's jobs"},
      {"verify_pattern", "iofleet verifies with its own per-block header and CRC-32, not a pattern"},
      {"do_verify", "iofleet verifies in read steps: add a read job with stonewall"},
      {"fill_device", "writing until the device is full is not supported: give a size"},
      {"blockalign", "offsets are multiples of the block size (of the largest size of a split)"},
      {"unlink_each_loop", "unlink deletes a step's files once, when it ends"},
      {"create_on_open", "iofleet lays out and opens a step's files in its untimed setup"},
  };
  auto it = kReasons.find(option);
  return it == kReasons.end() ? nullptr : it->second;
}

}  // namespace iofleet::controller::fio_detail
