#include "controller/serve/serve_config.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "controller/fleet/agent_list.h"
#include "controller/push/pushgateway_url.h"
#include "controller/workload/input_file.h"
#include "controller/workload/proto_names.h"
#include "controller/workload/yaml_loader.h"
#include "core/base/loopback.h"
#include "core/rules/validate.h"
#include "iofleet/v1/serve.pb.h"

namespace iofleet::controller {
namespace {

namespace fs = std::filesystem;

// "8080" -> 8080; 1-65535 only.
bool ParsePort(const std::string& text, uint16_t& port) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  int v = std::stoi(text);
  if (v < 1 || v > 65535) return false;
  port = static_cast<uint16_t>(v);
  return true;
}

// A host name or address as it may appear in a URL or HOST:PORT (no spaces, no control bytes).
bool PlainHost(const std::string& host) {
  if (host.empty()) return false;
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != ':' && c != '%') return false;
  }
  return true;
}

// A name that goes into URLs, metric labels and directory names.
// A name goes into URLs and directory names: no "..", which the HTTP layer refuses in any path.
bool ValidName(const std::string& name) {
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  return std::regex_match(name, kName) && name.find("..") == std::string::npos;
}


Result<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return PosixError(path, errno ? errno : ENOENT);
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return PosixError(path, errno ? errno : EIO);
  return text.str();
}

class ConfigChecker {
 public:
  ConfigChecker(const v1::ServeConfig& file, const SourceMap& sources, LoadedServeConfig& out)
      : in_(file), sources_(sources), out_(out), config_(out.config) {
    dir_ = fs::absolute(fs::path(config_.file)).parent_path();
  }

  void Check() {
    CheckServer();
    CheckFleets();
    CheckSuites();
  }

 private:
  // file:line:col of `path` (or of the nearest enclosing field that has one; 1:1 for the file).
  void Error(const std::string& path, const std::string& message) {
    std::string e = sources_.Format(path, message);
    if (e.rfind(sources_.file() + ": ", 0) == 0) e = sources_.file() + ":1:1" + e.substr(sources_.file().size());
    out_.errors.push_back(e);
  }
  void Warn(const std::string& path, const std::string& message) {
    out_.warnings.push_back(sources_.Format(path, message));
  }

  // Relative to the config file's directory; "" stays "".
  std::string Resolve(const std::string& path) const {
    if (path.empty()) return path;
    fs::path p(path);
    return (p.is_absolute() ? p : dir_ / p).lexically_normal().string();
  }

  // cert.pem and key.pem (and ca.pem when `ca` is true) readable and PEM.
  void CheckServerTlsDir(const std::string& path, const std::string& dir) {
    for (const char* name : {"cert.pem", "key.pem"}) {
      auto text = ReadSmallFile(dir + "/" + name);
      if (!text.ok()) {
        Error(path, "cannot read " + text.status().message() + " (tls_dir holds cert.pem and key.pem of a `server` "
                    "certificate from deploy/tls/make-certs)");
      } else if (text->find("-----BEGIN") == std::string::npos) {
        Error(path, dir + "/" + name + " is not a PEM file");
      }
    }
  }

  void CheckServer() {
    config_.tls_dir = Resolve(in_.tls_dir());
    if (!in_.tls_dir().empty()) CheckServerTlsDir("tls_dir", config_.tls_dir);

    config_.listen = in_.listen();
    if (in_.listen().empty()) {
      Error("listen", "needs HOST:PORT, e.g. 127.0.0.1:8080");
    } else if (auto listen = ParseListenAddress(in_.listen()); !listen.ok()) {
      Error("listen", listen.status().message());
    } else {
      config_.listen_host = listen->host;
      config_.listen_port = listen->port;
      if (!listen->loopback && in_.tls_dir().empty()) {
        Error("listen", listen->host + " is not a loopback address: plain HTTP is served only on loopback; set tls_dir "
                        "(cert.pem and key.pem of a `server` certificate from deploy/tls/make-certs) to serve HTTPS");
      }
    }

    CheckToken();
    config_.public_read = in_.public_read();

    config_.db = Resolve(in_.db());
    if (in_.db().empty()) {
      Error("db", "needs the history database's path, e.g. /var/lib/iofleet/history.db");
    } else {
      std::error_code ec;
      fs::path parent = fs::path(config_.db).parent_path();
      if (!fs::is_directory(parent, ec)) Error("db", "the directory " + parent.string() + " does not exist");
      else if (fs::is_directory(config_.db, ec)) Error("db", config_.db + " is a directory: name the database file in it");
    }

    config_.results = Resolve(in_.results());
    if (in_.results().empty()) {
      Error("results", "needs the directory for the runs' reports, e.g. /var/lib/iofleet/results");
    } else {
      std::error_code ec;
      fs::path results(config_.results);
      if (fs::exists(results, ec)) {
        if (!fs::is_directory(results, ec)) Error("results", config_.results + " is not a directory");
      } else if (!fs::is_directory(results.parent_path(), ec)) {
        Error("results", "neither " + config_.results + " nor its parent directory exists");
      }
    }

    config_.keep_runs = in_.has_keep_runs() ? in_.keep_runs() : 500;

    const std::string& zone = in_.time_zone();
    if (zone.empty() || zone == "UTC" || zone == "utc") {
      config_.zone = TimeZone::kUtc;
    } else if (zone == "local") {
      config_.zone = TimeZone::kLocal;
    } else {
      Error("time_zone", "\"" + zone + "\" is not UTC or local (local: the system's zone, TZ honoured)");
    }

    config_.pushgateway = in_.pushgateway();
    if (!in_.pushgateway().empty()) {
      auto url = ParsePushgatewayUrl(in_.pushgateway());
      if (!url.ok()) Error("pushgateway", After(url.status().message(), "--pushgateway " + in_.pushgateway()));
    }
  }

