#include "controller/push/http_put.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <functional>

namespace iofleet::controller {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

Status HttpSend(const std::string& method, const HttpEndpoint& endpoint, const std::string& target, const std::string& body,
                const std::string& content_type, std::chrono::milliseconds timeout) {
  const std::string& host = endpoint.host;
  const std::string& port = endpoint.port;
  const http::verb verb = http::string_to_verb(method);
  if (verb != http::verb::put && verb != http::verb::post) return InvalidArgument("HTTP method " + method + " is not sent");
  // Asynchronous operations on one io_context: only they honour the stream's deadline.
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  ssl::context tls(ssl::context::tls_client);
  tls.set_default_verify_paths();
  tls.set_verify_mode(ssl::verify_peer);
  tls.set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  beast::ssl_stream<beast::tcp_stream> secure(io, tls);
  beast::tcp_stream& stream = beast::get_lowest_layer(secure);
  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, host.find(':') != std::string::npos ? "[" + host + "]:" + port : host + ":" + port);
  request.set(http::field::user_agent, "iofleet");
  request.set(http::field::content_type, content_type);
  request.body() = body;
  request.prepare_payload();
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  Status result = Unavailable("no answer");
  auto fail = [&](const char* what, beast::error_code ec) {
    std::string why = ec == beast::error::timeout ? "timed out after " + std::to_string(timeout.count()) + " ms" : ec.message();
    result = Unavailable(std::string(what) + ": " + why);
  };
  auto answered = [&](beast::error_code ec, size_t) {
    if (ec) return fail("read the answer", ec);
    unsigned code = response.result_int();
    if (code / 100 == 2) {
      result = Status::Ok();
    } else {
      std::string answer = response.body().substr(0, 300);
      while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) answer.pop_back();
      result = Unavailable("HTTP " + std::to_string(code) + (answer.empty() ? "" : ": " + answer));
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  };
  // The same exchange over the plain or the TLS stream.
  auto exchange = [&](auto& s) {
    http::async_write(s, request, [&](beast::error_code ec, size_t) {
      if (ec) return fail("send", ec);
      http::async_read(s, buffer, response, answered);
    });
  };

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  resolver.async_resolve(host, port, [&](beast::error_code ec, tcp::resolver::results_type endpoints) {
    if (ec) return fail("resolve", ec);
    stream.expires_at(deadline);
    stream.async_connect(endpoints, [&](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return fail("connect", ec);
      if (!endpoint.tls) return exchange(stream);
      // SNI and the name the certificate must carry.
      if (!SSL_set_tlsext_host_name(secure.native_handle(), host.c_str())) return fail("TLS", beast::error_code(static_cast<int>(::ERR_get_error()), boost::asio::error::get_ssl_category()));
      secure.set_verify_callback(ssl::host_name_verification(host));
      secure.async_handshake(ssl::stream_base::client, [&](beast::error_code ec) {
        if (ec) return fail("TLS handshake", ec);
        exchange(secure);
      });
    });
  });
  // The resolver has no deadline of its own: bound the whole exchange here too.
  io.run_until(deadline + std::chrono::milliseconds(100));
  if (!io.stopped()) {
    io.stop();
    return Unavailable("timed out after " + std::to_string(timeout.count()) + " ms");
  }
  return result;
}

}  // namespace iofleet::controller
