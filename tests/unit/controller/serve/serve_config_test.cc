#include "controller/serve/serve_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";

class ServeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "state");
    fs::create_directories(dir_ / "tls");
    fs::create_directories(dir_ / "workloads");
    for (const char* name : {"ca.pem", "cert.pem", "key.pem"}) Write("tls/" + std::string(name), kPem);
    Write("serve.token", "s3cret-token\n");
    chmod((dir_ / "serve.token").c_str(), 0600);
    Write("workloads/w.yaml", "name: w\nsteps:\n  - io: { op: write }\n");
  }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  LoadedServeConfig Load(const std::string& text) {
    Write("serve.yaml", text);
    return LoadServeConfig(File());
  }
  std::string File() const { return (dir_ / "serve.yaml").string(); }
  std::string Abs(const std::string& name) const { return (dir_ / name).lexically_normal().string(); }

  static std::string All(const std::vector<std::string>& errors) {
    std::string out;
    for (const auto& e : errors) out += e + "\n";
    return out;
  }
  // An error that begins "serve.yaml:LINE:COL: PATH: " and holds `text`.
  ::testing::AssertionResult HasError(const LoadedServeConfig& loaded, const std::string& at, const std::string& text) {
    for (const auto& e : loaded.errors) {
      if (e.rfind(File() + ":" + at + ": ", 0) == 0 && e.find(text) != std::string::npos) return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "no error at " << at << " with \"" << text << "\" in:\n" << All(loaded.errors);
  }

  testing::TempDir dir_;
};

constexpr const char* kGood = R"(listen: 127.0.0.1:8080
token_file: serve.token
db: state/history.db
results: state/results
fleets:
  lab: { agents: "node[01-03]:7070", tls_dir: tls, tls_server_name: agent.lab }
  local: { agents: "127.0.0.1:7070" }
suites:
  - name: zeb-nightly
    fleet: lab
    workload: workloads/w.yaml
    set: { jobs: 4, "steps[0].io.block_size": 64KiB }
    labels: { cluster: lab, build: "42" }
    schedule: "0 2 * * *"
    compare_to: median-of:5
    max_regression: 2.5
    missed: skip
    webhook: https://hooks.example/iofleet?x=1
  - name: quick.check_1
    fleet: local
    workload: WORKLOAD
    every: 10s
  - name: on-demand
    fleet: local
    workload: ./workloads/../workloads/w.yaml
)";

std::string GoodConfig(const std::string& absolute_workload) {
  std::string text = kGood;
  text.replace(text.find("WORKLOAD"), 8, absolute_workload);
  return text;
}

TEST_F(ServeConfigTest, LoadsAGoodConfig) {
  LoadedServeConfig loaded = Load(GoodConfig(Abs("workloads/w.yaml")));
  ASSERT_TRUE(loaded.errors.empty()) << All(loaded.errors);
  EXPECT_TRUE(loaded.warnings.empty()) << All(loaded.warnings);
  const ServeConfig& c = loaded.config;
  EXPECT_EQ(c.file, File());
  EXPECT_EQ(c.listen, "127.0.0.1:8080");
  EXPECT_EQ(c.listen_host, "127.0.0.1");
  EXPECT_EQ(c.listen_port, 8080);
  EXPECT_EQ(c.tls_dir, "");
  EXPECT_EQ(c.token, "s3cret-token");
  EXPECT_FALSE(c.public_read);
  EXPECT_EQ(c.db, Abs("state/history.db"));
  EXPECT_EQ(c.results, Abs("state/results"));
  EXPECT_EQ(c.keep_runs, 500u);
  EXPECT_EQ(c.zone, TimeZone::kUtc);
  EXPECT_EQ(c.pushgateway, "");

  ASSERT_EQ(c.fleets.size(), 2u);
  const ServeFleet& lab = c.fleets.at("lab");
  EXPECT_EQ(lab.name, "lab");
  EXPECT_EQ(lab.agents, (std::vector<std::string>{"node01:7070", "node02:7070", "node03:7070"}));
  ASSERT_TRUE(lab.tls.has_value());
  EXPECT_EQ(lab.tls->server_name, "agent.lab");
  EXPECT_EQ(lab.tls->cert, kPem);
  EXPECT_FALSE(c.fleets.at("local").tls.has_value());

  ASSERT_EQ(c.suites.size(), 3u);
  const ServeSuite& nightly = c.suites[0];
  EXPECT_EQ(nightly.name, "zeb-nightly");
  EXPECT_EQ(nightly.fleet, "lab");
  EXPECT_EQ(nightly.workload_file, Abs("workloads/w.yaml"));
  EXPECT_EQ(nightly.workload.name(), "w");
  EXPECT_EQ(nightly.workload.defaults().jobs(), 4u);  // set applied
  EXPECT_EQ(nightly.workload.steps(0).io().block_size(), 64u * 1024);
  EXPECT_EQ(nightly.labels, (RunLabels{{"build", "42"}, {"cluster", "lab"}}));  // by key
  ASSERT_TRUE(nightly.cron.has_value());
  EXPECT_EQ(nightly.cron->text(), "0 2 * * *");
  EXPECT_EQ(nightly.every.count(), 0);
  ASSERT_TRUE(nightly.verdicts.has_value());
  EXPECT_EQ(nightly.verdicts->reference.kind, Reference::Kind::kMedianOf);
  EXPECT_EQ(nightly.verdicts->reference.n, 5u);
  EXPECT_DOUBLE_EQ(nightly.verdicts->alpha, 0.05);
  EXPECT_DOUBLE_EQ(nightly.verdicts->max_regression_pct, 2.5);
  EXPECT_EQ(nightly.missed, MissedPolicy::kSkip);
  EXPECT_EQ(nightly.webhook, "https://hooks.example/iofleet?x=1");

  const ServeSuite& quick = c.suites[1];
  EXPECT_EQ(quick.name, "quick.check_1");
  EXPECT_FALSE(quick.cron.has_value());
  EXPECT_EQ(quick.every, std::chrono::seconds(10));
  EXPECT_FALSE(quick.verdicts.has_value());
  EXPECT_EQ(quick.missed, MissedPolicy::kRunOnce);
  EXPECT_TRUE(quick.labels.empty());

  // Neither schedule nor every: run only when asked.
  const ServeSuite& on_demand = c.suites[2];
  EXPECT_FALSE(on_demand.cron.has_value());
  EXPECT_EQ(on_demand.every.count(), 0);
  EXPECT_EQ(on_demand.workload_file, Abs("workloads/w.yaml"));
}

