// Serves /metrics over HTTP (prometheus-cpp's Exposer, civetweb inside) for the agent's whole
// life: `iofleet-agent --metrics ADDR`.
#pragma once

#include <memory>
#include <string>

#include "core/base/status.h"

namespace prometheus {
class Collectable;
class Exposer;
}  // namespace prometheus

namespace iofleet::agent {

class MetricsServer {
 public:
  // `address`: host:port or [v6]:port (port 0: the kernel picks one). A bad address, one that
  // cannot be bound (in use, not this host's), or IPv6 where civetweb was built without it (as
  // Debian 12's is) is an error naming it.
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& address,
                                                      std::shared_ptr<prometheus::Collectable> collector);
  ~MetricsServer();
  // host:port as bound (the port the kernel picked, for port 0).
  const std::string& address() const { return address_; }

 private:
  MetricsServer() = default;
  std::shared_ptr<prometheus::Collectable> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string address_;
};

// Checks `address` is host:port or [v6]:port with a port in 0..65535; the host part and port.
Result<std::pair<std::string, int>> ParseMetricsAddress(const std::string& address);

}  // namespace iofleet::agent
