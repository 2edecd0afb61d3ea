// fio options about a job's files that need no field of their own: allow_file_create. Part of
// the importer (fio_importer.h); the option table is in fio_options.cc.
#include "controller/workload/fio_importer.h"

namespace iofleet::controller::fio_detail {

// These options' rows of the option table (fio_options.cc puts them after thread's).
std::vector<Importer::OptionRow> Importer::FileOptionRows() {
  return {
      {{{"allow_file_create", &Importer::AllowFileCreate}},
       "`allow_file_create`",
       "accepted, no effect: iofleet lays out each run's files in a new run directory and never opens a device, what "
       "`allow_file_create=0` guards fio against (a warning: fio would need the file to exist)"},
  };
}

// fio's allow_file_create=0 refuses to create a file that is not there (it keeps a job meant for
// /dev/nvme0n1 from writing a new file of that name). iofleet always creates the files of each
// run in a new run directory and never opens a device: the same I/O on files it lays out itself.
void Importer::AllowFileCreate(const Option& o, Level&) {
  const std::optional<bool> allow = Bool(o);
  if (allow && !*allow) {
    Warn(KeyAt(o), "0: iofleet lays out each run's files in a new run directory and never opens a device (what "
                   "allow_file_create=0 guards fio against); where fio would use a file that exists, iofleet writes its own");
  }
}

}  // namespace iofleet::controller::fio_detail
