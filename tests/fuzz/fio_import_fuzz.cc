// libFuzzer target: controller/workload/fio_import.h fed arbitrary job files. Bad input must come
// back as errors or warnings, never as a crash, a hang or an exception; with and without
// unsupported options allowed, as both paths differ, and reading only some sections (--fio-section
// skips the others' lines), with every path relative.
#include <cstddef>
#include <cstdint>
#include <string>

#include "controller/workload/fio_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)iofleet::controller::ImportFioJobText(text, "fuzz.fio", false);
  (void)iofleet::controller::ImportFioJobText(text, "fuzz.fio", true);
  iofleet::controller::FioImportOptions some;
  some.allow_unsupported = true;
  some.relative_paths = true;
  some.sections = {"a", "job", "default"};
  (void)iofleet::controller::ImportFioJobText(text, "fuzz.fio", some);
  return 0;
}
