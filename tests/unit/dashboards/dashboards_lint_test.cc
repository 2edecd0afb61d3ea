// Lint of dashboards/ (Grafana JSON and provisioning): valid JSON, fixed and unique uids, no
// data source named anywhere but through the `datasource` variable, a unit on every panel,
// rate() over $__rate_interval, the template variables each dashboard needs, and only metric
// names that iofleet exports (DESIGN.md section 5b) or that deploy/prometheus/rules records.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tests/support/dashboards.h"
#include "tests/support/test_paths.h"

namespace iofleet {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = IOFLEET_SOURCE_DIR;

// DESIGN.md section 5b, as exported (histograms as their _bucket, _sum and _count series).
// iofleet_result_verdict comes with #12: add it here when it is pushed.
std::set<std::string> ExportedNames() {
  std::set<std::string> names = {
      // agents
      "iofleet_io_ops_total", "iofleet_io_bytes_total", "iofleet_io_errors_total", "iofleet_io_fsyncs_total",
      "iofleet_io_inflight", "iofleet_files_ops_total", "iofleet_copy_bytes_total", "iofleet_copy_files_total",
      "iofleet_run_info", "iofleet_agent_info", "iofleet_agent_state", "iofleet_agent_job_cpu_seconds_total",
      // controller
      "iofleet_fleet_agents", "iofleet_step_start_skew_seconds",
      // pushed
      "iofleet_result_bytes_per_second", "iofleet_result_iops", "iofleet_result_latency_seconds",
      "iofleet_result_status", "iofleet_result_timestamp_seconds", "iofleet_run_duration_seconds",
      // pushed: the slowest agent's host (docs/OBSERVABILITY.md, beside iofleet_result_limit)
      "iofleet_result_core_busy_ratio", "iofleet_result_device_busy_ratio"};
  for (const char* histogram : {"iofleet_io_latency_seconds", "iofleet_files_latency_seconds"}) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(std::string(histogram) + suffix);
  }
  return names;
}

// What the recording rules of deploy/prometheus/rules/iofleet-recording.yml record.
std::set<std::string> RecordedNames() {
  std::set<std::string> names;
  YAML::Node rules = YAML::LoadFile((kSource / "deploy/prometheus/rules/iofleet-recording.yml").string());
  for (const auto& group : rules["groups"]) {
    for (const auto& rule : group["rules"]) {
      if (rule["record"]) names.insert(rule["record"].as<std::string>());
    }
  }
  return names;
}

// PromQL's words that are not metric names: functions and aggregations (followed by "("),
// keywords, and what the grouping clauses and label matchers hold are removed before this.
const std::set<std::string> kKeywords = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
                                         "and", "or", "unless", "offset", "inf", "nan"};

// The metric names a PromQL expression (Grafana variables in it) selects.
std::set<std::string> MetricNames(std::string expr) {
  // Strings, label matchers, ranges and Grafana variables say nothing about names.
  expr = std::regex_replace(expr, std::regex(R"("(\\.|[^"\\])*")"), "\"\"");
  expr = std::regex_replace(expr, std::regex(R"(\{[^}]*\})"), " ");
  expr = std::regex_replace(expr, std::regex(R"(\[[^\]]*\])"), " ");
  expr = std::regex_replace(expr, std::regex(R"(\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\))"), " ");
  expr = std::regex_replace(expr, std::regex(R"(\$\{?\w+\}?)"), " ");
  std::set<std::string> names;
  std::regex word(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?)");
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), word); it != std::sregex_iterator(); ++it) {
    if ((*it)[2].matched) continue;  // a function or an aggregation
    std::string w = (*it)[1];
    if (!kKeywords.count(w)) names.insert(w);
  }
  return names;
}

using testing::CollectPanels;
using testing::LoadDashboards;

std::vector<std::string> Queries(const json& doc) {
  std::vector<std::string> queries;
  for (const auto& q : testing::DashboardQueries({"", doc})) queries.push_back(q.expr);
  return queries;
}

