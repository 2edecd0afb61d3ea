// Reading what a run wrote under --out, for integration tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace iofleet::testing {

inline void WriteText(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

// The only run directory under `out`.
inline std::filesystem::path OnlyRunDir(const std::filesystem::path& out) {
  std::vector<std::filesystem::path> runs;
  for (const auto& e : std::filesystem::directory_iterator(out)) {
    if (e.is_directory()) runs.push_back(e.path());
  }
  EXPECT_EQ(runs.size(), 1u) << "run directories under " << out;
  return runs.empty() ? std::filesystem::path() : runs[0];
}

inline nlohmann::json ReadJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// report.json of the only run under `out`.
inline nlohmann::json ReadReport(const std::filesystem::path& out) { return ReadJson(OnlyRunDir(out) / "report.json"); }

}  // namespace iofleet::testing