  void CheckToken() {
    if (in_.token_file().empty()) {
      Error("token_file", "needs the file holding the bearer token (e.g. from `openssl rand -hex 32`)");
      return;
    }
    std::string path = Resolve(in_.token_file());
    auto text = ReadSmallFile(path);
    if (!text.ok()) {
      Error("token_file", "cannot read " + text.status().message());
      return;
    }
    std::string token = *text;
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    if (token.empty()) {
      Error("token_file", path + " is empty: write the bearer token into it");
      return;
    }
    for (char c : token) {
      if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
        Error("token_file", path + ": the token holds a space or control character: a bearer token is one word");
        return;
      }
    }
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && (st.st_mode & 077)) {
      Warn("token_file", path + " may be read by other users (mode " +
                             [&] { std::ostringstream o; o << std::oct << (st.st_mode & 0777); return o.str(); }() +
                             "): chmod 600 it");
    }
    config_.token = token;
  }

  void CheckFleets() {
    if (in_.fleets().empty()) {
      Error("fleets", "at least one fleet is needed, e.g. fleets: { lab: { agents: \"node[01-06]:7070\" } }");
      return;
    }
    std::map<std::string, v1::ServeFleet> ordered(in_.fleets().begin(), in_.fleets().end());
    for (const auto& [name, spec] : ordered) {
      std::string path = "fleets." + name;
      ServeFleet fleet;
      fleet.name = name;
      if (!ValidName(name)) Error(path, "\"" + name + "\" is not a fleet name: [A-Za-z0-9][A-Za-z0-9._-]{0,63} without \"..\"");
      if (spec.agents().empty()) {
        Error(path + ".agents", "needs the fleet's agents, as --agents: \"node[01-06]:7070\"");
      } else {
        // @FILE is relative to the config file too.
        std::string agents = spec.agents();
        if (agents[0] == '@' && agents.size() > 1) agents = "@" + Resolve(agents.substr(1));
        fleet.agents_spec = agents;
        auto list = ParseAgentList(agents);
        if (!list.ok() && list.status().code() == Code::kUnavailable) {
          // A dns: name that does not resolve yet (agents still starting): each run resolves it again.
          Warn(path + ".agents", After(list.status().message(), "--agents") + " (resolved again when each run starts)");
        } else if (!list.ok()) {
          Error(path + ".agents", After(list.status().message(), "--agents"));
        } else if (list->empty()) {
          Error(path + ".agents", "names no agent");
        } else {
          fleet.agents = *list;
        }
      }
      if (!spec.tls_dir().empty()) {
        auto tls = ReadTlsDir(Resolve(spec.tls_dir()));
        if (!tls.ok()) {
          std::string m = tls.status().message();  // "--tls-dir PATH/ca.pem: ..."
          Error(path + ".tls_dir", m.rfind("--tls-dir ", 0) == 0 ? m.substr(10) : m);
        } else {
          fleet.tls = *tls;
          fleet.tls->server_name = spec.tls_server_name();
        }
      } else if (!spec.tls_server_name().empty()) {
        Error(path + ".tls_server_name", "applies to tls_dir, which is not given");
      }
      config_.fleets.emplace(name, std::move(fleet));
    }
  }

  void CheckSuites() {
    if (in_.suites().empty()) {
      Error("suites", "at least one suite is needed (name, fleet, workload, and a schedule or every)");
      return;
    }
    std::map<std::string, int> names;  // name -> index of its first suite
    for (int i = 0; i < in_.suites_size(); ++i) {
      const v1::ServeSuite& spec = in_.suites(i);
      const std::string path = "suites[" + std::to_string(i) + "]";
      ServeSuite suite;
      suite.name = spec.name();
      if (spec.name().empty()) {
        Error(path, "needs a name");
      } else if (!ValidName(spec.name())) {
        Error(path + ".name", "\"" + spec.name() + "\" is not a suite name: [A-Za-z0-9][A-Za-z0-9._-]{0,63} without \"..\" (it names "
                              "URLs and directories)");
      } else if (auto [first, inserted] = names.emplace(spec.name(), i); !inserted) {
        Error(path + ".name", "\"" + spec.name() + "\" is also the name of suites[" + std::to_string(first->second) + "]");
      }

      suite.fleet = spec.fleet();
      if (spec.fleet().empty()) {
        Error(path, "needs a fleet (one of fleets)");
      } else if (in_.fleets().count(spec.fleet()) == 0) {
        std::vector<std::string> known;
        for (const auto& [name, fleet] : in_.fleets()) known.push_back(name);
        std::string hint = NearestName(spec.fleet(), known);
        Error(path + ".fleet", "no fleet \"" + spec.fleet() + "\"" + (hint.empty() ? "" : " (did you mean " + hint + "?)"));
      }

      CheckWorkload(spec, path, suite);
      CheckLabels(spec, path, suite);
      CheckSchedule(spec, path, suite);
      CheckVerdicts(spec, path, suite);
      suite.missed = spec.missed() == v1::MISSED_RUN_SKIP ? MissedPolicy::kSkip : MissedPolicy::kRunOnce;
      suite.webhook = spec.webhook();
      if (!spec.webhook().empty()) {
        auto url = ParseWebhookUrl(spec.webhook());
        if (!url.ok()) Error(path + ".webhook", url.status().message());
      }
      config_.suites.push_back(std::move(suite));
    }
  }

  void CheckWorkload(const v1::ServeSuite& spec, const std::string& path, ServeSuite& suite) {
    if (spec.workload().empty()) {
      Error(path, "needs a workload (a YAML workload file)");
      return;
    }
    suite.workload_file = Resolve(spec.workload());
    const std::string label = spec.name().empty() ? "" : spec.name() + ": ";
    LoadedWorkload loaded = LoadWorkloadFile(suite.workload_file);
    for (const auto& e : loaded.errors) Error(path + ".workload", label + e);
    if (!loaded.errors.empty()) return;
    suite.workload = std::move(loaded.workload);
    std::map<std::string, std::string> sets(spec.set().begin(), spec.set().end());
    bool set_ok = true;
    for (const auto& [key, value] : sets) {
      const std::string where = path + ".set." + key;
      Status st = SetWorkloadPath(suite.workload, key, value, where);
      if (!st.ok()) {
        Error(where, After(st.message(), where));
        set_ok = false;
      }
    }
    if (!sets.empty() && set_ok) {
      for (const auto& v : rules::Validate(suite.workload)) Error(path + ".set", "with set: " + v.path + ": " + v.message);
    }
  }

  void CheckLabels(const v1::ServeSuite& spec, const std::string& path, ServeSuite& suite) {
    std::map<std::string, std::string> labels(spec.labels().begin(), spec.labels().end());
    for (const auto& [key, value] : labels) {
      auto label = ParseRunLabel(key + "=" + value);
      if (!label.ok()) {
        Error(path + ".labels." + key, After(label.status().message(), "--label " + key + "=" + value));
      } else {
        suite.labels.push_back(*label);
      }
    }
  }

  void CheckSchedule(const v1::ServeSuite& spec, const std::string& path, ServeSuite& suite) {
    if (!spec.schedule().empty() && spec.has_every()) {
      Error(path + ".every", "a suite takes a schedule (cron) or every (an interval), not both");
      return;
    }
    if (!spec.schedule().empty()) {
      auto cron = CronSchedule::Parse(spec.schedule());
      if (!cron.ok()) {
        Error(path + ".schedule", cron.status().message());
      } else {
        suite.cron = std::move(*cron);
      }
    }
    if (spec.has_every()) suite.every = std::chrono::nanoseconds(static_cast<int64_t>(spec.every()));
  }

  void CheckVerdicts(const v1::ServeSuite& spec, const std::string& path, ServeSuite& suite) {
    double max_regression = 5;
    if (!spec.max_regression().empty()) {
      const std::string& text = spec.max_regression();
      char* end = nullptr;
      errno = 0;
      double v = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v) || v < 0 || text.find_first_of("xXpP") != std::string::npos) {
        Error(path + ".max_regression", "\"" + text + "\" is not a percentage (a number >= 0, e.g. 5 or 2.5)");
      } else {
        max_regression = v;
      }
      if (spec.compare_to().empty()) {
        Error(path + ".max_regression", "applies to compare_to, which is not given");
      }
    }
    if (spec.compare_to().empty()) return;
    auto reference = Reference::Parse(spec.compare_to());
    if (!reference.ok()) {
      Error(path + ".compare_to", After(reference.status().message(), "--compare-to \"" + spec.compare_to() + "\""));
      return;
    }
    suite.verdicts = VerdictOptions{*reference, 0.05, max_regression};
  }

  const v1::ServeConfig& in_;
  const SourceMap& sources_;
  LoadedServeConfig& out_;
  ServeConfig& config_;
  fs::path dir_;
};

}  // namespace

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  const std::string where = "\"" + text + "\": ";
  ListenAddress out;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos) return InvalidArgument(where + "an IPv6 address needs its closing ]");
    out.host = text.substr(1, close - 1);
    if (text.compare(close + 1, 1, ":") != 0) return InvalidArgument(where + "expected :PORT after ]");
    port = text.substr(close + 2);
    in6_addr v6{};
    if (inet_pton(AF_INET6, out.host.c_str(), &v6) != 1) return InvalidArgument(where + "[" + out.host + "] is not an IPv6 address");
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) return InvalidArgument(where + "write HOST:PORT, e.g. 127.0.0.1:8080");
    out.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (out.host.find(':') != std::string::npos) return InvalidArgument(where + "an IPv6 address goes in brackets: [::1]:8080");
    if (out.host.empty()) return InvalidArgument(where + "the host is missing (0.0.0.0:PORT for every interface)");
    if (!PlainHost(out.host)) return InvalidArgument(where + "\"" + out.host + "\" is not a host name or address");
  }
  if (!ParsePort(port, out.port)) return InvalidArgument(where + "the port \"" + port + "\" is not 1-65535");
  out.loopback = IsLoopbackHost(out.host);
  return out;
}

