// Many agent instances in one process, each a real gRPC server on its own loopback port with its
// own supervisor and root: for measuring the controller's fan-in at hundreds of agents without
// hundreds of processes. Not for production: every instance serves --insecure on 127.0.0.1.
//
//   multi_agent --count 250 --base-port 20000 --root DIR [--name-prefix h0-]
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "core/wire/abseil_mutexes.h"
#include "agent/fs/roots.h"
#include "agent/run/supervisor.h"
#include "agent/service/agent_service.h"

int main(int argc, char** argv) {
  iofleet::wire::SkipAbseilDeadlockDetection();
  CLI::App app{"multi_agent: N iofleet agents in one process, for fan-in benchmarks"};
  int count = 1, base_port = 20000;
  std::string root, prefix = "agent-";
  app.add_option("--count", count)->required();
  app.add_option("--base-port", base_port)->required();
  app.add_option("--root", root)->required();
  app.add_option("--name-prefix", prefix);
  CLI11_PARSE(app, argc, argv);

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  struct Instance {
    std::unique_ptr<iofleet::agent::Roots> roots;
    std::unique_ptr<iofleet::agent::Supervisor> supervisor;
    std::unique_ptr<iofleet::agent::AgentService> service;
    std::unique_ptr<grpc::Server> server;
  };
  std::vector<Instance> instances(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    Instance& in = instances[static_cast<size_t>(i)];
    std::string dir = root + "/" + std::to_string(i);
    std::filesystem::create_directories(dir);
    auto roots = iofleet::agent::Roots::Open({dir});
    if (!roots.ok()) {
      std::cerr << roots.status().message() << "\n";
      return 2;
    }
    in.roots = std::make_unique<iofleet::agent::Roots>(std::move(*roots));
    in.supervisor = std::make_unique<iofleet::agent::Supervisor>(*in.roots, prefix + std::to_string(i));
    in.service = std::make_unique<iofleet::agent::AgentService>(*in.supervisor);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:" + std::to_string(base_port + i), grpc::InsecureServerCredentials());
    builder.RegisterService(in.service.get());
    builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 1);
    builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 2);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 6000);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    in.server = builder.BuildAndStart();
    if (!in.server) {
      std::cerr << "cannot listen on port " << base_port + i << "\n";
      return 2;
    }
  }
  std::cout << "ready " << count << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  for (auto& in : instances) in.supervisor->Shutdown();
  for (auto& in : instances) in.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return 0;
}
