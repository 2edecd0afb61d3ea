// fio options about a job's files that need no field of their own: allow_file_create, and
// nrfiles=1 with its file_service_type and openfiles. Part of the importer (fio_importer.h); the
// option table is in fio_options.cc.
#include "controller/workload/fio_importer.h"

namespace iofleet::controller::fio_detail {

// These options' rows of the option table (fio_options.cc puts them after thread's).
std::vector<Importer::OptionRow> Importer::FileOptionRows() {
  return {
      {{{"allow_file_create", &Importer::AllowFileCreate}},
       "`allow_file_create`",
       "accepted, no effect: iofleet lays out each run's files in a new run directory and never opens a device, what "
       "`allow_file_create=0` guards fio against (a warning: fio would need the file to exist)"},
      {{{"nrfiles", &Importer::FilesPerJob}, {"file_service_type", &Importer::OneFileNoEffect}, {"openfiles", &Importer::OneFileNoEffect}},
       "`nrfiles=1`, `file_service_type`, `openfiles`",
       "accepted, no effect: one file per job is fio's default and iofleet's; with one file, which file is next and how "
       "many are open change nothing. `nrfiles` above 1 is refused"},
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

// fio's nrfiles is how many files a job spreads its size over (1 by default); an iofleet job has
// one file, so only 1 means the same.
void Importer::FilesPerJob(const Option& o, Level&) {
  if (!NeedValue(o)) return;
  if (o.value != "1") Unsupported(KeyAt(o), "is not supported above 1: several files per job (an iofleet job has one file)");
}

// Which of a job's files is next (file_service_type) and how many it keeps open (openfiles): with
// the one file a job has, neither changes anything.
void Importer::OneFileNoEffect(const Option& o, Level&) { NeedValue(o); }

}  // namespace iofleet::controller::fio_detail
