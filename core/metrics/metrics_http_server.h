// The HTTP server of every /metrics iofleet serves (`iofleet-agent --metrics`, `iofleet run
// --metrics`): GET and HEAD /metrics, plain HTTP/1.1 with keep-alive, on Boost.Asio. Accepting and
// every connection's reads and writes are asynchronous, each with its deadline, so a silent or slow
// scraper holds a connection slot, never a thread: another scrape is answered meanwhile (before,
// prometheus-cpp's Exposer gave each connection one of a fixed number of civetweb threads until
// its 30 s request timeout). The threads only build expositions. A full server pushes out a
// connection waiting on its client (core/base/connection_slots.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/base/status.h"

namespace iofleet {

struct MetricsHttpOptions {
  std::string host;  // a name or an address, IPv6 with or without brackets; 0.0.0.0: every address
  int port = 0;      // 0: any free port (MetricsHttpServer::port() tells which)
  int threads = 1;   // threads building expositions (a scrape runs the collectors on one)
  // The whole request must arrive within this from the moment the server waits for it; an idle
  // keep-alive connection is closed after it too.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(10)};
  std::chrono::milliseconds write_timeout{std::chrono::seconds(10)};  // to take the whole answer
  size_t max_connections = 64;
  size_t max_connections_per_client = 16;
};

// The text exposition at the moment of a scrape; called on the server's threads, several at once
// when threads > 1. An exception is a 500 and the server goes on.
using MetricsExposition = std::function<std::string()>;

class MetricsHttpServer {
 public:
  // Resolves, binds and listens, then starts the threads. Errors (a host that does not resolve,
  // an address in use or not this host's) say what failed ("bind: Address already in use"); the
  // caller names the flag.
  static Result<std::unique_ptr<MetricsHttpServer>> Start(const MetricsHttpOptions& options, MetricsExposition exposition);

  int port() const;
  // Closes the listener and every connection and joins the threads. Idempotent.
  void Stop();
  ~MetricsHttpServer();

  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  struct Impl;

 private:
  explicit MetricsHttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace iofleet