TEST_F(ServeConfigTest, ServerOptions) {
  std::string text = GoodConfig(Abs("workloads/w.yaml"));
  text.replace(0, text.find('\n'), "listen: 0.0.0.0:8443\ntls_dir: tls\npublic_read: true\nkeep_runs: 7\ntime_zone: local\n"
                                   "pushgateway: http://pg:9091");
  LoadedServeConfig loaded = Load(text);
  ASSERT_TRUE(loaded.errors.empty()) << All(loaded.errors);
  EXPECT_EQ(loaded.config.tls_dir, Abs("tls"));
  EXPECT_EQ(loaded.config.listen_port, 8443);
  EXPECT_TRUE(loaded.config.public_read);
  EXPECT_EQ(loaded.config.keep_runs, 7u);
  EXPECT_EQ(loaded.config.zone, TimeZone::kLocal);
  EXPECT_EQ(loaded.config.pushgateway, "http://pg:9091");
}

TEST_F(ServeConfigTest, PlainHttpOnlyOnLoopback) {
  for (const char* listen : {"127.0.0.1:8080", "127.3.2.1:80", "[::1]:8080", "localhost:8080"}) {
    std::string text = GoodConfig(Abs("workloads/w.yaml"));
    text.replace(0, text.find('\n'), std::string("listen: \"") + listen + "\"");
    LoadedServeConfig loaded = Load(text);
    EXPECT_TRUE(loaded.errors.empty()) << listen << "\n" << All(loaded.errors);
    EXPECT_TRUE(loaded.config.listen_host == "::1" || listen[0] != '[') << loaded.config.listen_host;
  }
  for (const char* listen : {"0.0.0.0:8080", "[::]:8080", "10.1.2.3:8080", "serve.lab:8080"}) {
    std::string text = GoodConfig(Abs("workloads/w.yaml"));
    text.replace(0, text.find('\n'), std::string("listen: \"") + listen + "\"");
    LoadedServeConfig loaded = Load(text);
    EXPECT_TRUE(HasError(loaded, "1:1", "listen: ")) << listen;
    EXPECT_NE(All(loaded.errors).find("set tls_dir"), std::string::npos) << All(loaded.errors);
  }
}

