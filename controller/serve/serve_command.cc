#include "controller/serve/serve_command.h"

#include <signal.h>
#include <time.h>

#include <filesystem>
#include <iostream>

#include "controller/report/html_report.h"
#include "controller/run/run_manager.h"
#include "controller/serve/http_server.h"
#include "controller/serve/serve_api.h"
#include "controller/serve/serve_config.h"
#include "controller/serve/serve_service.h"
#include "controller/serve/serve_store.h"

namespace iofleet::controller {

int ServeCommand(const ServeCommandOptions& options) {
  // SIGTERM and SIGINT are taken by sigwait below: blocked first, before any thread starts (gRPC starts its own), so
  // that every thread inherits the mask and none is interrupted by them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  tzset();  // time_zone: local reads the system's zone (TZ, /etc/localtime) once, here
  LoadedServeConfig loaded = LoadServeConfig(options.config);
  for (const auto& w : loaded.warnings) std::cerr << "iofleet: warning: " << w << "\n";
  for (const auto& e : loaded.errors) std::cerr << e << "\n";
  if (!loaded.errors.empty()) {
    std::cerr << "iofleet: " << loaded.errors.size() << " error(s) in " << options.config << "; nothing was started\n";
    return kExitRejected;
  }
  const ServeConfig& config = loaded.config;
  if (options.check) {
    std::cout << options.config << ": " << config.suites.size() << " suite(s) on " << config.fleets.size() << " fleet(s): valid\n";
    return kExitOk;
  }

  std::error_code ec;
  std::filesystem::create_directories(config.results, ec);
  if (ec) {
    std::cerr << "iofleet: " << options.config << ": results " << config.results << ": " << ec.message() << "; nothing was started\n";
    return kExitRejected;
  }
  auto store = ServeStore::Open(config.db);
  if (!store.ok()) {
    std::cerr << "iofleet: " << options.config << ": db: " << store.status().message() << "; nothing was started\n";
    return kExitRejected;
  }
  HtmlAssets assets = LoadHtmlAssets({});
  if (!assets.chart_js) std::cerr << "iofleet serve: the page's trend charts need Chart.js: " << assets.chart_js_path << " cannot be read (install libjs-chart.js)\n";
  ServeService service(config, **store, std::cerr);
  ServeApi api(service, assets.chart_js.value_or(""));
  HttpServerOptions http;
  http.listen = config.listen;
  http.tls_dir = config.tls_dir;
  auto server = HttpServer::Start(http, [&api](const HttpRequest& r) { return api.Handle(r); });
  if (!server.ok()) {
    std::cerr << "iofleet: " << options.config << ": listen " << config.listen << ": " << server.status().message()
              << "; nothing was started\n";
    return kExitRejected;
  }
  if (Status s = service.Start(); !s.ok()) {
    std::cerr << "iofleet serve: " << s.message() << "\n";
    (*server)->Stop();
    return kExitFailed;
  }
  const std::string host = config.listen.substr(0, config.listen.rfind(':'));
  std::cerr << "iofleet serve: " << config.suites.size() << " suite(s) on " << config.fleets.size() << " fleet(s); "
            << ((*server)->tls() ? "https://" : "http://") << host << ":" << (*server)->port() << "/" << std::endl;
  int signo = 0;
  sigwait(&stop_signals, &signo);
  const char* why = signo == SIGTERM ? "iofleet serve stopping (SIGTERM)" : "iofleet serve stopping (Ctrl-C)";
  std::cerr << "iofleet serve: " << why << ": ending the running runs" << std::endl;
  service.Stop(why);
  (*server)->Stop();
  std::cerr << "iofleet serve: stopped" << std::endl;
  return kExitOk;
}

}  // namespace iofleet::controller
