// fio's offset and offset_increment as an io step's `offset` and `offset_increment`, and
// number_ios as its io_size (the options that say where a job's I/O lies and how much). Job j's
// range begins at offset + j x offset_increment. Without filesize fio's range is `size` long from
// there (its file holding it), as iofleet's; with a filesize it runs from there to the file's
// end, so the range is filesize - offset, and with offset_increment too each job's would be of
// another length (refused). Placed once every option is read. Part of the importer
// (fio_importer.h).
#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_values.h"
#include "core/base/units.h"

namespace iofleet::controller::fio_detail {

std::vector<Importer::OptionRow> Importer::OffsetOptionRows() {
  return {
      {{{"offset", &Importer::OffsetOption}, {"fileoffset", &Importer::OffsetOption}},
       "`offset` (`fileoffset`)",
       "`offset`: each job's range begins there (a multiple of the block size); beside `filesize` the range is "
       "`filesize` - `offset`, as fio's runs to the file's end. A percentage is refused"},
      {{{"offset_increment", &Importer::OffsetIncrement}},
       "`offset_increment`",
       "`offset_increment`: job N's range begins N x this further on (fio's job number within `numjobs`); beside "
       "`filesize` refused (fio's ranges would each be another length)"},
      {{{"number_ios", &Importer::NumberIos}},
       "`number_ios`",
       "`io_size` = N x the block size x `loops` with `loops: 1`, where N x the block size is less than the job's size "
       "(or `io_size`): fio stops a job after N x `loops` I/Os, its passes whole until the last, but never runs it "
       "longer; in a time-based job, or with several block sizes, refused"},
  };
}

void Importer::NumberIos(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (!IsDigits(o.value) || o.value.size() > 18) {
    Error(ValueAt(o), "\"" + o.value + "\" is not a whole number of I/Os");
    return;
  }
  l.number_ios = Setting<uint64_t>{std::stoull(o.value), KeyAt(o)};
}

// After the sizes and offsets: the job's bytes are known. fio's limit is number_ios x loops I/Os
// over the whole job, as its bytes' is size x loops, and its passes run whole until the limit
// cuts the last: io_size = number_ios x bs x loops with loops 1 does the same (an io_size past
// the range goes around it again, a random job in a new order each time).
void Importer::PlaceNumberIos(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& own = jobs[i].level;
    const auto& count = Effective(own.number_ios, defaults.number_ios);
    if (!count || count->value == 0) continue;
    v1::IoSpec& io = *out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
    const v1::IoSpec& d = out_.workload.defaults();
    const std::string job = " (job " + step_labels_[i] + ")";
    const auto& tb = Effective(own.time_based, defaults.time_based);
    if (tb && tb->value) {
      Unsupported(count->at, "in a time-based job" + job + ": fio ends it after that many I/Os, before its runtime; iofleet's "
                             "time-based steps run to their runtime");
      continue;
    }
    if (io.block_size_split_size() > 0 || (!io.has_block_size() && d.block_size_split_size() > 0)) {
      Unsupported(count->at, "with several block sizes" + job + ": the bytes that many I/Os move are not known before they run");
      continue;
    }
    const uint64_t block = io.has_block_size() ? io.block_size() : d.has_block_size() ? d.block_size() : 4096;  // fio's bs
    const uint64_t file = io.has_file_size() ? io.file_size() : d.file_size();
    const uint64_t pass = io.has_io_size() ? io.io_size() : d.has_io_size() ? d.io_size() : file;
    const uint64_t loops = io.has_loops() ? io.loops() : d.has_loops() ? d.loops() : 1;
    const unsigned __int128 asked = static_cast<unsigned __int128>(count->value) * block;
    if (asked >= pass) continue;  // the job ends by its size first, as fio's would
    const unsigned __int128 total = asked * loops;  // below pass x loops: within 2^96
    if (total > UINT64_MAX) {
      Error(count->at, "x the block size x loops is beyond 2^64 bytes" + job);
      continue;
    }
    const std::string path = "steps[" + std::to_string(i) + "].io.";
    io.set_io_size(static_cast<uint64_t>(total));
    origins_[path + "io_size"] = count->at;
    io.set_loops(1);
    origins_[path + "loops"] = count->at;
  }
}

std::optional<uint64_t> Importer::OffsetValue(const Option& o, const Level& l, int field_number) {
  if (!NeedValue(o)) return std::nullopt;
  if (o.value.find('%') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": a percentage of a device or file is not supported: give a size, e.g. 1g");
    return std::nullopt;
  }
  return SizeValue(o, o.value, l.kb_base, IoField(field_number));
}

void Importer::OffsetOption(const Option& o, Level& l) {
  if (auto v = OffsetValue(o, l, v1::IoSpec::kOffsetFieldNumber)) l.offset = Setting<uint64_t>{*v, KeyAt(o)};
}

void Importer::OffsetIncrement(const Option& o, Level& l) {
  if (auto v = OffsetValue(o, l, v1::IoSpec::kOffsetIncrementFieldNumber)) l.offset_increment = Setting<uint64_t>{*v, KeyAt(o)};
}

void Importer::PlaceOffsets(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& own = jobs[i].level;
    const auto& offset = Effective(own.offset, defaults.offset);
    const auto& increment = Effective(own.offset_increment, defaults.offset_increment);
    if ((!offset || offset->value == 0) && (!increment || increment->value == 0)) continue;
    v1::IoSpec& io = *out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
    const std::string path = "steps[" + std::to_string(i) + "].io.";
    if (const auto& filesize = Effective(own.filesize_bytes, defaults.filesize_bytes)) {
      if (increment && increment->value > 0) {
        Unsupported(increment->at, "beside filesize= (job " + step_labels_[i] +
                                       "): fio's ranges run from each job's offset to the file's end, each another length; give "
                                       "size= (each job's range) instead of filesize=");
        continue;
      }
      if (offset->value >= filesize->value) {
        Error(offset->at, FormatSize(offset->value) + " is at or past filesize " + FormatSize(filesize->value) + " (job " +
                              step_labels_[i] + "): the job would have nothing to do");
        continue;
      }
      io.set_file_size(filesize->value - offset->value);
      origins_[path + "file_size"] = offset->at;
    }
    if (offset && offset->value > 0) {
      io.set_offset(offset->value);
      origins_[path + "offset"] = offset->at;
    }
    if (increment && increment->value > 0) {
      io.set_offset_increment(increment->value);
      origins_[path + "offset_increment"] = increment->at;
    }
  }
}

}  // namespace iofleet::controller::fio_detail
