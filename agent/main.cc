// iofleet-agent: runs workloads for a controller, beneath the roots it was started with.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "agent/metrics/agent_collector.h"
#include "agent/metrics/metrics_server.h"
#include "agent/host/agent_config.h"
#include "agent/fs/roots.h"
#include "agent/run/supervisor.h"
#include "agent/service/agent_service.h"
#include "agent/service/listen_address.h"
#include "core/base/address_in_use.h"
#include "core/base/exit_code.h"
#include "core/base/tls_files.h"
#include "core/base/version.h"

namespace {

using iofleet::kExitOk;
using iofleet::kExitRejected;

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "agent";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"iofleet-agent: runs iofleet workloads on this host, beneath its --root directories"};
  std::string listen;
  std::vector<std::string> roots_specs;
  std::string name;
  bool insecure = false;
  std::string tls_dir;
  std::string config_path;
  std::string metrics_address;
  app.add_option("--listen", listen, "ADDR to serve on: host:port, [::1]:port or unix:PATH")->required();
  app.add_option("--root", roots_specs, "[NAME=]DIR the agent may work in (repeatable); the first unnamed is \"default\"")->required();
  app.add_option("--name", name, "agent name (default: the hostname)");
  app.add_flag("--insecure", insecure, "serve without TLS: only on loopback or a unix socket");
  app.add_option("--config", config_path, "the agent's own config (agent.yaml): what this host allows, e.g. allow_drop_caches");
  app.add_option("--metrics", metrics_address, "serve Prometheus metrics on http://ADDR/metrics (host:port; docs use port 7071)");
  app.set_version_flag("--version", std::string("iofleet-agent ") + iofleet::VersionText(), "print the version and git revision");
  app.add_option("--tls-dir", tls_dir, "mutual TLS: DIR holds ca.pem, cert.pem, key.pem; clients need a certificate signed by ca.pem");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitRejected;
  }

  if (insecure == !tls_dir.empty()) {
    std::cerr << "iofleet-agent: pass --tls-dir DIR (mutual TLS), or --insecure (loopback or unix socket only)\n";
    return kExitRejected;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!tls_dir.empty()) {
    auto tls = iofleet::ReadTlsDir(tls_dir);
    if (!tls.ok()) {
      std::cerr << "iofleet-agent: " << tls.status().message() << "\n";
      return kExitRejected;
    }
    grpc::SslServerCredentialsOptions options(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    options.pem_root_certs = tls->ca;
    options.pem_key_cert_pairs.push_back({tls->key, tls->cert});
    credentials = grpc::SslServerCredentials(options);
  }
  if (insecure && !iofleet::agent::IsLoopbackOrUnix(listen)) {
    std::cerr << "iofleet-agent: --insecure serves only on loopback or a unix socket, not " << listen << "\n";
    return kExitRejected;
  }
  auto roots = iofleet::agent::Roots::Open(roots_specs);
  if (!roots.ok()) {
    std::cerr << "iofleet-agent: " << roots.status().message() << "\n";
    return kExitRejected;
  }
  if (name.empty()) name = Hostname();
  iofleet::agent::AgentConfig config;
  if (!config_path.empty()) {
    auto loaded = iofleet::agent::LoadAgentConfig(config_path);
    if (!loaded.ok()) {
      std::cerr << "iofleet-agent: " << loaded.status().message() << "\n";
      return kExitRejected;
    }
    config = *loaded;
  }

  // Signals are taken synchronously by the main thread only.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  if (!metrics_address.empty()) {
    if (auto parsed = iofleet::agent::ParseMetricsAddress(metrics_address); !parsed.ok()) {
      std::cerr << "iofleet-agent: " << parsed.status().message() << "\n";
      return kExitRejected;
    }
  }

  // Both addresses before anything starts: one in use is another agent's (or a metrics port's).
  for (const std::string& address : {listen, metrics_address}) {
    if (address.empty()) continue;
    if (iofleet::Status free = iofleet::CheckListenAddressFree(address); !free.ok()) {
      std::cerr << "iofleet-agent: " << (address == listen ? "--listen " : "--metrics ") << address
                << (address == listen ? ": cannot listen there: " : ": cannot serve metrics there: ") << free.message() << "\n";
      return kExitRejected;
    }
  }
  iofleet::agent::Supervisor supervisor(*roots, name, config);
  // Serves for the agent's whole life, idle or running; destroyed before the supervisor.
  std::unique_ptr<iofleet::agent::MetricsServer> metrics;
  if (!metrics_address.empty()) {
    auto collector = std::make_shared<iofleet::agent::AgentCollector>(
        supervisor, iofleet::agent::AgentIdentity{name, iofleet::kVersion, iofleet::Revision()});
    auto started = iofleet::agent::MetricsServer::Start(metrics_address, std::move(collector));
    if (!started.ok()) {
      std::cerr << "iofleet-agent: " << started.status().message() << "\n";
      return kExitRejected;
    }
    metrics = std::move(*started);
  }
  iofleet::agent::AgentService service(supervisor);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, credentials, &port);
  // gRPC's default SO_REUSEPORT would let a second agent bind this port and take half the
  // connections: a port in use must fail here instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // A silently vanished controller is noticed within 8 s: its streams are cancelled, the
  // step's I/O stops, and the lease then ends the run.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 6000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || (listen.rfind("unix:", 0) != 0 && port == 0)) {
    std::cerr << "iofleet-agent: cannot listen on " << listen << " (in use, or not an address of this host)\n";
    return kExitRejected;
  }
  std::string shown = listen;
  if (listen.rfind("unix:", 0) != 0 && port > 0) shown = listen.substr(0, listen.rfind(':') + 1) + std::to_string(port);
  std::cout << "iofleet-agent " << iofleet::VersionText() << ": " << name << " listening on " << shown << std::endl;
  if (metrics) std::cout << "iofleet-agent: metrics on http://" << metrics->address() << "/metrics" << std::endl;

  int received = 0;
  sigwait(&signals, &received);
  if (received == SIGINT) std::cerr << "iofleet-agent: interrupted: stopping\n";
  supervisor.Shutdown();
  // The run is already ended; RPCs still open (a controller that keeps its connection) are cancelled.
  server->Shutdown(std::chrono::system_clock::now());
  return 0;
}