TEST_F(ServeConfigTest, EveryCheckErrorAtOnceWithItsPosition) {
  LoadedServeConfig loaded = Load(R"(listen: 0.0.0.0:8080
token_file: missing.token
db: nodir/history.db
results: nodir/results
time_zone: Europe/Berlin
pushgateway: https://pg:9091
fleets:
  lab: { agents: "node[01-03:7070" }
  "bad name": { agents: "a:1", tls_server_name: x }
suites:
  - name: zeb-nightly
    fleet: lba
    workload: workloads/w.yaml
    schedule: "0 0 31 2 *"
    max_regression: 5
    webhook: ftp://x/
  - name: zeb-nightly
    fleet: lab
    workload: workloads/w.yaml
    schedule: "*/5 * * * *"
    every: 1m
    compare_to: worst-of:3
    labels: { "bad-key": x }
    set: { jobs: 0 }
  - fleet: lab
  - name: bad/name
    fleet: lab
    workload: workloads/none.yaml
    schedule: "*/0 * * * *"
    max_regression: lots
    compare_to: last
    webhook: "http://user:pw@h/"
)");
  EXPECT_TRUE(HasError(loaded, "1:1", "listen: 0.0.0.0 is not a loopback address"));
  EXPECT_TRUE(HasError(loaded, "2:1", "token_file: cannot read " + Abs("missing.token")));
  EXPECT_TRUE(HasError(loaded, "3:1", "db: the directory " + Abs("nodir") + " does not exist"));
  EXPECT_TRUE(HasError(loaded, "4:1", "results: neither"));
  EXPECT_TRUE(HasError(loaded, "5:1", "time_zone: \"Europe/Berlin\" is not UTC or local"));
  EXPECT_TRUE(HasError(loaded, "6:1", "pushgateway: write http://HOST:PORT"));
  EXPECT_TRUE(HasError(loaded, "8:10", "fleets.lab.agents: \"node[01-03:7070\" has an unclosed '['"));
  EXPECT_TRUE(HasError(loaded, "9:3", "fleets.bad name: \"bad name\" is not a fleet name"));
  EXPECT_TRUE(HasError(loaded, "9:32", "fleets.bad name.tls_server_name: applies to tls_dir"));
  EXPECT_TRUE(HasError(loaded, "12:5", "suites[0].fleet: no fleet \"lba\" (did you mean lab?)"));
  EXPECT_TRUE(HasError(loaded, "14:5", "suites[0].schedule: day-of-month \"31\" with month \"2\": no such date"));
  EXPECT_TRUE(HasError(loaded, "15:5", "suites[0].max_regression: applies to compare_to, which is not given"));
  EXPECT_TRUE(HasError(loaded, "16:5", "suites[0].webhook: \"ftp://x/\": write http://"));
  EXPECT_TRUE(HasError(loaded, "17:5", "suites[1].name: \"zeb-nightly\" is also the name of suites[0]"));
  EXPECT_TRUE(HasError(loaded, "21:5", "suites[1].every: a suite takes a schedule (cron) or every (an interval), not both"));
  EXPECT_TRUE(HasError(loaded, "22:5", "suites[1].compare_to: expected last, mean-of:N"));
  EXPECT_TRUE(HasError(loaded, "23:15", "suites[1].labels.bad-key: \"bad-key\" is not a Prometheus label name"));
  EXPECT_TRUE(HasError(loaded, "24:12", "suites[1].set.jobs: defaults.jobs: 0 is below the minimum 1"));
  EXPECT_TRUE(HasError(loaded, "25:5", "suites[2]: needs a name"));
  EXPECT_TRUE(HasError(loaded, "25:5", "suites[2]: needs a workload"));
  EXPECT_TRUE(HasError(loaded, "26:5", "suites[3].name: \"bad/name\" is not a suite name"));
  EXPECT_TRUE(HasError(loaded, "28:5", "suites[3].workload: bad/name: " + Abs("workloads/none.yaml")));
  EXPECT_TRUE(HasError(loaded, "29:5", "suites[3].schedule: minute \"*/0\": the step 0 is not in 1-59"));
  EXPECT_TRUE(HasError(loaded, "30:5", "suites[3].max_regression: \"lots\" is not a percentage"));
  EXPECT_TRUE(HasError(loaded, "32:5", "suites[3].webhook: \"http://user:pw@h/\": no user or password"));
  EXPECT_EQ(loaded.errors.size(), 25u) << All(loaded.errors);
}

