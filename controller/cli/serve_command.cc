#include "controller/cli/serve_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <iostream>

#include "controller/report/html_report.h"
#include "controller/run/run_manager.h"
#include "controller/serve/http_server.h"
#include "controller/serve/serve_api.h"
#include "controller/serve/serve_config.h"
#include "controller/serve/serve_service.h"
#include "controller/serve/serve_store.h"
#include "core/base/unique_fd.h"

namespace iofleet::controller {

int ServeCommand(const ServeCommandOptions& options) {
  // SIGTERM and SIGINT are taken by sigwait below: blocked first, before any thread starts (gRPC
  // starts its own), so that every thread inherits the mask and none is interrupted by them.
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

  // The port first: a listen address in use or a certificate that does not load refuses the
  // config before anything is created. Requests that come before the service is ready are 503.
  std::atomic<ServeApi*> ready{nullptr};
  HttpServerOptions http;
  http.listen = config.listen;
  http.tls_dir = config.tls_dir;
  http.threads = 4;  // a history request with change points may take a while: others go on
  auto server = HttpServer::Start(http, [&ready](const HttpRequest& r) {
    ServeApi* api = ready.load();
    return api ? api->Handle(r) : HttpResponse::Error(503, "iofleet serve is starting");
  });
  if (!server.ok()) {
    std::cerr << "iofleet: " << options.config << ": listen " << config.listen << ": " << server.status().message()
              << "; nothing was started\n";
    return kExitRejected;
  }
  // One serve per database: a second would take the first one's runs for lost and run queued
  // runs twice. The lock goes with the process (flock), whatever way it ends.
  const std::string lock_path = config.db + ".serve-lock";
  UniqueFd lock(open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid() || flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::cerr << "iofleet: " << options.config << ": db " << config.db << ": "
              << (err == EWOULDBLOCK ? "another iofleet serve uses this database (" + lock_path + " is locked)"
                                     : PosixError(lock_path, err).message())
              << "; nothing was started\n";
    (*server)->Stop();
    return kExitRejected;
  }
  std::error_code ec;
  std::filesystem::create_directories(config.results, ec);
  if (ec) {
    std::cerr << "iofleet: " << options.config << ": results " << config.results << ": " << ec.message() << "; nothing was started\n";
    (*server)->Stop();
    return kExitRejected;
  }
  auto store = ServeStore::Open(config.db);
  if (!store.ok()) {
    std::cerr << "iofleet: " << options.config << ": db: " << store.status().message() << "; nothing was started\n";
    (*server)->Stop();
    return kExitRejected;
  }
  HtmlAssets assets = LoadHtmlAssets({});
  if (!assets.chart_js) {
    std::cerr << "iofleet serve: the page's trend charts need Chart.js: " << assets.chart_js_path
              << " cannot be read (install libjs-chart.js)\n";
  }
  ServeService service(config, **store, std::cerr);
  ServeApi api(service, assets.chart_js.value_or(""));
  if (Status s = service.Start(); !s.ok()) {
    std::cerr << "iofleet serve: " << s.message() << "\n";
    (*server)->Stop();
    return kExitFailed;
  }
  ready = &api;
  const std::string host = config.listen.substr(0, config.listen.rfind(':'));
  std::cerr << "iofleet serve: " << config.suites.size() << " suite(s) on " << config.fleets.size() << " fleet(s); "
            << ((*server)->tls() ? "https://" : "http://") << host << ":" << (*server)->port() << "/" << std::endl;
  int signo = 0;
  sigwait(&stop_signals, &signo);
  const char* why = signo == SIGTERM ? "iofleet serve stopping (SIGTERM)" : "iofleet serve stopping (Ctrl-C)";
  std::cerr << "iofleet serve: " << why << ": ending the running runs" << std::endl;
  service.Stop(why);
  (*server)->Stop();
  ready = nullptr;
  std::cerr << "iofleet serve: stopped" << std::endl;
  return kExitOk;
}

}  // namespace iofleet::controller
