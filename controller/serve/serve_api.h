// iofleet serve's HTTP surface: the page, the JSON API (/api/v1/...), /metrics, /healthz and
// the report files, with the security rules of DESIGN.md section 6: the bearer token
// on every request but the page's own files and /healthz (and GETs with public_read), a POST
// names a suite and nothing else, report files only from the results directory.
#pragma once

#include <string>

#include "controller/serve/http_server.h"
#include "controller/serve/serve_service.h"

namespace iofleet::controller {

class ServeApi {
 public:
  // `chart_js`: Chart.js for the page's trend charts (served at /static/chart.js); empty: the
  // page says the charts are missing and shows the tables.
  ServeApi(ServeService& service, std::string chart_js);

  HttpResponse Handle(const HttpRequest& request);

 private:
  HttpResponse Route(const HttpRequest& request);
  HttpResponse Runs(const HttpRequest& request);
  HttpResponse OneRun(const std::string& run_id);
  HttpResponse CancelRun(const std::string& run_id, const HttpRequest& request);
  HttpResponse SuitesList();
  HttpResponse SuiteHistory(const std::string& suite, const HttpRequest& request);
  HttpResponse SuiteAction(const std::string& suite, const std::string& action, const HttpRequest& request);
  HttpResponse ReportFile(const std::string& relative);
  HttpResponse Metrics();

  ServeService& service_;
  const std::string chart_js_;
};

}  // namespace iofleet::controller
