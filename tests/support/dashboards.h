// Reading dashboards/*.json for tests: the dashboards, every PromQL query in them with where it
// sits, and Grafana's variables substituted so that Prometheus itself can run a query.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>
#include "tests/support/test_paths.h"

namespace iofleet::testing {

struct Dashboard {
  std::string file;  // "live-run.json"
  nlohmann::json doc;
};

struct DashboardQuery {
  std::string where;  // "live-run.json: panel \"Throughput (all agents)\" A", "... variable step"
  std::string expr;   // PromQL with Grafana variables; a variable's label_values(Q, l) gives Q
  bool instant = false;
};

inline std::vector<Dashboard> LoadDashboards(const std::filesystem::path& dir = std::filesystem::path(IOFLEET_SOURCE_DIR) / "dashboards") {
  std::vector<Dashboard> boards;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << e.path().filename() << " is not valid JSON";
    if (!doc.is_discarded()) boards.push_back({e.path().filename().string(), doc});
  }
  std::sort(boards.begin(), boards.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return boards;
}

// Every panel, rows' nested panels included.
inline void CollectPanels(const nlohmann::json& list, std::vector<const nlohmann::json*>& out) {
  for (const auto& p : list) {
    out.push_back(&p);
    if (p.contains("panels")) CollectPanels(p["panels"], out);
  }
}

inline std::vector<DashboardQuery> DashboardQueries(const Dashboard& board) {
  std::vector<DashboardQuery> queries;
  std::vector<const nlohmann::json*> panels;
  CollectPanels(board.doc["panels"], panels);
  for (const nlohmann::json* p : panels) {
    for (const auto& t : p->value("targets", nlohmann::json::array())) {
      queries.push_back({board.file + ": panel \"" + p->value("title", "") + "\" " + t.value("refId", ""), t.value("expr", ""),
                         t.value("instant", false)});
    }
  }
  for (const auto& a : board.doc["annotations"].value("list", nlohmann::json::array())) {
    if (a.contains("expr")) queries.push_back({board.file + ": annotation " + a.value("name", ""), a["expr"], false});
  }
  for (const auto& v : board.doc["templating"]["list"]) {
    if (v.value("type", "") != "query") continue;
    std::string q = v["query"].is_object() ? v["query"].value("query", "") : v["query"].get<std::string>();
    std::smatch m;
    if (std::regex_match(q, m, std::regex(R"(label_values\((.*),\s*\w+\))"))) q = m[1];
    queries.push_back({board.file + ": variable " + v.value("name", ""), q, true});
  }
  return queries;
}

// Grafana's variables replaced: `values` by name ("workload" -> "it-live"); a variable not given
// becomes ".+" (Grafana's "All" of these dashboards); $__rate_interval, $__range and
// $__interval become `range`.
inline std::string SubstituteVariables(std::string expr, const std::map<std::string, std::string>& values = {},
                                       const std::string& range = "10s") {
  for (const char* builtin : {"$__rate_interval", "$__range", "$__interval"}) {
    for (size_t at; (at = expr.find(builtin)) != std::string::npos;) expr.replace(at, std::string(builtin).size(), range);
  }
  std::regex var(R"(\$\{?(\w+)\}?)");
  std::string out;
  auto begin = std::sregex_iterator(expr.begin(), expr.end(), var);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += expr.substr(last, it->position() - last);
    auto found = values.find((*it)[1]);
    out += found != values.end() ? found->second : ".+";
    last = it->position() + it->length();
  }
  return out + expr.substr(last);
}

}  // namespace iofleet::testing
