// libFuzzer target: controller/workload/yaml_loader.h fed arbitrary YAML text. Bad input must come
// back as errors, never as a crash, a hang or an exception; a workload that loads must also
// survive per-agent overrides and a `--set`.
#include <cstddef>
#include <cstdint>
#include <string>

#include "controller/workload/yaml_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  iofleet::controller::LoadedWorkload loaded = iofleet::controller::LoadWorkloadText(text, "fuzz.yaml");
  if (!loaded.errors.empty()) return 0;
  (void)iofleet::controller::ForAgent(loaded.workload, "node1", "127.0.0.1:7070");
  // The same text as the value of a --set: the loader's checks again, on a loaded workload.
  (void)iofleet::controller::SetWorkloadPath(loaded.workload, "defaults.block_size", text, "--set");
  return 0;
}
