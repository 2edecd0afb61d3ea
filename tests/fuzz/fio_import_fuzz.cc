// libFuzzer target: controller/workload/fio_import.h fed arbitrary job files. Bad input must come
// back as errors or warnings, never as a crash, a hang or an exception; with and without
// unsupported options allowed, as both paths differ.
#include <cstddef>
#include <cstdint>
#include <string>

#include "controller/workload/fio_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)iofleet::controller::ImportFioJobText(text, "fuzz.fio", false);
  (void)iofleet::controller::ImportFioJobText(text, "fuzz.fio", true);
  return 0;
}