TEST(DashboardsLint, ThereAreTheThreeDashboards) {
  std::set<std::string> files;
  for (const auto& b : LoadDashboards()) files.insert(b.file);
  EXPECT_EQ(files, (std::set<std::string>{"agent.json", "live-run.json", "nightly-trends.json"}));
}

TEST(DashboardsLint, UidsAreFixedAndUnique) {
  std::set<std::string> uids;
  for (const auto& b : LoadDashboards()) {
    ASSERT_TRUE(b.doc.contains("uid") && b.doc["uid"].is_string()) << b.file;
    std::string uid = b.doc["uid"];
    EXPECT_TRUE(std::regex_match(uid, std::regex("iofleet-[a-z0-9-]+"))) << b.file << ": " << uid;
    EXPECT_LE(uid.size(), 40u) << b.file;  // Grafana's limit
    EXPECT_TRUE(uids.insert(uid).second) << b.file << ": uid " << uid << " used twice";
    EXPECT_FALSE(b.doc.contains("id") && !b.doc["id"].is_null()) << b.file << ": a numeric id ties it to one Grafana";
    EXPECT_FALSE(b.doc.value("title", "").empty()) << b.file;
  }
}

// Any "datasource" anywhere must be the variable: "${datasource}" as a string or as an
// object's uid. Also no "__inputs" (an export for one Grafana's data source).
void CheckDataSources(const json& node, const std::string& where, int& count) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "__inputs") ADD_FAILURE() << where << ": __inputs names a data source";
      if (key == "datasource") {
        ++count;
        std::string ref = value.is_string() ? value.get<std::string>() : value.value("uid", "");
        EXPECT_TRUE(ref == "${datasource}" || ref == "$datasource") << where << ": data source " << value.dump();
      } else {
        CheckDataSources(value, where + "." + key, count);
      }
    }
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) CheckDataSources(node[i], where + "[" + std::to_string(i) + "]", count);
  }
}

TEST(DashboardsLint, NoDataSourceIsHardCoded) {
  for (const auto& b : LoadDashboards()) {
    int count = 0;
    CheckDataSources(b.doc, b.file, count);
    EXPECT_GT(count, 0) << b.file;
  }
}

TEST(DashboardsLint, TheVariablesArePresent) {
  const std::map<std::string, std::set<std::string>> wanted = {
      {"live-run.json", {"datasource", "workload", "step", "agent", "stream"}},
      {"agent.json", {"datasource", "agent", "workload", "step"}},
      {"nightly-trends.json", {"datasource", "workload", "step"}}};
  for (const auto& b : LoadDashboards()) {
    std::map<std::string, json> vars;
    for (const auto& v : b.doc["templating"]["list"]) vars[v["name"]] = v;
    for (const auto& name : wanted.at(b.file)) {
      ASSERT_TRUE(vars.count(name)) << b.file << ": no variable " << name;
      const json& v = vars[name];
      if (name == "datasource") {
        EXPECT_EQ(v["type"], "datasource") << b.file;
        EXPECT_EQ(v["query"], "prometheus") << b.file;
        continue;
      }
      EXPECT_EQ(v["type"], "query") << b.file << " " << name;
      std::string q = v["query"].is_object() ? v["query"].value("query", "") : v["query"].get<std::string>();
      EXPECT_EQ(q.rfind("label_values(", 0), 0u) << b.file << " " << name << ": " << q;
      EXPECT_NE(q.find(", " + name + ")"), std::string::npos) << b.file << " " << name << ": " << q;
    }
  }
}

TEST(DashboardsLint, EveryPanelHasAUnitAndAPlace) {
  for (const auto& b : LoadDashboards()) {
    std::vector<const json*> panels;
    CollectPanels(b.doc["panels"], panels);
    std::set<int> ids;
    for (const json* p : panels) {
      std::string title = p->value("title", "?");
      EXPECT_TRUE(ids.insert(p->value("id", -1)).second) << b.file << ": panel id of " << title << " used twice";
      EXPECT_TRUE(p->contains("gridPos")) << b.file << ": " << title;
      if (p->value("type", "") == "row" || p->value("type", "") == "text") continue;
      std::string unit = (*p)["fieldConfig"]["defaults"].value("unit", "");
      EXPECT_FALSE(unit.empty()) << b.file << ": panel \"" << title << "\" has no unit";
      EXPECT_FALSE(p->value("targets", json::array()).empty()) << b.file << ": " << title;
      EXPECT_FALSE(p->value("description", "").empty()) << b.file << ": panel \"" << title << "\" says nothing of what it shows";
    }
  }
}

