// `iofleet history`'s options as the command line gives them: what --last refuses.
#include "controller/cli/history_cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace iofleet::controller {
namespace {

// The message CLI11 would print and main turn into exit 2, or "" when the line parses.
std::string ParseError(std::vector<std::string> args) {
  CLI::App app("iofleet");
  auto commands = AddHistoryCommands(app);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    EXPECT_NE(e.get_exit_code(), 0) << e.what();
    return e.what();
  }
  return "";
}

TEST(HistoryCli, LastRefusesZeroNegativesAndGarbageNamingTheOption) {
  // CLI11 read "-1" into a size_t as 2^64 - 1 (every run) and "0" meant no limit: both silent.
  for (const std::string bad : {"0", "-1", "-5", "abc", "1.5", "0x10", "", "99999999999999999999999"}) {
    const std::string error = ParseError({"history", "--last", bad});
    ASSERT_FALSE(error.empty()) << "--last " << bad << " was accepted";
    EXPECT_NE(error.find("--last"), std::string::npos) << error;
    EXPECT_NE(error.find("1 or more"), std::string::npos) << error;
  }
}

TEST(HistoryCli, LastTakesACountOfRuns) {
  for (const std::string good : {"1", "20", "1000000"}) EXPECT_EQ(ParseError({"history", "--last", good}), "") << good;
  EXPECT_EQ(ParseError({"history"}), "");
}

}  // namespace
}  // namespace iofleet::controller
