// The /metrics HTTP server on real loopback sockets: what it answers, and that silent or slow
// clients hold connections, never the thread that answers the others.
#include "core/metrics/metrics_http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "tests/support/http_client.h"

namespace iofleet {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<MetricsHttpServer> Serve(MetricsExposition exposition, MetricsHttpOptions options = {}) {
  if (options.host.empty()) options.host = "127.0.0.1";
  auto server = MetricsHttpServer::Start(options, std::move(exposition));
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(server).value() : nullptr;
}

std::string Address(const MetricsHttpServer& server) { return "127.0.0.1:" + std::to_string(server.port()); }

// `request` sent as it is to 127.0.0.1 or ::1, and everything until the server closes (or 5 s of
// silence): for what the test client cannot do (a HEAD's answer has a length and no body).
std::string Exchange(int port, const std::string& request, bool v6 = false) {
  int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_storage storage{};
  socklen_t length;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<uint16_t>(port));
    a->sin6_addr = in6addr_loopback;
    length = sizeof(*a);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&storage);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<uint16_t>(port));
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length = sizeof(*a);
  }
  timeval limit{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&storage), length) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer;
}

TEST(MetricsHttpServer, AnswersGetAndHeadOfMetricsOnly) {
  auto server = Serve([] { return std::string("iofleet_up 1\n"); });
  ASSERT_TRUE(server);
  testing::HttpAnswer get = testing::HttpGet(Address(*server), "/metrics");
  EXPECT_EQ(get.status, 200) << get.error;
  EXPECT_EQ(get.body, "iofleet_up 1\n");
  EXPECT_EQ(get.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(testing::HttpGet(Address(*server), "/metrics?name[]=x").status, 200);
  // HEAD: GET's length, no body; then the next request on the same connection.
  const std::string head = Exchange(server->port(), "HEAD /metrics HTTP/1.1\r\nHost: t\r\n\r\n"
                                                    "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
  const size_t second = head.find("HTTP/1.1 200", 1);
  ASSERT_NE(second, std::string::npos) << head;
  EXPECT_NE(head.substr(0, second).find("Content-Length: 13\r\n"), std::string::npos) << head;
  EXPECT_TRUE(head.substr(0, second).ends_with("\r\n\r\n")) << head;
  EXPECT_TRUE(head.ends_with("\r\n\r\niofleet_up 1\n")) << head;
  EXPECT_EQ(testing::HttpGet(Address(*server), "/").status, 404);
  EXPECT_EQ(testing::HttpGet(Address(*server), "/metricsx").status, 404);
  testing::HttpAnswer post = testing::HttpCall("POST", Address(*server), "/metrics", {}, "x");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.headers["allow"], "GET, HEAD");
}

TEST(MetricsHttpServer, AnExpositionThatThrowsIsA500AndTheServerGoesOn) {
  std::atomic<int> calls{0};
  auto server = Serve([&] {
    if (calls.fetch_add(1) == 0) throw std::runtime_error("collector bug");
    return std::string("fine 1\n");
  });
  ASSERT_TRUE(server);
  testing::HttpAnswer failed = testing::HttpGet(Address(*server), "/metrics");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body.find("collector bug"), std::string::npos) << failed.body;
  EXPECT_EQ(testing::HttpGet(Address(*server), "/metrics").body, "fine 1\n");
}

// A fixed pool of threads, each held by one silent connection until its request
// timeout, kept every scrape waiting.
TEST(MetricsHttpServer, SilentAndHalfOpenClientsDoNotDelayAScrape) {
  MetricsHttpOptions options;
  options.threads = 1;
  options.max_connections = 16;
  options.max_connections_per_client = 8;
  auto server = Serve([] { return std::string("iofleet_up 1\n"); }, options);
  ASSERT_TRUE(server);
  std::vector<int> silent;
  for (int i = 0; i < 4; ++i) silent.push_back(testing::ConnectSilently(server->port(), "127.0.0.1", i % 2 ? "GET /metrics HTTP/1.1\r\n" : ""));
  // Beyond the server's 16 connections, from more addresses than it has slots per client.
  for (int i = 0; i < 40; ++i) silent.push_back(testing::ConnectSilently(server->port(), "127.0.0." + std::to_string(2 + i % 5)));
  for (int fd : silent) ASSERT_GE(fd, 0);
  for (int i = 0; i < 3; ++i) {
    // The bound is the client's: a scrape kept waiting fails rather than hangs the test.
    testing::HttpAnswer answer = testing::HttpGet(Address(*server), "/metrics", 2s);
    EXPECT_EQ(answer.status, 200) << answer.error;
  }
  for (int fd : silent) ::close(fd);
}

TEST(MetricsHttpServer, CutsOffAClientThatNeverFinishesItsRequest) {
  MetricsHttpOptions options;
  options.request_timeout = 300ms;
  auto server = Serve([] { return std::string("x 1\n"); }, options);
  ASSERT_TRUE(server);
  int fd = testing::ConnectSilently(server->port(), "127.0.0.1", "GET /metrics HTTP/1.1\r\nHost: t\r\n");
  ASSERT_GE(fd, 0);
  timeval limit{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  char byte;
  EXPECT_EQ(::recv(fd, &byte, 1, 0), 0);  // closed by the server, unanswered, well before 5 s
  ::close(fd);
}

TEST(MetricsHttpServer, ServesIpv6AndRefusesWhatItCannotBind) {
  if (std::ifstream("/proc/net/if_inet6").peek() == std::ifstream::traits_type::eof()) GTEST_SKIP() << "no IPv6 on this host";
  MetricsHttpOptions v6;
  v6.host = "[::1]";
  auto server = MetricsHttpServer::Start(v6, [] { return std::string("v6 1\n"); });
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string answer = Exchange((*server)->port(), "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", true);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  EXPECT_TRUE(answer.ends_with("\r\n\r\nv6 1\n")) << answer;
  MetricsHttpOptions taken;
  taken.host = "::1";
  taken.port = (*server)->port();
  auto second = MetricsHttpServer::Start(taken, [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("bind: "), std::string::npos) << second.status().message();
  MetricsHttpOptions nowhere;
  nowhere.host = "no-such-host.invalid";
  auto unresolved = MetricsHttpServer::Start(nowhere, [] { return std::string(); });
  ASSERT_FALSE(unresolved.ok());
  EXPECT_NE(unresolved.status().message().find("cannot resolve \"no-such-host.invalid\""), std::string::npos);
}

}  // namespace
}  // namespace iofleet
