#include "controller/serve/listen_endpoint.h"

#include <boost/asio/io_context.hpp>
#include <charconv>

namespace iofleet::controller {

Result<ListenEndpoint> ResolveListenAddress(const std::string& address, const std::string& what) {
  auto bad = [&](const std::string& why) { return InvalidArgument(what + " \"" + address + "\": " + why); };
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return bad("expected HOST:PORT");
  std::string host = address.substr(0, colon);
  std::string port_text = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return bad("an IPv6 address goes in brackets: [::1]:8080");
  }
  if (host.empty()) return bad("no host (0.0.0.0:PORT listens on every address)");
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    return bad("the port must be a number from 0 to 65535");
  }
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::system::error_code error;
  auto results = resolver.resolve(host, port_text, boost::asio::ip::tcp::resolver::passive, error);
  if (error || results.empty()) return bad("cannot resolve \"" + host + "\": " + error.message());
  ListenEndpoint out;
  out.endpoint = results.begin()->endpoint();
  out.loopback = true;
  for (const auto& entry : results) out.loopback = out.loopback && entry.endpoint().address().is_loopback();
  return out;
}

}  // namespace iofleet::controller
