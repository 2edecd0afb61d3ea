#include "controller/push/http_put.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace iofleet::controller {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

Status HttpPut(const std::string& host, const std::string& port, const std::string& target, const std::string& body,
               const std::string& content_type, std::chrono::milliseconds timeout) {
  // Asynchronous operations on one io_context: only they honour the stream's deadline.
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  http::request<http::string_body> request{http::verb::put, target, 11};
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

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  resolver.async_resolve(host, port, [&](beast::error_code ec, tcp::resolver::results_type endpoints) {
    if (ec) return fail("resolve", ec);
    stream.expires_at(deadline);
    stream.async_connect(endpoints, [&](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return fail("connect", ec);
      http::async_write(stream, request, [&](beast::error_code ec, size_t) {
        if (ec) return fail("send", ec);
        http::async_read(stream, buffer, response, [&](beast::error_code ec, size_t) {
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
        });
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
