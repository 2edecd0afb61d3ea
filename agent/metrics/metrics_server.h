// Serves /metrics over HTTP (core/metrics/metrics_http_server.h: asynchronous, so a silent
// scraper never delays another) for the agent's whole life: `iofleet-agent --metrics ADDR`.
#pragma once

#include <memory>
#include <string>

#include "core/base/status.h"

namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace iofleet {
class MetricsHttpServer;
}  // namespace iofleet

namespace iofleet::agent {

class MetricsServer {
 public:
  // `address`: host:port or [v6]:port (port 0: the kernel picks one). A bad address, or one
  // that cannot be bound (in use, not this host's, a name that does not resolve), is an error
  // naming it.
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& address,
                                                      std::shared_ptr<prometheus::Collectable> collector);
  ~MetricsServer();
  // host:port as bound (the port the kernel picked, for port 0).
  const std::string& address() const { return address_; }

 private:
  MetricsServer() = default;
  std::shared_ptr<prometheus::Collectable> collector_;
  std::unique_ptr<MetricsHttpServer> http_;
  std::string address_;
};

// Checks `address` is host:port or [v6]:port with a port in 0..65535; the host part and port.
Result<std::pair<std::string, int>> ParseMetricsAddress(const std::string& address);

}  // namespace iofleet::agent
