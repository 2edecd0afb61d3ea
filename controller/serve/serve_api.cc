#include "controller/serve/serve_api.h"

#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "controller/history/change_points.h"
#include "controller/history/history_db.h"
#include "controller/history/regression.h"
#include "controller/history/run_figures.h"
#include "controller/push/result_families.h"
#include "core/wire/proto_json.h"
#include "controller/report/report_document.h"
#include "controller/serve/api_input.h"
#include "controller/serve/report_ticket.h"
#include "controller/serve/bearer_token.h"
#include "controller/serve/open_beneath.h"
#include "controller/serve/serve_page.h"
#include "controller/fleet/fleet.h"
#include "core/base/loopback.h"
#include "core/base/version.h"

namespace iofleet::controller {
namespace {

using Json = nlohmann::ordered_json;

// E-divisive costs O(n^2) per permutation (0.03 s for 200 values here, 0.8 s for 1000): change
// points are looked for among a series' latest values only, so one request cannot hold a server
// thread for seconds.
constexpr size_t kChangePointWindow = 200;

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 1;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    if (slash > at) parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return parts;
}

bool Reading(const HttpRequest& r) { return r.method == "GET" || r.method == "HEAD"; }

HttpResponse MethodNotAllowed(const std::string& allowed) {
  HttpResponse r = HttpResponse::Error(405, "method not allowed here: use " + allowed);
  r.headers.emplace_back("Allow", allowed);
  return r;
}

Status UnknownParameters(const HttpRequest& r, std::initializer_list<const char*> known) {
  for (const auto& [key, value] : r.query) {
    bool ok = false;
    for (const char* k : known) ok |= key == k;
    if (!ok) return InvalidArgument("unknown query parameter \"" + key + "\"");
  }
  return Status();
}

// Plain HTTP is served on loopback only; a Host naming anything else is a browser led there by
// DNS rebinding (a site's name re-pointed at 127.0.0.1), whose page must not read the API.
bool LoopbackHost(const std::string& host) {
  std::string name = host;
  if (!name.empty() && name[0] == '[') {
    name = name.substr(1, name.find(']') - 1);
  } else if (size_t colon = name.rfind(':'); colon != std::string::npos) {
    name = name.substr(0, colon);
  }
  return IsLoopbackHost(name);
}

HttpResponse FromStatus(const Status& s) {
  switch (s.code()) {
    case Code::kNotFound:
      return HttpResponse::Error(404, s.message());
    case Code::kInvalidArgument:
      return HttpResponse::Error(400, s.message());
    case Code::kFailedPrecondition:
      return HttpResponse::Error(409, s.message());
    case Code::kUnavailable:
      return HttpResponse::Error(503, s.message());
    default:
      return HttpResponse::Error(500, s.message());
  }
}

Json LabelsJson(const RunLabels& labels) {
  Json j = Json::object();
  for (const auto& [k, v] : labels) j[k] = v;
  return j;
}

std::string ContentTypeOf(const std::string& name) {
  const std::string ext = std::filesystem::path(name).extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".md") return "text/markdown; charset=utf-8";
  if (ext == ".csv") return "text/csv; charset=utf-8";
  if (ext == ".yaml") return "text/yaml; charset=utf-8";
  if (ext == ".log") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace

ServeApi::ServeApi(ServeService& service, std::string chart_js) : service_(service), chart_js_(std::move(chart_js)) {}

HttpResponse ServeApi::Handle(const HttpRequest& request) {
  const ServeConfig& config = service_.config();
  const std::string& p = request.path;
  if (config.tls_dir.empty() && !LoopbackHost(request.host)) {
    return HttpResponse::Error(421, "Host \"" + request.host + "\" is not a loopback address: plain HTTP answers only "
                                    "http://127.0.0.1, http://[::1] and http://localhost");
  }
  // The page's own files hold no data and /healthz says only that serve answers: a browser
  // cannot send a token with a navigation, and probes carry none.
  const bool shell = p == "/" || p == "/index.html" || p.rfind("/static/", 0) == 0 || p == "/healthz";
  if (!(shell && Reading(request))) {
    bool allowed = (Reading(request) && config.public_read) || BearerTokenMatches(request.authorization, config.token);
    if (!allowed && Reading(request) && p.rfind("/reports/", 0) == 0) {
      auto expires = request.query.find("expires");
      auto sig = request.query.find("sig");
      allowed = expires != request.query.end() && sig != request.query.end() &&
                ReportTicketValid(config.token, p, expires->second, sig->second, UnixNowNs() / 1'000'000'000);
    }
    if (!allowed) {
      HttpResponse r = HttpResponse::Error(401, "this needs the bearer token: Authorization: Bearer <the token in " +
                                                    std::string(config.public_read ? "token_file>" : "token_file> (public_read is off)"));
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"iofleet\"");
      return r;
    }
  }
  return Route(request);
}

HttpResponse ServeApi::Route(const HttpRequest& request) {
  const std::string& p = request.path;
  const std::vector<std::string> s = Segments(p);
  const bool read = Reading(request);
  const bool post = request.method == "POST";

  if (p == "/" || p == "/index.html") {
    if (!read) return MethodNotAllowed("GET");
    HttpResponse r;
    r.content_type = "text/html; charset=utf-8";
    r.body = ServePageHtml();
    r.headers.emplace_back("Content-Security-Policy", ServePageCsp());
    return r;
  }
  if (p == "/static/page.js" || p == "/static/page.css" || p == "/static/chart.js") {
    if (!read) return MethodNotAllowed("GET");
    HttpResponse r;
    if (p == "/static/page.js") {
      r.content_type = "text/javascript; charset=utf-8";
      r.body = ServePageJs();
    } else if (p == "/static/page.css") {
      r.content_type = "text/css; charset=utf-8";
      r.body = ServePageCss();
    } else {
      if (chart_js_.empty()) return HttpResponse::Error(404, "Chart.js is not installed (Debian's libjs-chart.js)");
      r.content_type = "text/javascript; charset=utf-8";
      r.body = chart_js_;
    }
    r.headers.emplace_back("Cache-Control", "private, max-age=300");
    return r;
  }
  if (p == "/healthz") {
    if (!read) return MethodNotAllowed("GET");
    return HttpResponse::Json(200, R"({"status": "ok"})");
  }
  if (p == "/metrics") {
    if (!read) return MethodNotAllowed("GET");
    return Metrics();
  }
  if (!s.empty() && s[0] == "reports") {
    if (!read) return MethodNotAllowed("GET");
    if (s.size() != 4) return HttpResponse::Error(404, "reports are at /reports/SUITE/RUN_ID/FILE");
    return ReportFile(s[1] + "/" + s[2] + "/" + s[3]);
  }
  if (s.size() >= 2 && s[0] == "api" && s[1] == "v1") {
    if (Status q = UnknownParameters(request, {"suite", "state", "last"}); !q.ok()) return FromStatus(q);
    if (s.size() == 3 && s[2] == "runs") return read ? Runs(request) : MethodNotAllowed("GET");
    if (s.size() == 4 && s[2] == "runs") return read ? OneRun(s[3]) : MethodNotAllowed("GET");
    if (s.size() == 5 && s[2] == "runs" && s[4] == "cancel") return post ? CancelRun(s[3], request) : MethodNotAllowed("POST");
    if (s.size() == 3 && s[2] == "suites") return read ? SuitesList() : MethodNotAllowed("GET");
    if (s.size() == 5 && s[2] == "suites" && s[4] == "history") return read ? SuiteHistory(s[3], request) : MethodNotAllowed("GET");
    if (s.size() == 5 && s[2] == "suites" && (s[4] == "runs" || s[4] == "pause" || s[4] == "resume")) {
      return post ? SuiteAction(s[3], s[4], request) : MethodNotAllowed("POST");
    }
  }
  return HttpResponse::Error(404, "no such page: " + p);
}

namespace {

Json RunJson(const ServeRun& run, const ServeService& service) {
  Json j = {{"run_id", run.run_id},
            {"suite", run.suite},
            {"fleet", run.fleet},
            {"reason", run.reason},
            {"state", run.state},
            {"status", run.status},
            {"verdict", run.verdict},
            {"due_unix_ns", run.due_unix_ns},
            {"queued_at_unix_ns", run.queued_at_unix_ns},
            {"started_at_unix_ns", run.started_at_unix_ns},
            {"finished_at_unix_ns", run.finished_at_unix_ns}};
  if (run.state == "done" && run.started_at_unix_ns && run.finished_at_unix_ns >= run.started_at_unix_ns) {
    j["duration_seconds"] = static_cast<double>(run.finished_at_unix_ns - run.started_at_unix_ns) / 1e9;
  }
  if (run.state == "done") j["exit_code"] = run.exit_code;
  j["error"] = run.error;
  // What the run ran with (the config may have changed since).
  Json labels = Json::parse(run.labels_json, nullptr, /*allow_exceptions=*/false);
  j["labels"] = labels.is_object() ? labels : Json::object();
  std::error_code ec;
  const std::filesystem::path dir = service.RunDirectory(run);
  if (std::filesystem::exists(dir / "report.html", ec)) {
    const std::string path = "/reports/" + run.suite + "/" + run.run_id + "/report.html";
    j["report"] = path;
    // Opened by navigation in a new tab, which carries no token: signed for an hour.
    j["report_url"] = SignedReportUrl(service.config().token, path, UnixNowNs() / 1'000'000'000 + kReportTicketSeconds);
  }
  return j;
}

}  // namespace

HttpResponse ServeApi::Runs(const HttpRequest& request) {
  auto last = LastParameter(request);
  if (!last.ok()) return FromStatus(last.status());
  ServeRunFilter filter;
  filter.last = *last;
  if (auto it = request.query.find("suite"); it != request.query.end()) filter.suite = it->second;
  if (auto it = request.query.find("state"); it != request.query.end()) {
    filter.state = it->second;
    if (filter.state != "queued" && filter.state != "running" && filter.state != "done") {
      return HttpResponse::Error(400, "state=" + filter.state + ": expected queued, running or done");
    }
  }
  auto runs = service_.store().Runs(filter);
  if (!runs.ok()) return FromStatus(runs.status());
  Json list = Json::array();
  for (const auto& r : *runs) list.push_back(RunJson(r, service_));
  return HttpResponse::Json(200, Json{{"runs", std::move(list)}}.dump(2));
}

// The run as the queue knows it, and its report.json document whole (from its directory, or
// from the history once keep_runs removed the directory).
HttpResponse ServeApi::OneRun(const std::string& run_id) {
  auto run = service_.store().Find(run_id);
  if (!run.ok()) return FromStatus(run.status());
  if (!run->has_value()) return HttpResponse::Error(404, "no run " + run_id);
  Json j = RunJson(**run, service_);
  auto db = HistoryDb::Open(service_.config().db);
  if (!db.ok()) return FromStatus(db.status());
  auto stored = (*db)->Load(run_id);
  if (stored.ok()) {
    auto doc = ParseReportJson(stored->report_json, "history run " + run_id);
    if (doc.ok()) j["report_document"] = std::move(*doc);
  } else if (stored.status().code() != Code::kNotFound) {
    return FromStatus(stored.status());
  }
  return HttpResponse::Json(200, j.dump(2));
}

HttpResponse ServeApi::CancelRun(const std::string& run_id, const HttpRequest& request) {
  if (Status b = CheckPostBody(request, ""); !b.ok()) return FromStatus(b);
  auto run = service_.Cancel(run_id);
  if (!run.ok()) return FromStatus(run.status());
  return HttpResponse::Json(202, RunJson(*run, service_).dump(2));
}

HttpResponse ServeApi::SuitesList() {
  auto states = service_.Suites();
  if (!states.ok()) return FromStatus(states.status());
  Json list = Json::array();
  for (const auto& st : *states) {
    const ServeSuite& suite = *st.suite;
    Json j = {{"name", suite.name}, {"fleet", suite.fleet}, {"workload", suite.workload.name()}, {"workload_file", suite.workload_file}};
    if (suite.cron) j["schedule"] = suite.cron->text();
    if (suite.every.count()) j["every_seconds"] = static_cast<double>(suite.every.count()) / 1e9;
    j["paused"] = st.paused;
    j["next_run_unix_ns"] = st.next_due_unix_ns ? Json(*st.next_due_unix_ns) : Json(nullptr);
    j["running"] = st.running;
    j["queued"] = st.queued;
    j["labels"] = LabelsJson(suite.labels);
    if (suite.verdicts) {
      j["compare_to"] = suite.verdicts->reference.ToString();
      j["max_regression"] = suite.verdicts->max_regression_pct;
    }
    j["missed"] = suite.missed == MissedPolicy::kRunOnce ? "run_once" : "skip";
    j["webhook"] = !suite.webhook.empty();  // the URL may hold a secret
    auto last = service_.store().Runs({suite.name, "done", 1});
    if (last.ok() && !last->empty()) j["last_run"] = RunJson(last->front(), service_);
    list.push_back(std::move(j));
  }
  return HttpResponse::Json(200, Json{{"suites", std::move(list)}}.dump(2));
}

// The suite's runs in the history (its workload and labels, as its baselines are chosen) and
// each figure's per-run mean over them, with the change points E-divisive finds.
HttpResponse ServeApi::SuiteHistory(const std::string& name, const HttpRequest& request) {
  const ServeSuite* suite = service_.FindSuite(name);
  if (!suite) return HttpResponse::Error(404, "no suite named " + name);
  auto last = LastParameter(request);
  if (!last.ok()) return FromStatus(last.status());
  auto db = HistoryDb::Open(service_.config().db);
  if (!db.ok()) return FromStatus(db.status());
  RunFilter filter;
  filter.workload = suite->workload.name();
  filter.labels = {suite->labels.begin(), suite->labels.end()};
  filter.exact_labels = true;
  filter.last = *last;
  auto runs = (*db)->Runs(filter);
  if (!runs.ok()) return FromStatus(runs.status());
  Json run_list = Json::array();
  struct Series {
    std::vector<double> values;
    std::vector<const StoredRun*> runs;
  };
  std::map<FigureKey, Series> series;
  for (const StoredRun& r : *runs) {
    run_list.push_back({{"run_id", r.run_id},
                        {"started_at_unix_ns", r.started_at_unix_ns},
                        {"duration_ns", r.duration_ns},
                        {"status", wire::EnumText(r.status)},
                        {"verdict", r.verdict},
                        {"excluded", r.excluded}});
    if (r.status != v1::RUN_STATUS_SUCCEEDED || r.excluded) continue;
    auto figures = (*db)->Figures(r.run_id);
    if (!figures.ok()) return FromStatus(figures.status());
    for (const auto& [key, mean] : RunMeans(*figures)) {
      Series& s = series[key];
      s.values.push_back(mean);
      s.runs.push_back(&r);
    }
  }
  Json series_list = Json::array();
  for (const auto& [key, s] : series) {
    Json points = Json::array();
    for (size_t i = 0; i < s.values.size(); ++i) {
      points.push_back({{"run_id", s.runs[i]->run_id}, {"started_at_unix_ns", s.runs[i]->started_at_unix_ns}, {"value", s.values[i]}});
    }
    Json changes = Json::array();
    const size_t from = s.values.size() > kChangePointWindow ? s.values.size() - kChangePointWindow : 0;
    const std::vector<double> window(s.values.begin() + static_cast<std::ptrdiff_t>(from), s.values.end());
    for (ChangePoint c : FindChangePoints(window)) {
      c.index += from;
      changes.push_back({{"index", c.index},
                         {"run_id", s.runs[c.index]->run_id},
                         {"mean_before", c.mean_before},
                         {"mean_after", c.mean_after},
                         {"shift_pct", c.shift_pct},
                         {"p_value", c.p_value}});
    }
    Json entry = {{"step", key.step},
                  {"point", key.point},
                  {"figure", key.figure},
                  {"unit", UnitOf(key.figure)},
                  {"better", BetterOf(key.figure) == Better::kLower ? "lower" : "higher"},
                  {"points", std::move(points)},
                  {"change_points", std::move(changes)}};
    if (!key.stream.empty()) entry["stream"] = key.stream;
    series_list.push_back(std::move(entry));
  }
  Json j = {{"suite", name},
            {"workload", suite->workload.name()},
            {"labels", LabelsJson(suite->labels)},
            {"runs", std::move(run_list)},
            {"series", std::move(series_list)}};
  return HttpResponse::Json(200, j.dump(2));
}

HttpResponse ServeApi::SuiteAction(const std::string& name, const std::string& action, const HttpRequest& request) {
  if (!service_.FindSuite(name)) return HttpResponse::Error(404, "no suite named " + name);
  if (Status b = CheckPostBody(request, name); !b.ok()) return FromStatus(b);
  if (action == "runs") {
    auto queued = service_.RunNow(name);
    if (!queued.ok()) return FromStatus(queued.status());
    Json j = RunJson(queued->run, service_);
    j["already_queued"] = queued->already;
    return HttpResponse::Json(queued->already ? 200 : 202, j.dump(2));
  }
  if (Status s = service_.Pause(name, action == "pause"); !s.ok()) return FromStatus(s);
  return HttpResponse::Json(200, Json{{"suite", name}, {"paused", action == "pause"}}.dump(2));
}

HttpResponse ServeApi::ReportFile(const std::string& relative) {
  auto fd = OpenBeneath(service_.config().results, relative);
  if (!fd.ok()) {
    const bool missing = fd.status().code() == Code::kNotFound;
    return HttpResponse::Error(missing ? 404 : 403, missing ? "no such report file" : fd.status().message());
  }
  HttpResponse r;
  r.content_type = ContentTypeOf(relative);
  r.file = std::move(*fd);
  if (r.content_type.rfind("text/html", 0) == 0) {
    // report.html inlines its script and styles and fetches nothing (its own CSP says so too).
    // Sandboxed: its scripts run in an origin of their own, never serve's (nothing in a report
    // could reach the API with the page's token).
    r.headers.emplace_back("Content-Security-Policy",
                           "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                           "img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  }
  return r;
}

// Gauges built afresh at each scrape from the queue and the history: what serve knows now.
HttpResponse ServeApi::Metrics() {
  using prometheus::BuildGauge;
  prometheus::Registry registry;
  auto& info = BuildGauge().Name("iofleet_serve_info").Help("1, with this iofleet's version and git revision.").Register(registry);
  info.Add({{"version", kVersion}, {"revision", Revision()}}).Set(1);
  auto& queue = BuildGauge().Name("iofleet_serve_queue_length").Help("Runs waiting for their fleet.").Register(registry);
  auto& busy = BuildGauge().Name("iofleet_serve_fleet_busy").Help("1 while a run holds the fleet.").Register(registry);
  auto lengths = service_.store().QueueLengths();
  if (!lengths.ok()) return FromStatus(lengths.status());
  auto states = service_.Suites();
  if (!states.ok()) return FromStatus(states.status());
  std::map<std::string, bool> fleet_busy;
  for (const auto& [name, fleet] : service_.config().fleets) fleet_busy[name] = false;
  for (const auto& st : *states) fleet_busy[st.suite->fleet] = fleet_busy[st.suite->fleet] || !st.running.empty();
  for (const auto& [fleet, is_busy] : fleet_busy) {
    queue.Add({{"fleet", fleet}}).Set(static_cast<double>((*lengths)[fleet]));
    busy.Add({{"fleet", fleet}}).Set(is_busy ? 1 : 0);
  }
  auto& next = BuildGauge().Name("iofleet_serve_next_run_timestamp_seconds").Help("When the suite's schedule next falls due (absent: paused or no schedule).").Register(registry);
  auto& paused = BuildGauge().Name("iofleet_serve_suite_paused").Help("1 while the suite's schedule is paused.").Register(registry);
  auto& runs_total = BuildGauge().Name("iofleet_serve_runs").Help("Runs done, by how they ended (a gauge read from the database: it never resets).").Register(registry);
  auto& duration = BuildGauge().Name("iofleet_run_duration_seconds").Help("The suite's latest run, from start to report.").Register(registry);
  auto& status = BuildGauge().Name("iofleet_result_status").Help("1 for how the suite's latest run ended.").Register(registry);
  auto& stamp = BuildGauge().Name("iofleet_result_timestamp_seconds").Help("When the suite's latest run ended.").Register(registry);
  // Bandwidth, IOPS, latency and verdicts are written by push's ResultFamilies, as a push
  // writes them: one meaning and one set of labels per family (here cycle="mean").
  std::vector<ResultFigures> result_figures;
  std::vector<ResultVerdict> result_verdicts;
  auto& figure = BuildGauge().Name("iofleet_result_figure").Help("Every headline figure of the latest succeeded run (unit in the figure's name: docs/HISTORY.md), mean over its cycles.").Register(registry);
  // A run judged "not comparable" (its baselines ran another effective workload) has no verdict
  // series: 0 would read as "no regression". This says why they are missing.
  auto& comparable = BuildGauge().Name("iofleet_result_comparable").Help("1 when the suite's latest succeeded run had baselines of its own effective workload, 0 when its verdict was not comparable (docs/HISTORY.md).").Register(registry);
  auto counts = service_.store().DoneCounts();
  if (!counts.ok()) return FromStatus(counts.status());
  for (const auto& [key, n] : *counts) runs_total.Add({{"suite", key.first}, {"status", key.second}}).Set(static_cast<double>(n));
  auto db = HistoryDb::Open(service_.config().db);
  if (!db.ok()) return FromStatus(db.status());
  for (const auto& st : *states) {
    const ServeSuite& suite = *st.suite;
    const std::string workload = suite.workload.name();
    paused.Add({{"suite", suite.name}}).Set(st.paused ? 1 : 0);
    if (st.next_due_unix_ns) next.Add({{"suite", suite.name}}).Set(static_cast<double>(*st.next_due_unix_ns) / 1e9);
    auto latest = service_.store().Runs({suite.name, "done", 1});
    if (!latest.ok()) return FromStatus(latest.status());
    if (!latest->empty()) {
      const ServeRun& r = latest->front();
      status.Add({{"suite", suite.name}, {"workload", workload}, {"status", r.status}}).Set(1);
      stamp.Add({{"suite", suite.name}, {"workload", workload}}).Set(static_cast<double>(r.finished_at_unix_ns) / 1e9);
      if (r.started_at_unix_ns && r.finished_at_unix_ns >= r.started_at_unix_ns) {
        duration.Add({{"suite", suite.name}, {"workload", workload}}).Set(static_cast<double>(r.finished_at_unix_ns - r.started_at_unix_ns) / 1e9);
      }
    }
    // The latest succeeded run of the suite with figures in the history.
    auto done = service_.store().Runs({suite.name, "done", 0});
    if (!done.ok()) return FromStatus(done.status());
    for (const ServeRun& r : *done) {
      if (r.status != "succeeded") continue;
      auto stored = (*db)->Load(r.run_id);
      if (!stored.ok()) continue;  // recorded nowhere (the database was replaced): try an older one
      const PromLabels suite_labels = {{"suite", suite.name}, {"workload", workload}};
      std::map<std::tuple<std::string, int, std::string>, ResultFigures> means;  // by step, point and stream
      for (const auto& [key, mean] : RunMeans(stored->figures)) {
        std::map<std::string, std::string> labels = {{"suite", suite.name}, {"workload", workload}, {"step", key.step},
                                                     {"point", std::to_string(key.point)}, {"figure", key.figure}};
        if (!key.stream.empty()) labels["stream"] = key.stream;
        figure.Add(labels).Set(mean);
        ResultFigures& f = means[{key.step, key.point, key.stream}];
        f.labels = suite_labels;
        f.stream = key.stream;
        f.step = key.step;
        f.point = static_cast<uint32_t>(key.point);
        f.cycle = "mean";
        if (key.figure == "bandwidth") f.bytes_per_sec = mean;
        if (key.figure == "iops") f.iops = mean;
        if (key.figure == "p99_latency") f.latency_seconds.emplace_back("0.99", mean);
      }
      for (auto& [key, f] : means) result_figures.push_back(std::move(f));
      auto doc = ParseReportDocument(stored->report_json, "history run " + r.run_id);
      if (doc.ok() && doc->has_verdicts()) {
        const v1::ReportVerdicts& verdicts = doc->verdicts();
        comparable.Add({{"suite", suite.name}, {"workload", workload}}).Set(verdicts.verdict() == v1::VERDICT_NOT_COMPARABLE ? 0 : 1);
        for (const v1::ReportStepVerdicts& step : verdicts.steps()) {
          for (const v1::ReportFigureVerdict& f : step.figures()) {
            if (f.verdict() == v1::VERDICT_NOT_ENOUGH_HISTORY || f.verdict() == v1::VERDICT_NOT_COMPARABLE) continue;
            result_verdicts.push_back(
                {suite_labels, step.step(), static_cast<uint32_t>(step.point()), f.figure(), f.verdict() == v1::VERDICT_REGRESSION,
                 f.stream()});
          }
        }
      }
      break;
    }
  }
  auto& failures = BuildGauge().Name("iofleet_serve_webhook_failures").Help("Webhook POSTs that failed since serve started.").Register(registry);
  failures.Add({}).Set(static_cast<double>(service_.webhook_failures()));
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = prometheus::TextSerializer().Serialize(registry.Collect()) + ResultFamilies(result_figures, result_verdicts);
  return r;
}

}  // namespace iofleet::controller
