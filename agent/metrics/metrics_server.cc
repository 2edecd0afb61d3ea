#include "agent/metrics/metrics_server.h"

#include <civetweb.h>
#include <prometheus/exposer.h>

#include <cstdlib>

namespace iofleet::agent {

Result<std::pair<std::string, int>> ParseMetricsAddress(const std::string& address) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("--metrics " + address + ": " + why + " (expected host:port, e.g. 0.0.0.0:7071 or 127.0.0.1:7071)");
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return bad("no port");
  if (colon == 0) return bad("no host");
  std::string host = address.substr(0, colon);
  const std::string port_text = address.substr(colon + 1);
  if (host.front() == '[') {
    if (host.back() != ']' || host.size() < 3) return bad("an IPv6 host goes in brackets");
  } else if (host.find(':') != std::string::npos) {
    return bad("an IPv6 host goes in brackets");
  }
  if (host.find_first_of(" ,/") != std::string::npos) return bad("\"" + host + "\" is not a host");
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos) {
    return bad("\"" + port_text + "\" is not a port");
  }
  const int port = std::atoi(port_text.c_str());
  if (port > 65535) return bad("port " + port_text + " is above 65535");
  return std::make_pair(host, port);
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address,
                                                            std::shared_ptr<prometheus::Collectable> collector) {
  auto parsed = ParseMetricsAddress(address);
  if (!parsed.ok()) return parsed.status();
  // Debian 12's civetweb is built without IPv6 (feature 8): say so rather than "cannot bind".
  if (parsed->first.front() == '[' && !mg_check_feature(8)) {
    return InvalidArgument("--metrics " + address +
                           ": this build's HTTP server (civetweb) has no IPv6: use an IPv4 address, e.g. 0.0.0.0:7071");
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  try {
    // civetweb's listening_ports names one address; it binds it or the Exposer throws.
    server->exposer_ = std::make_unique<prometheus::Exposer>(address, 2);
  } catch (const std::exception& e) {
    return Status(Code::kFailedPrecondition, "--metrics " + address + ": cannot serve metrics there (in use, or not an address of this host): " + e.what());
  }
  server->collector_ = std::move(collector);
  server->exposer_->RegisterCollectable(server->collector_);
  const std::vector<int> ports = server->exposer_->GetListeningPorts();
  const int port = ports.empty() ? parsed->second : ports.front();
  server->address_ = parsed->first + ":" + std::to_string(port);
  return server;
}

MetricsServer::~MetricsServer() = default;

}  // namespace iofleet::agent
