// HttpPut against loopback sockets that this test controls: what a pushgateway's answers and
// silences turn into.
#include "controller/push/http_put.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace iofleet::controller {
namespace {

using namespace std::chrono_literals;

// A listening loopback socket on a kernel-chosen port.
struct Listener {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  Listener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd, 4), 0);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~Listener() { close(fd); }
  // Accepts one connection, reads the request (up to its body's end), answers `reply`.
  std::string Serve(const std::string& reply) {
    int c = accept(fd, nullptr, nullptr);
    std::string request;
    char buf[4096];
    while (true) {
      ssize_t n = read(c, buf, sizeof(buf));
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
      size_t head = request.find("\r\n\r\n");
      size_t length_at = request.find("Content-Length: ");
      if (head != std::string::npos && length_at != std::string::npos &&
          request.size() >= head + 4 + std::stoul(request.substr(length_at + 16))) {
        break;
      }
    }
    ssize_t ignored = write(c, reply.data(), reply.size());
    (void)ignored;
    close(c);
    return request;
  }
};

TEST(HttpPutTest, SendsAPutWithTheBodyAndTakesA2xx) {
  Listener server;
  std::string request;
  std::thread t([&] { request = server.Serve("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); });
  Status s = HttpPut("127.0.0.1", std::to_string(server.port), "/metrics/job/iofleet", "x 1\n", "text/plain; version=0.0.4", 5s);
  t.join();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(request.rfind("PUT /metrics/job/iofleet HTTP/1.1\r\n", 0), 0u) << request;
  EXPECT_NE(request.find("Content-Type: text/plain; version=0.0.4\r\n"), std::string::npos) << request;
  EXPECT_EQ(request.substr(request.size() - 4), "x 1\n");
}

TEST(HttpPutTest, AnErrorAnswerNamesItsCodeAndText) {
  Listener server;
  std::thread t([&] {
    server.Serve("HTTP/1.1 400 Bad Request\r\nContent-Length: 30\r\n\r\nlabel name \"__x\" is reserved\r\n");
  });
  Status s = HttpPut("127.0.0.1", std::to_string(server.port), "/metrics/job/iofleet", "x 1\n", "text/plain", 5s);
  t.join();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "HTTP 400: label name \"__x\" is reserved");
}

TEST(HttpPutTest, ASilentServerTimesOut) {
  Listener server;  // the kernel completes the connection; nobody ever answers
  auto start = std::chrono::steady_clock::now();
  Status s = HttpPut("127.0.0.1", std::to_string(server.port), "/m", "x 1\n", "text/plain", 300ms);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("timed out after 300 ms"), std::string::npos) << s.message();
  EXPECT_LT(took, 2.0);
}

TEST(HttpPutTest, NobodyListeningIsRefused) {
  int port;
  {
    Listener gone;
    port = gone.port;
  }
  Status s = HttpPut("127.0.0.1", std::to_string(port), "/m", "x 1\n", "text/plain", 2s);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("connect: ", 0), 0u) << s.message();
}

}  // namespace
}  // namespace iofleet::controller