// A name with ".." would pass the pattern but no URL holding it gets past the HTTP layer.
TEST_F(ServeConfigTest, NamesWithDotDotAndEndlessIntervalsAreRefused) {
  LoadedServeConfig loaded = Load(R"(listen: 127.0.0.1:8080
token_file: serve.token
db: state/history.db
results: state/results
fleets:
  a..b: { agents: "127.0.0.1:7070" }
suites:
  - name: v1..2
    fleet: a..b
    workload: workloads/w.yaml
)");
  EXPECT_TRUE(HasError(loaded, "6:3", "fleets.a..b: \"a..b\" is not a fleet name")) << All(loaded.errors);
  EXPECT_TRUE(HasError(loaded, "8:5", "suites[0].name: \"v1..2\" is not a suite name")) << All(loaded.errors);
  loaded = Load(R"(listen: 127.0.0.1:8080
token_file: serve.token
db: state/history.db
results: state/results
fleets:
  lab: { agents: "127.0.0.1:7070" }
suites:
  - name: forever
    fleet: lab
    workload: workloads/w.yaml
    every: 5000000h
)");
  ASSERT_FALSE(loaded.errors.empty()) << "an interval that overflows the clock";
  EXPECT_NE(All(loaded.errors).find("suites[0].every"), std::string::npos) << All(loaded.errors);
}

TEST_F(ServeConfigTest, WorkloadErrorsKeepTheirOwnPositions) {
  Write("workloads/bad.yaml", "name: b\ndefaults:\n  jobs: 0\nsteps:\n  - io: { op: write }\n");
  std::string text = GoodConfig(Abs("workloads/w.yaml"));
  text.replace(text.find("workloads/w.yaml"), 16, "workloads/bad.yaml");
  LoadedServeConfig loaded = Load(text);
  EXPECT_TRUE(HasError(loaded, "11:5",
                       "suites[0].workload: zeb-nightly: " + Abs("workloads/bad.yaml") + ":3:9: defaults.jobs: 0 is below the minimum 1"));
  EXPECT_EQ(loaded.errors.size(), 1u) << All(loaded.errors);
}

TEST_F(ServeConfigTest, SetIsValidatedAsAWhole) {
  std::string text = GoodConfig(Abs("workloads/w.yaml"));
  text.replace(text.find("set: { jobs: 4,"), 15, "set: { nosuch: 1,");
  LoadedServeConfig loaded = Load(text);
  EXPECT_TRUE(HasError(loaded, "12:12", "suites[0].set.nosuch: ")) << All(loaded.errors);
}

TEST_F(ServeConfigTest, SchemaErrorsComeFromTheWorkloadLoader) {
  LoadedServeConfig loaded = Load(R"(listen: 127.0.0.1:8080
keep_runs: 0
tokenfile: serve.token
fleets:
  lab: { agnets: "a:1" }
suites:
  - name: x
    shedule: "0 2 * * *"
    every: 500ms
    missed: skipp
    public_read: true
)");
  EXPECT_TRUE(HasError(loaded, "2:12", "keep_runs: 0 is below the minimum 1"));
  EXPECT_TRUE(HasError(loaded, "3:1", "tokenfile: unknown key (did you mean token_file?)"));
  EXPECT_TRUE(HasError(loaded, "5:10", "fleets.lab.agnets: unknown key (did you mean agents?)"));
  EXPECT_TRUE(HasError(loaded, "8:5", "suites[0].shedule: unknown key (did you mean schedule?)"));
  EXPECT_TRUE(HasError(loaded, "9:12", "suites[0].every: 500ms is below the minimum 1s"));
  EXPECT_TRUE(HasError(loaded, "10:13", "suites[0].missed: \"skipp\" is not one of: run_once, skip (did you mean skip?)"));
  EXPECT_TRUE(HasError(loaded, "11:5", "suites[0].public_read: unknown key"));
  EXPECT_EQ(loaded.errors.size(), 7u) << All(loaded.errors);

  EXPECT_TRUE(HasError(Load("- a\n"), "1:1", "a config is a YAML map"));
  EXPECT_TRUE(HasError(Load("fleets:\n  a: { agents: x }\n  a: { agents: y }\n"), "3:3", "fleets.a: given twice"));
  EXPECT_TRUE(HasError(Load("suites:\n  - name: s\n    labels: { a: x, a: y }\n"), "3:21", "suites[0].labels.a: given twice"));
}

TEST_F(ServeConfigTest, MissingFieldsPointAtTheFile) {
  LoadedServeConfig loaded = Load("{}\n");
  for (const char* path : {"listen: needs", "token_file: needs", "db: needs", "results: needs", "fleets: at least one",
                           "suites: at least one"}) {
    EXPECT_TRUE(HasError(loaded, "1:1", path));
  }
  EXPECT_EQ(loaded.errors.size(), 6u) << All(loaded.errors);
  LoadedServeConfig absent = LoadServeConfig(Abs("nosuch.yaml"));
  ASSERT_EQ(absent.errors.size(), 1u);
  EXPECT_NE(absent.errors[0].find(Abs("nosuch.yaml")), std::string::npos) << absent.errors[0];
}

