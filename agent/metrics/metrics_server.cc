#include "agent/metrics/metrics_server.h"

#include <prometheus/collectable.h>
#include <prometheus/text_serializer.h>

#include <cstdlib>

#include "core/metrics/metrics_http_server.h"

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
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->collector_ = std::move(collector);
  MetricsHttpOptions options;
  options.host = parsed->first;
  options.port = parsed->second;
  // Two scrapes collect at once (two Prometheus servers, say); waiting clients take none.
  options.threads = 2;
  auto http = MetricsHttpServer::Start(options, [collector = server->collector_] {
    return prometheus::TextSerializer().Serialize(collector->Collect());
  });
  if (!http.ok()) {
    return Status(Code::kFailedPrecondition, "--metrics " + address +
                                                 ": cannot serve metrics there (in use, or not an address of this host): " +
                                                 http.status().message());
  }
  server->http_ = std::move(http).value();
  server->address_ = parsed->first + ":" + std::to_string(server->http_->port());
  return server;
}

MetricsServer::~MetricsServer() = default;

}  // namespace iofleet::agent