TEST(DashboardsLint, QueriesNameOnlyExportedOrRecordedMetrics) {
  std::set<std::string> known = ExportedNames();
  std::set<std::string> recorded = RecordedNames();
  ASSERT_FALSE(recorded.empty());
  known.insert(recorded.begin(), recorded.end());
  std::set<std::string> used;
  for (const auto& b : LoadDashboards()) {
    std::vector<std::string> queries = Queries(b.doc);
    EXPECT_FALSE(queries.empty()) << b.file;
    for (const auto& q : queries) {
      std::set<std::string> names = MetricNames(q);
      EXPECT_FALSE(names.empty()) << b.file << ": " << q;
      for (const auto& n : names) {
        EXPECT_TRUE(known.count(n)) << b.file << ": " << n << " is not an iofleet metric (DESIGN.md 5b) or a recorded one, in " << q;
        used.insert(n);
      }
    }
  }
  // A recording rule no dashboard reads is dead weight on every Prometheus that loads it.
  for (const auto& r : recorded) EXPECT_TRUE(used.count(r)) << r << " is recorded but no dashboard uses it";
}

TEST(DashboardsLint, RatesUseRateInterval) {
  for (const auto& b : LoadDashboards()) {
    for (const auto& q : Queries(b.doc)) {
      std::regex range(R"(\[([^\]]*)\])");
      for (auto it = std::sregex_iterator(q.begin(), q.end(), range); it != std::sregex_iterator(); ++it) {
        std::string r = (*it)[1];
        EXPECT_TRUE(r == "$__rate_interval" || r == "$__range") << b.file << ": range [" << r << "] in " << q;
      }
      if (q.find("rate(") != std::string::npos) {
        EXPECT_NE(q.find("[$__rate_interval]"), std::string::npos) << b.file << ": " << q;
      }
    }
  }
}

// The lint's own parser: names found, and not the words around them.
TEST(DashboardsLint, MetricNamesReadsPromQL) {
  EXPECT_EQ(MetricNames(R"(histogram_quantile(0.99, sum by (agent, le) (rate(iofleet_io_latency_seconds_bucket{agent=~"$agent",step="a b"}[$__rate_interval]))))"),
            (std::set<std::string>{"iofleet_io_latency_seconds_bucket"}));
  EXPECT_EQ(MetricNames("a:b:rate30s / on (x) group_left (y) c_total > bool 0"), (std::set<std::string>{"a:b:rate30s", "c_total"}));
  EXPECT_EQ(MetricNames("up == 0 and on () count(x)"), (std::set<std::string>{"up", "x"}));
}

TEST(DashboardsProvisioning, GrafanaCanLoadItAsIs) {
  YAML::Node ds = YAML::LoadFile((kSource / "dashboards/provisioning/datasources/iofleet-prometheus.yml").string());
  EXPECT_EQ(ds["apiVersion"].as<int>(), 1);
  ASSERT_EQ(ds["datasources"].size(), 1u);
  EXPECT_EQ(ds["datasources"][0]["type"].as<std::string>(), "prometheus");
  EXPECT_FALSE(ds["datasources"][0]["url"].as<std::string>().empty());
  YAML::Node dash = YAML::LoadFile((kSource / "dashboards/provisioning/dashboards/iofleet.yml").string());
  EXPECT_EQ(dash["apiVersion"].as<int>(), 1);
  ASSERT_EQ(dash["providers"].size(), 1u);
  EXPECT_EQ(dash["providers"][0]["type"].as<std::string>(), "file");
  EXPECT_FALSE(dash["providers"][0]["options"]["path"].as<std::string>().empty());
}

}  // namespace
}  // namespace iofleet
