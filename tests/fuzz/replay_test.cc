// Every libFuzzer harness of tests/fuzz run on its seeds and on each input a fuzzer ever found
// (tests/fuzz/regressions/<target>/), in the normal suite: a finding, once fixed, stays fixed, and
// under the asan preset the replay is checked by ASan+UBSan too. A harness aborts on a broken
// property, which ends this binary: the input's path is printed before it runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"

extern "C" int Fuzz_units(const uint8_t* data, size_t size);
extern "C" int Fuzz_yaml_loader(const uint8_t* data, size_t size);
extern "C" int Fuzz_fio_import(const uint8_t* data, size_t size);
extern "C" int Fuzz_agent_session(const uint8_t* data, size_t size);
extern "C" int Fuzz_request_target(const uint8_t* data, size_t size);
extern "C" int Fuzz_report_json(const uint8_t* data, size_t size);

namespace iofleet {
namespace {

namespace fs = std::filesystem;
using Harness = int (*)(const uint8_t*, size_t);

// Replays tests/fuzz/{corpus,regressions}/<name>/*; returns how many inputs ran.
int Replay(const std::string& name, Harness harness) {
  int ran = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    fs::path dir = fs::path(IOFLEET_SOURCE_DIR) / "tests/fuzz" / kind / name;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> inputs;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) inputs.push_back(entry.path());
    }
    std::sort(inputs.begin(), inputs.end());
    for (const auto& input : inputs) {
      std::fprintf(stderr, "replay: tests/fuzz/%s/%s/%s\n", kind, name.c_str(), input.filename().c_str());
      std::string bytes = testing::ReadAll(input);
      harness(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++ran;
    }
  }
  return ran;
}

TEST(FuzzReplay, Units) { EXPECT_GT(Replay("units", Fuzz_units), 0); }
TEST(FuzzReplay, YamlLoader) { EXPECT_GT(Replay("yaml_loader", Fuzz_yaml_loader), 0); }
TEST(FuzzReplay, FioImport) { EXPECT_GT(Replay("fio_import", Fuzz_fio_import), 0); }
TEST(FuzzReplay, AgentSession) { EXPECT_GT(Replay("agent_session", Fuzz_agent_session), 0); }
TEST(FuzzReplay, RequestTarget) { EXPECT_GT(Replay("request_target", Fuzz_request_target), 0); }
TEST(FuzzReplay, ReportJson) { EXPECT_GT(Replay("report_json", Fuzz_report_json), 0); }

}  // namespace
}  // namespace iofleet
