// iofleet-agent: runs workloads for a controller, beneath the roots it was started with.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "core/wire/abseil_mutexes.h"
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

// The command line.
struct AgentOptions {
  std::string listen;
  std::vector<std::string> roots_specs;
  std::string name;
  bool insecure = false;
  std::string tls_dir;
  std::string config_path;
  std::string metrics_address;
};

void AddOptions(CLI::App& app, AgentOptions& o) {
  app.add_option("--listen", o.listen, "ADDR to serve on: host:port, [::1]:port or unix:PATH")->required();
  app.add_option("--root", o.roots_specs, "[NAME=]DIR the agent may work in (repeatable); the first unnamed is \"default\"")->required();
  app.add_option("--name", o.name, "agent name (default: the hostname)");
  app.add_flag("--insecure", o.insecure, "serve without TLS: only on loopback or a unix socket");
  app.add_option("--config", o.config_path, "the agent's own config (agent.yaml): what this host allows, e.g. allow_drop_caches");
  app.add_option("--metrics", o.metrics_address, "serve Prometheus metrics on http://ADDR/metrics (host:port; docs use port 7071)");
  app.set_version_flag("--version", std::string("iofleet-agent ") + iofleet::VersionText(), "print the version and git revision");
  app.add_option("--tls-dir", o.tls_dir, "mutual TLS: DIR holds ca.pem, cert.pem, key.pem; clients need a certificate signed by ca.pem");
}

// Mutual TLS from --tls-dir, or none with --insecure on loopback or a unix socket only: exactly
// one of the two. Null (printed) when refused.
std::shared_ptr<grpc::ServerCredentials> CredentialsOf(const AgentOptions& o) {
  if (o.insecure == !o.tls_dir.empty()) {
    std::cerr << "iofleet-agent: pass --tls-dir DIR (mutual TLS), or --insecure (loopback or unix socket only)\n";
    return nullptr;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!o.tls_dir.empty()) {
    auto tls = iofleet::ReadTlsDir(o.tls_dir);
    if (!tls.ok()) {
      std::cerr << "iofleet-agent: " << tls.status().message() << "\n";
      return nullptr;
    }
    grpc::SslServerCredentialsOptions options(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    options.pem_root_certs = tls->ca;
    options.pem_key_cert_pairs.push_back({tls->key, tls->cert});
    credentials = grpc::SslServerCredentials(options);
  }
  if (o.insecure && !iofleet::agent::IsLoopbackOrUnix(o.listen)) {
    std::cerr << "iofleet-agent: --insecure serves only on loopback or a unix socket, not " << o.listen << "\n";
    return nullptr;
  }
  return credentials;
}

// --config's file, or the defaults without it; false (printed) when it does not load.
bool LoadConfig(const std::string& path, iofleet::agent::AgentConfig& config) {
  if (path.empty()) return true;
  auto loaded = iofleet::agent::LoadAgentConfig(path);
  if (!loaded.ok()) {
    std::cerr << "iofleet-agent: " << loaded.status().message() << "\n";
    return false;
  }
  config = *loaded;
  return true;
}

// --listen and --metrics both free before anything starts: one in use is another agent's (or a
// metrics port's). False (printed) when one is not, or --metrics is no address.
bool AddressesFree(const AgentOptions& o) {
  if (!o.metrics_address.empty()) {
    if (auto parsed = iofleet::agent::ParseMetricsAddress(o.metrics_address); !parsed.ok()) {
      std::cerr << "iofleet-agent: " << parsed.status().message() << "\n";
      return false;
    }
  }
  for (const std::string& address : {o.listen, o.metrics_address}) {
    if (address.empty()) continue;
    if (iofleet::Status free = iofleet::CheckListenAddressFree(address); !free.ok()) {
      std::cerr << "iofleet-agent: " << (address == o.listen ? "--listen " : "--metrics ") << address
                << (address == o.listen ? ": cannot listen there: " : ": cannot serve metrics there: ") << free.message() << "\n";
      return false;
    }
  }
  return true;
}

// The agent's gRPC server on `listen`; null when it cannot listen there. `port`: the one bound.
std::unique_ptr<grpc::Server> StartServer(const std::string& listen, std::shared_ptr<grpc::ServerCredentials> credentials,
                                          iofleet::agent::AgentService& service, int& port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, credentials, &port);
  // gRPC's default SO_REUSEPORT would let a second agent bind this port and take half the
  // connections: a port in use must fail here instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // A silently vanished controller is noticed within 13 s: its streams are cancelled, the
  // step's I/O stops, and the lease then ends the run. Not sooner: a controller that could not
  // run for less than the lease (10 s) must find its run still going (issue 23).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 11000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || (listen.rfind("unix:", 0) != 0 && port == 0)) return nullptr;
  return server;
}

}  // namespace

int main(int argc, char** argv) {
  iofleet::wire::SkipAbseilDeadlockDetection();
  CLI::App app{"iofleet-agent: runs iofleet workloads on this host, beneath its --root directories"};
  AgentOptions o;
  AddOptions(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitRejected;
  }

  std::shared_ptr<grpc::ServerCredentials> credentials = CredentialsOf(o);
  if (!credentials) return kExitRejected;
  auto roots = iofleet::agent::Roots::Open(o.roots_specs);
  if (!roots.ok()) {
    std::cerr << "iofleet-agent: " << roots.status().message() << "\n";
    return kExitRejected;
  }
  if (o.name.empty()) o.name = Hostname();
  iofleet::agent::AgentConfig config;
  if (!LoadConfig(o.config_path, config)) return kExitRejected;

  // Signals are taken synchronously by the main thread only.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  if (!AddressesFree(o)) return kExitRejected;
  iofleet::agent::Supervisor supervisor(*roots, o.name, config);
  // Serves for the agent's whole life, idle or running; destroyed before the supervisor.
  std::unique_ptr<iofleet::agent::MetricsServer> metrics;
  if (!o.metrics_address.empty()) {
    auto collector = std::make_shared<iofleet::agent::AgentCollector>(
        supervisor, iofleet::agent::AgentIdentity{o.name, iofleet::kVersion, iofleet::Revision()});
    auto started = iofleet::agent::MetricsServer::Start(o.metrics_address, std::move(collector));
    if (!started.ok()) {
      std::cerr << "iofleet-agent: " << started.status().message() << "\n";
      return kExitRejected;
    }
    metrics = std::move(*started);
  }
  iofleet::agent::AgentService service(supervisor);
  int port = 0;
  std::unique_ptr<grpc::Server> server = StartServer(o.listen, credentials, service, port);
  if (!server) {
    std::cerr << "iofleet-agent: cannot listen on " << o.listen << " (in use, or not an address of this host)\n";
    return kExitRejected;
  }
  std::string shown = o.listen;
  if (o.listen.rfind("unix:", 0) != 0 && port > 0) shown = o.listen.substr(0, o.listen.rfind(':') + 1) + std::to_string(port);
  std::cout << "iofleet-agent " << iofleet::VersionText() << ": " << o.name << " listening on " << shown << std::endl;
  if (metrics) std::cout << "iofleet-agent: metrics on http://" << metrics->address() << "/metrics" << std::endl;

  int received = 0;
  sigwait(&signals, &received);
  if (received == SIGINT) std::cerr << "iofleet-agent: interrupted: stopping\n";
  supervisor.Shutdown();
  // The run is already ended; RPCs still open (a controller that keeps its connection) are cancelled.
  server->Shutdown(std::chrono::system_clock::now());
  return 0;
}