TEST_F(ServeConfigTest, TheToken) {
  std::string text = GoodConfig(Abs("workloads/w.yaml"));
  Write("serve.token", "  \n\n");
  EXPECT_TRUE(HasError(Load(text), "2:1", "token_file: " + Abs("serve.token") + " is empty"));
  Write("serve.token", "two words\n");
  EXPECT_TRUE(HasError(Load(text), "2:1", "the token holds a space or control character"));
  Write("serve.token", "tok\r\n");
  LoadedServeConfig crlf = Load(text);
  EXPECT_TRUE(crlf.errors.empty()) << All(crlf.errors);
  EXPECT_EQ(crlf.config.token, "tok");
  chmod((dir_ / "serve.token").c_str(), 0644);
  LoadedServeConfig open = Load(text);
  EXPECT_TRUE(open.errors.empty()) << All(open.errors);
  ASSERT_EQ(open.warnings.size(), 1u);
  EXPECT_EQ(open.warnings[0].rfind(File() + ":2:1: token_file: ", 0), 0u) << open.warnings[0];
  EXPECT_NE(open.warnings[0].find("(mode 644): chmod 600 it"), std::string::npos) << open.warnings[0];
}

TEST_F(ServeConfigTest, TlsDirNeedsCertAndKey) {
  std::string text = GoodConfig(Abs("workloads/w.yaml"));
  text.replace(0, text.find('\n'), "listen: 0.0.0.0:8443\ntls_dir: tls");
  fs::remove(dir_ / "tls/key.pem");
  EXPECT_TRUE(HasError(Load(text), "2:1", "tls_dir: cannot read " + Abs("tls/key.pem")));
  Write("tls/key.pem", "not pem");
  EXPECT_TRUE(HasError(Load(text), "2:1", "tls_dir: " + Abs("tls") + "/key.pem is not a PEM file"));
}

TEST_F(ServeConfigTest, FleetTlsDirNeedsAllThree) {
  fs::remove(dir_ / "tls/ca.pem");
  LoadedServeConfig loaded = Load(GoodConfig(Abs("workloads/w.yaml")));
  EXPECT_TRUE(HasError(loaded, "6:38", "fleets.lab.tls_dir: " + Abs("tls") + "/ca.pem: No such file"));
  EXPECT_EQ(loaded.errors.size(), 1u) << All(loaded.errors);
}

TEST_F(ServeConfigTest, AgentFilesAreRelativeToTheConfig) {
  Write("agents.yaml", "- a1:7070\n- a2:7070\n");
  std::string text = GoodConfig(Abs("workloads/w.yaml"));
  text.replace(text.find("\"127.0.0.1:7070\""), 16, "\"@agents.yaml\"");
  LoadedServeConfig loaded = Load(text);
  ASSERT_TRUE(loaded.errors.empty()) << All(loaded.errors);
  EXPECT_EQ(loaded.config.fleets.at("local").agents, (std::vector<std::string>{"a1:7070", "a2:7070"}));
}

TEST(ListenAddressTest, Parses) {
  auto v4 = ParseListenAddress("127.0.0.1:8080");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8080);
  EXPECT_TRUE(v4->loopback);
  auto v6 = ParseListenAddress("[::1]:443");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_TRUE(v6->loopback);
  auto any = ParseListenAddress("[::]:443");
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(any->loopback);
  for (const char* bad : {"", "8080", ":8080", "::1:8080", "[::1]8080", "[::1:8080", "h:0", "h:65536", "h:80x", "[nope]:80",
                          "a b:80"}) {
    EXPECT_FALSE(ParseListenAddress(bad).ok()) << bad;
  }
}

TEST(WebhookUrlTest, Parses) {
  auto plain = ParseWebhookUrl("http://hooks:8080/a/b?c=d");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->https);
  EXPECT_EQ(plain->host, "hooks");
  EXPECT_EQ(plain->port, "8080");
  EXPECT_EQ(plain->target, "/a/b?c=d");
  auto tls = ParseWebhookUrl("https://[fd00::1]");
  ASSERT_TRUE(tls.ok()) << tls.status().message();
  EXPECT_TRUE(tls->https);
  EXPECT_EQ(tls->host, "fd00::1");
  EXPECT_EQ(tls->port, "443");
  EXPECT_EQ(tls->target, "/");
  EXPECT_EQ(ParseWebhookUrl("http://h?x")->target, "/?x");
  for (const char* bad : {"hooks/x", "ftp://h/", "http://", "http:///x", "http://u:p@h/", "http://h:/", "http://h:99999/",
                          "http://h/#frag", "http://h/a b", "http://a:b:c/", "https://[fd00::1/"}) {
    EXPECT_FALSE(ParseWebhookUrl(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace iofleet::controller