Result<WebhookUrl> ParseWebhookUrl(const std::string& text) {
  const std::string where = "\"" + text + "\": ";
  WebhookUrl url;
  std::string rest;
  if (text.rfind("http://", 0) == 0) {
    rest = text.substr(7);
  } else if (text.rfind("https://", 0) == 0) {
    url.https = true;
    rest = text.substr(8);
  } else {
    return InvalidArgument(where + "write http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH");
  }
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return InvalidArgument(where + "holds a space or control character");
  }
  if (rest.find('#') != std::string::npos) return InvalidArgument(where + "a fragment has no meaning here");
  size_t end = rest.find_first_of("/?");
  std::string authority = rest.substr(0, end);
  url.target = end == std::string::npos ? "/" : rest.substr(end);
  if (url.target[0] == '?') url.target = "/" + url.target;
  if (authority.find('@') != std::string::npos) return InvalidArgument(where + "no user or password in the URL (it would show in logs)");
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return InvalidArgument(where + "an IPv6 address needs its closing ]");
    url.host = authority.substr(1, close - 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return InvalidArgument(where + "expected :PORT after ]");
    if (!after.empty()) port = after.substr(1);
    in6_addr v6{};
    if (inet_pton(AF_INET6, url.host.c_str(), &v6) != 1) return InvalidArgument(where + "[" + url.host + "] is not an IPv6 address");
  } else {
    size_t colon = authority.find(':');
    url.host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return InvalidArgument(where + "the port is empty");
    }
    if (url.host.empty()) return InvalidArgument(where + "the host is missing");
    if (!PlainHost(url.host) || url.host.find(':') != std::string::npos) {
      return InvalidArgument(where + "\"" + url.host + "\" is not a host name or address");
    }
  }
  uint16_t number = 0;
  if (!port.empty() && !ParsePort(port, number)) return InvalidArgument(where + "the port \"" + port + "\" is not 1-65535");
  url.port = port.empty() ? (url.https ? "443" : "80") : port;
  return url;
}

LoadedServeConfig LoadServeConfig(const std::string& path) {
  LoadedServeConfig out;
  out.config.file = path;
  Result<std::string> text = ReadInputFile(path);
  if (!text.ok()) {
    out.errors.push_back(text.status().message());
    return out;
  }
  v1::ServeConfig file;
  SourceMap sources;
  out.errors = LoadYamlMessage(*text, path, &file, sources, "config");
  if (!out.errors.empty()) return out;  // as for workloads: the checks below need a well-typed file
  ConfigChecker(file, sources, out).Check();
  return out;
}

}  // namespace iofleet::controller
