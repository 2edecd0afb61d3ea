#include "tests/support/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>

namespace iofleet::testing {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

HttpAnswer HttpGet(const std::string& address, const std::string& target, std::chrono::milliseconds timeout) {
  return HttpCall("GET", address, target, {}, "", timeout);
}

HttpAnswer HttpCall(const std::string& method, const std::string& address, const std::string& target,
                    const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
                    std::chrono::milliseconds timeout) {
  HttpAnswer answer;
  size_t colon = address.rfind(':');
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  http::request<http::string_body> request{http::string_to_verb(method), target, 11};
  request.set(http::field::host, address);
  for (const auto& [name, value] : headers) request.set(name, value);
  if (!body.empty() || method == "POST") {
    request.body() = body;
    request.prepare_payload();
  }
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  stream.expires_after(timeout);
  resolver.async_resolve(host, port, [&](beast::error_code ec, tcp::resolver::results_type endpoints) {
    if (ec) return void(answer.error = "resolve: " + ec.message());
    stream.async_connect(endpoints, [&](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return void(answer.error = "connect: " + ec.message());
      http::async_write(stream, request, [&](beast::error_code ec, size_t) {
        if (ec) return void(answer.error = "send: " + ec.message());
        http::async_read(stream, buffer, response, [&](beast::error_code ec, size_t) {
          if (ec) return void(answer.error = "read: " + ec.message());
          answer.status = static_cast<int>(response.result_int());
          answer.body = response.body();
          for (const auto& field : response) {
            std::string name(field.name_string());
            for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            answer.headers[name] = std::string(field.value());
          }
        });
      });
    });
  });
  io.run_for(timeout + std::chrono::milliseconds(200));
  if (answer.status == 0 && answer.error.empty()) answer.error = "no answer within the timeout";
  return answer;
}

std::string UrlEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

int ListenOnLoopback(int backlog, int& port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

int ConnectSilently(int port, const std::string& source, const std::string& partial) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1 ||
      bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  if (!partial.empty()) (void)send(fd, partial.data(), partial.size(), MSG_NOSIGNAL);  // a server may have closed it
  return fd;
}

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace iofleet::testing
