// `iofleet serve`'s HTTP layer (controller/serve/http_server.h) on real loopback sockets, plain and
// with TLS from deploy/tls/make-certs: keep-alive, limits, timeouts, target checks, security
// headers, files, concurrency, and the addresses and certificates it refuses to start with.
#include "controller/serve/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "controller/serve/open_beneath.h"
#include "tests/support/process.h"
#include "tests/support/test_paths.h"

namespace iofleet::controller {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
namespace fs = std::filesystem;
using tcp = boost::asio::ip::tcp;
using namespace std::chrono_literals;

// ---- a plain socket client, byte by byte -------------------------------------------------------

// `source`: the client's own address, any of 127.0.0.0/8 (the loopback interface has them all),
// so one test can be many clients.
int Connect(int port, const char* source = nullptr, timeval limit = {5, 0}) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (source) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    EXPECT_EQ(::inet_pton(AF_INET, source, &local.sin_addr), 1) << source;
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)), 0) << source << ": " << std::strerror(errno);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // No test waits forever on a server that does not answer.
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Everything until the server closes (or 5 s of silence).
std::string ReadToEnd(int fd) {
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) text.append(buf, static_cast<size_t>(n));
  return text;
}

// One answer: headers, then Content-Length bytes of body ("" on a closed connection).
std::string ReadAnswer(int fd, bool head = false) {
  std::string text;
  char c;
  while (text.find("\r\n\r\n") == std::string::npos) {
    if (::recv(fd, &c, 1, 0) != 1) return text;
    text.push_back(c);
  }
  size_t length = 0;
  size_t at = text.find("Content-Length: ");
  if (at != std::string::npos && !head) length = std::stoul(text.substr(at + 16));
  std::string body(length, '\0');
  size_t got = 0;
  while (got < length) {
    ssize_t n = ::recv(fd, body.data() + got, length - got, 0);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return text + body.substr(0, got);
}

std::string Exchange(int port, const std::string& request) {
  int fd = Connect(port);
  SendAll(fd, request);
  std::string answer = ReadToEnd(fd);
  ::close(fd);
  return answer;
}

std::string Get(const std::string& target) { return "GET " + target + " HTTP/1.1\r\nHost: test\r\n\r\n"; }

// ---- the server under test ----------------------------------------------------------------------

fs::path TestDir(const std::string& name) {
  fs::path dir = fs::path(IOFLEET_TEST_TMP) / ("serve_http_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Echoes what reached it; /throw throws; /file/NAME answers a file under `files`; /slow and
// /hold sleep (20 ms, 1.5 s).
struct EchoHandler {
  fs::path files;
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);

  HttpResponse operator()(const HttpRequest& request) const {
    calls->fetch_add(1);
    if (request.path == "/throw") throw std::runtime_error("the database is on fire");
    // /file/NAME, or /read-some/NAME: the handler reads the file's first bytes before answering.
    bool read_some = request.path.starts_with("/read-some/");
    if (request.path.starts_with("/file/") || read_some) {
      auto fd = OpenBeneath(files.string(), request.path.substr(read_some ? 11 : 6));
      if (!fd.ok()) return HttpResponse::Error(404, fd.status().message());
      char first[16];
      if (read_some && ::read(fd->get(), first, sizeof(first)) != sizeof(first)) return HttpResponse::Error(500, "short read");
      HttpResponse response;
      response.content_type = "text/html; charset=utf-8";
      response.file = std::move(fd).value();
      return response;
    }
    if (request.path == "/slow") std::this_thread::sleep_for(20ms);
    if (request.path == "/hold") std::this_thread::sleep_for(1500ms);  // a connection being answered
    if (request.path == "/no-content") return HttpResponse::Json(204, "a body a 204 cannot have");
    if (request.path == "/continue") return HttpResponse::Json(100, "");
    std::string query;
    for (const auto& [name, value] : request.query) query += name + "=" + value + ";";
    HttpResponse response = HttpResponse::Json(
        request.path == "/created" ? 201 : 200,
        "method=" + request.method + " path=" + request.path + " query=" + query + " auth=" + request.authorization +
            " type=" + request.content_type + " body=" + request.body + " peer=" + request.peer);
    response.headers = {{"Set-Cookie", "session=1"}, {"X-Route", "echo"}};
    return response;
  }
};

// Until the handler has been called `n` times (each call is a request read whole): false after 5 s.
bool CallsReach(const EchoHandler& handler, int n) {
  for (int i = 0; i < 500 && handler.calls->load() < n; ++i) std::this_thread::sleep_for(10ms);
  return handler.calls->load() >= n;
}

std::unique_ptr<HttpServer> StartServer(HttpServerOptions options, HttpHandler handler) {
  if (options.listen.empty()) options.listen = "127.0.0.1:0";
  auto server = HttpServer::Start(options, std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(server).value() : nullptr;
}

// ---- plain HTTP --------------------------------------------------------------------------------

TEST(ServeHttpTest, AnswersWithTheSecurityHeadersAndNoCookie) {
  EchoHandler handler;
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  EXPECT_FALSE(server->tls());
  EXPECT_GT(server->port(), 0);
  std::string answer = Exchange(server->port(),
                                "POST /api/v1/suites/zeb%20nightly/runs?a=1&b=x+y HTTP/1.1\r\nHost: t\r\n"
                                "Authorization: Bearer abc\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                                "Connection: close\r\n\r\n{}");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
  EXPECT_NE(answer.find("method=POST path=/api/v1/suites/zeb nightly/runs query=a=1;b=x y; auth=Bearer abc "
                        "type=application/json body={} peer=127.0.0.1"),
            std::string::npos)
      << answer;
  for (const char* header : {"X-Content-Type-Options: nosniff\r\n", "Cache-Control: no-store\r\n",
                             "Referrer-Policy: no-referrer\r\n", "X-Frame-Options: DENY\r\n",
                             "Content-Type: application/json\r\n", "X-Route: echo\r\n"}) {
    EXPECT_NE(answer.find(header), std::string::npos) << header << " missing in\n" << answer;
  }
  EXPECT_EQ(answer.find("Set-Cookie"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("Strict-Transport-Security"), std::string::npos) << answer;
}

TEST(ServeHttpTest, KeepsTheConnectionAliveAndAnswersHeadWithoutABody) {
  EchoHandler handler;
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(SendAll(fd, Get("/x?i=" + std::to_string(i))));
    std::string answer = ReadAnswer(fd);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
    EXPECT_NE(answer.find("query=i=" + std::to_string(i) + ";"), std::string::npos) << answer;
  }
  // HEAD: GET's headers and Content-Length, no body; the next answer on the connection follows
  // at once, which it could not if body bytes had been sent.
  ASSERT_TRUE(SendAll(fd, "HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n" + Get("/created")));
  std::string head = ReadAnswer(fd, true);
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
  EXPECT_NE(head.find("Content-Length: "), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Length: 0\r\n"), 0u);
  EXPECT_TRUE(head.ends_with("\r\n\r\n")) << head;
  std::string next = ReadAnswer(fd);
  EXPECT_TRUE(next.starts_with("HTTP/1.1 201")) << next;
  EXPECT_NE(next.find("method=GET path=/created"), std::string::npos) << next;
  ::close(fd);
  EXPECT_EQ(handler.calls->load(), 5);
}

TEST(ServeHttpTest, RefusesBadTargetsAndMethodsBeforeTheHandler) {
  EchoHandler handler;
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  for (std::string target : {"/reports/%2e%2e/x", "/reports/..%2Fx", "/reports%2fx", "/reports//x", "/reports/a%5cb",
                             "/reports/a%00b", "/a%zz"}) {
    std::string answer = Exchange(server->port(), "GET " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << target << ": " << answer;
    EXPECT_NE(answer.find("{\"error\":\"bad request target"), std::string::npos) << answer;
    EXPECT_NE(answer.find("X-Content-Type-Options: nosniff"), std::string::npos) << answer;
  }
  for (std::string method : {"PUT", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FOO"}) {
    std::string answer = Exchange(server->port(), method + " /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 405")) << method << ": " << answer;
    EXPECT_NE(answer.find("Allow: GET, HEAD, POST, DELETE\r\n"), std::string::npos) << answer;
  }
  std::string garbage = Exchange(server->port(), "this is not http\r\n\r\n");
  EXPECT_TRUE(garbage.starts_with("HTTP/1.1 400")) << garbage;
  EXPECT_EQ(handler.calls->load(), 0);
}

TEST(ServeHttpTest, AnswersTooLargeBodiesAndHeadersThenCloses) {
  EchoHandler handler;
  HttpServerOptions options;
  options.max_body = 64 * 1024;
  options.max_header = 16 * 1024;
  auto server = StartServer(options, handler);
  ASSERT_TRUE(server);
  // The body is sent whole: the 413 must still arrive, not a reset.
  // Megabytes: more than the kernel buffers while nobody reads them.
  std::string body(8 * 1024 * 1024, 'x');
  std::string answer = Exchange(server->port(), "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: " +
                                                    std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer.substr(0, 200);
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  // Chunked, with no length announced: cut off at the limit.
  std::string chunked = "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 20; ++i) chunked += "1000\r\n" + std::string(4096, 'y') + "\r\n";
  chunked += "0\r\n\r\n";
  answer = Exchange(server->port(), chunked);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer.substr(0, 200);
  // Chunk extensions and trailers count against neither limit in Beast 1.74: an endless one is
  // cut off by the buffer's cap, not after the request time with megabytes held.
  std::string extension = "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(1024 * 1024, 'e');
  auto sent_at = std::chrono::steady_clock::now();
  answer = Exchange(server->port(), extension);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer.substr(0, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - sent_at, 5s);
  std::string trailer = "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " + std::string(1024 * 1024, 't');
  answer = Exchange(server->port(), trailer);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413") || answer.starts_with("HTTP/1.1 431")) << answer.substr(0, 200);
  // Headers past the limit, and the connection closed after the answer.
  std::string big_header = "GET /x HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(20 * 1024, 'h') + "\r\n\r\n";
  answer = Exchange(server->port(), big_header + Get("/after"));
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 431")) << answer.substr(0, 200);
  EXPECT_EQ(answer.find("/after"), std::string::npos) << "the connection stayed open";
  // A body just under the limit is fine.
  std::string fits(60 * 1024, 'z');
  answer = Exchange(server->port(), "POST /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: " +
                                        std::to_string(fits.size()) + "\r\n\r\n" + fits);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer.substr(0, 200);
  EXPECT_EQ(handler.calls->load(), 1);
}

TEST(ServeHttpTest, CutsOffASlowLorisWithinTheRequestTimeout) {
  EchoHandler handler;
  HttpServerOptions options;
  options.request_timeout = 1s;
  auto server = StartServer(options, handler);
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(SendAll(fd, "GET /x HTTP/1.1\r\nHost: t\r\n"));
  // A header byte every 100 ms: always sending, never done.
  bool cut = false;
  for (int i = 0; i < 60 && !cut; ++i) {
    std::this_thread::sleep_for(100ms);
    cut = !SendAll(fd, i % 2 ? "a" : "X-");
    char c;
    if (!cut && ::recv(fd, &c, 1, MSG_DONTWAIT) == 0) cut = true;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(cut) << "still connected after " << seconds << " s";
  EXPECT_LT(seconds, 2.5);
  EXPECT_GE(seconds, 0.9);
  ::close(fd);
  // An idle keep-alive connection goes the same way.
  fd = Connect(server->port());
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadToEnd(fd), "");
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.5);
  ::close(fd);
  EXPECT_EQ(handler.calls->load(), 0);
}

TEST(ServeHttpTest, AHandlerThatThrowsIsA500AndTheServerLives) {
  EchoHandler handler;
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, Get("/throw")));
  std::string answer = ReadAnswer(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 500")) << answer;
  EXPECT_TRUE(answer.ends_with("{\"error\":\"internal error\"}\n")) << answer;
  EXPECT_EQ(answer.find("on fire"), std::string::npos) << "the exception's text leaked: " << answer;
  ASSERT_TRUE(SendAll(fd, Get("/fine")));
  EXPECT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 200"));
  ::close(fd);
}

TEST(ServeHttpTest, StatusesWithoutABodyOrOutOfPlace) {
  EchoHandler handler;
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, Get("/no-content")));
  std::string answer = ReadAnswer(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 204")) << answer;
  EXPECT_EQ(answer.find("a body"), std::string::npos) << answer;
  // A 1xx is not the handler's to send: the client is owed a final answer.
  ASSERT_TRUE(SendAll(fd, Get("/continue")));
  answer = ReadAnswer(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 500")) << answer;
  ASSERT_TRUE(SendAll(fd, Get("/x")));
  EXPECT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 200"));
  ::close(fd);
}

TEST(ServeHttpTest, StreamsFilesWithTheirContentType) {
  fs::path dir = TestDir("files");
  fs::create_directories(dir / "run1");
  std::string big;
  for (int i = 0; big.size() < 3 * 1024 * 1024; ++i) big += "line " + std::to_string(i) + "\n";
  std::ofstream(dir / "run1" / "report.html") << big;
  fs::create_symlink("/etc/passwd", dir / "run1" / "leak");
  EchoHandler handler{dir};
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, Get("/file/run1/report.html")));
  std::string answer = ReadAnswer(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer.substr(0, 300);
  EXPECT_NE(answer.find("Content-Type: text/html; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(answer.find("Content-Length: " + std::to_string(big.size()) + "\r\n"), std::string::npos);
  EXPECT_NE(answer.find("X-Content-Type-Options: nosniff\r\n"), std::string::npos);
  ASSERT_GE(answer.size(), big.size());
  EXPECT_TRUE(answer.substr(answer.size() - big.size()) == big);
  // HEAD of a file: its length, no body; the connection goes on.
  ASSERT_TRUE(SendAll(fd, "HEAD /file/run1/report.html HTTP/1.1\r\nHost: t\r\n\r\n" + Get("/file/run1/leak")));
  std::string head = ReadAnswer(fd, true);
  EXPECT_NE(head.find("Content-Length: " + std::to_string(big.size()) + "\r\n"), std::string::npos) << head;
  EXPECT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 404"));
  // The whole file, whatever the handler read of it.
  ASSERT_TRUE(SendAll(fd, Get("/read-some/run1/report.html")));
  answer = ReadAnswer(fd);
  ASSERT_GE(answer.size(), big.size());
  EXPECT_TRUE(answer.substr(answer.size() - big.size()) == big);
  ASSERT_TRUE(SendAll(fd, Get("/x")));
  EXPECT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 200"));
  ::close(fd);
  fs::remove_all(dir);
}

TEST(ServeHttpTest, Answers200ConcurrentGets) {
  EchoHandler handler;
  HttpServerOptions options;
  options.threads = 2;
  auto server = StartServer(options, handler);
  ASSERT_TRUE(server);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Every connection opened and its request sent before any answer is read: 200 at once.
      std::vector<int> fds;
      for (int i = 0; i < kPerThread; ++i) {
        int fd = Connect(server->port());
        SendAll(fd, Get("/slow?n=" + std::to_string(t * kPerThread + i)));
        fds.push_back(fd);
      }
      for (int i = 0; i < kPerThread; ++i) {
        std::string answer = ReadAnswer(fds[i]);
        if (answer.starts_with("HTTP/1.1 200") && answer.find("n=" + std::to_string(t * kPerThread + i) + ";") != std::string::npos) {
          answered.fetch_add(1);
        }
        ::close(fds[i]);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(answered.load(), kThreads * kPerThread);
}

// One client address cannot hold every connection. Beyond its own limit its newcomer takes the
// place of its own oldest idle connection (as nginx drains idle keep-alive connections); while
// all of its connections are being answered, the newcomer is closed at once.
TEST(ServeHttpTest, OneClientCannotTakeEveryConnection) {
  EchoHandler handler;
  HttpServerOptions options;
  options.max_connections = 100;
  options.max_connections_per_client = 3;
  options.threads = 4;  // handlers run on the I/O threads: three held, one still accepts
  auto server = StartServer(options, handler);
  ASSERT_TRUE(server);
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(Connect(server->port()));
    ASSERT_TRUE(SendAll(held.back(), Get("/held")));
    ASSERT_TRUE(ReadAnswer(held.back()).starts_with("HTTP/1.1 200"));
  }
  // Answered, the three go back to idle a moment after their answers reach this test: a refused
  // newcomer is tried again.
  int extra = -1;
  std::string extra_answer;
  for (int attempt = 0; attempt < 20 && !extra_answer.starts_with("HTTP/1.1 200"); ++attempt) {
    if (extra >= 0) ::close(extra);
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt * 10));
    extra = Connect(server->port());
    SendAll(extra, Get("/extra"));
    extra_answer = ReadAnswer(extra);
  }
  EXPECT_TRUE(extra_answer.starts_with("HTTP/1.1 200")) << extra_answer;
  EXPECT_EQ(ReadToEnd(held[0]), "");  // the oldest idle one made room
  ::close(held[0]);
  held[0] = extra;
  // All three busy: a fourth is closed unanswered, and at once.
  const int calls_before = handler.calls->load();
  for (int fd : held) ASSERT_TRUE(SendAll(fd, Get("/hold")));
  ASSERT_TRUE(CallsReach(handler, calls_before + 3));  // the three requests are read: busy
  int fourth = Connect(server->port());
  SendAll(fourth, Get("/fourth"));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadToEnd(fourth), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  ::close(fourth);
  // Another address is not held to this one's limit.
  int other = Connect(server->port(), "127.0.0.2");
  ASSERT_TRUE(SendAll(other, "GET /other HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(ReadToEnd(other).starts_with("HTTP/1.1 200"));
  ::close(other);
  for (int fd : held) {
    EXPECT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 200"));  // the busy ones were left to finish
    ::close(fd);
  }
}

// Ten addresses holding 32 half-open connections each (a partial request line, then
// silence) took all 256 slots, and every other client was closed at accept for the whole request
// timeout. A full server pushes out a waiting connection of the heaviest address instead.
TEST(ServeHttpTest, HalfOpenConnectionsFromManyAddressesLeaveRoomForANewClient) {
  EchoHandler handler;
  HttpServerOptions defaults;  // 256 connections, 32 per address, 10 s to send a request
  ASSERT_EQ(defaults.max_connections, 256u);
  auto server = StartServer(defaults, handler);
  ASSERT_TRUE(server);
  std::vector<int> half_open;
  for (int address = 2; address < 12; ++address) {
    const std::string source = "127.0.0." + std::to_string(address);
    for (int i = 0; i < 32; ++i) {
      half_open.push_back(Connect(server->port(), source.c_str()));
      SendAll(half_open.back(), "GET /hal");  // may fail: the server may have closed it
    }
  }
  // A client from another address: answered at once, not closed (and not after 10 s). The
  // bound is the socket's, so that a server that keeps it waiting fails rather than hangs.
  for (const char* source : {"127.0.0.100", "127.0.0.101"}) {
    int fd = Connect(server->port(), source, {2, 0});
    ASSERT_TRUE(SendAll(fd, "GET /fresh HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
    std::string answer = ReadToEnd(fd);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << source << ": " << (answer.empty() ? "closed unanswered" : answer);
    EXPECT_NE(answer.find("peer=" + std::string(source)), std::string::npos) << answer;
    ::close(fd);
  }
  // The half-open ones are still cut off by the request timeout; none got to the handler.
  EXPECT_EQ(handler.calls->load(), 2);
  for (int fd : half_open) ::close(fd);
}

// A full server whose every connection is being answered closes a newcomer at once, and takes
// one again when a connection is let go.
TEST(ServeHttpTest, ClosesConnectionsBeyondTheLimitAtOnce) {
  EchoHandler handler;
  HttpServerOptions options;
  options.max_connections = 4;
  options.threads = 5;  // handlers run on the I/O threads: four held, one still accepts
  auto server = StartServer(options, handler);
  ASSERT_TRUE(server);
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(Connect(server->port(), ("127.0.0." + std::to_string(2 + i)).c_str()));
    ASSERT_TRUE(SendAll(held.back(), Get("/hold")));
  }
  ASSERT_TRUE(CallsReach(handler, 4));  // the four requests are read: busy
  int extra = Connect(server->port(), "127.0.0.10");
  SendAll(extra, Get("/extra"));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadToEnd(extra), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  ::close(extra);
  for (int fd : held) EXPECT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 200"));
  // One let go: room for one again.
  ::close(held.back());
  held.pop_back();
  std::string answer;
  for (int attempt = 0; attempt < 50 && !answer.starts_with("HTTP/1.1 200"); ++attempt) {
    std::this_thread::sleep_for(20ms);
    answer = Exchange(server->port(), "GET /again HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  }
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  for (int fd : held) ::close(fd);
}

TEST(ServeHttpTest, StopEndsOpenConnections) {
  EchoHandler handler;
  auto server = StartServer({}, handler);
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, Get("/x")));
  ASSERT_TRUE(ReadAnswer(fd).starts_with("HTTP/1.1 200"));
  auto start = std::chrono::steady_clock::now();
  server->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(ReadToEnd(fd), "");  // closed, not left hanging
  ::close(fd);
  server->Stop();  // again: nothing
}

TEST(ServeHttpTest, RefusesPlainHttpOffLoopback) {
  for (std::string listen : {"0.0.0.0:0", "[::]:0"}) {
    HttpServerOptions options;
    options.listen = listen;
    auto server = HttpServer::Start(options, EchoHandler{});
    ASSERT_FALSE(server.ok()) << listen;
    EXPECT_NE(server.status().message().find("plain HTTP only on a loopback address"), std::string::npos)
        << server.status().message();
  }
  HttpServerOptions options;
  options.listen = "localhost:0";
  auto local = HttpServer::Start(options, EchoHandler{});
  EXPECT_TRUE(local.ok()) << local.status().message();
}

TEST(ServeHttpTest, BadOptionsAreStartErrors) {
  auto start = [](auto change) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    change(options);
    auto server = HttpServer::Start(options, EchoHandler{});
    return server.ok() ? std::string("started") : server.status().message();
  };
  EXPECT_NE(start([](HttpServerOptions& o) { o.threads = 0; }).find("threads"), std::string::npos);
  EXPECT_NE(start([](HttpServerOptions& o) { o.max_connections = 0; }).find("max_connections"), std::string::npos);
  EXPECT_NE(start([](HttpServerOptions& o) { o.max_body = 0; }).find("max_body"), std::string::npos);
  EXPECT_NE(start([](HttpServerOptions& o) { o.request_timeout = 0s; }).find("request_timeout"), std::string::npos);
  EXPECT_NE(start([](HttpServerOptions& o) { o.listen = "127.0.0.1"; }).find("HOST:PORT"), std::string::npos);
  HttpServerOptions no_handler;
  no_handler.listen = "127.0.0.1:0";
  EXPECT_FALSE(HttpServer::Start(no_handler, HttpHandler()).ok());
}

TEST(ServeHttpTest, ABusyPortIsAStartError) {
  auto first = StartServer({}, EchoHandler{});
  ASSERT_TRUE(first);
  HttpServerOptions options;
  options.listen = "127.0.0.1:" + std::to_string(first->port());
  auto second = HttpServer::Start(options, EchoHandler{});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("bind"), std::string::npos) << second.status().message();
}

// ---- TLS ---------------------------------------------------------------------------------------

class ServeHttpsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new fs::path(TestDir("certs"));
    auto made = testing::RunCommand({testing::SourcePath("deploy/tls/make-certs"), certs_->string(), "server", "localhost",
                                     "127.0.0.1"},
                                    *certs_);
    ASSERT_EQ(made.code, 0) << made.err;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*certs_);
    delete certs_;
  }
  static fs::path TlsDir() { return *certs_ / "localhost"; }

  // One HTTPS exchange per request on one connection, the server checked against the CA.
  struct Client {
    asio::io_context io;
    ssl::context context{ssl::context::tls_client};
    std::optional<ssl::stream<tcp::socket>> stream_holder;
    ssl::stream<tcp::socket>& stream;

    // `only_version`: offer this protocol version and no other (with OpenSSL's security level 0,
    // so that this client does offer TLS 1.0 or 1.1 rather than refuse it itself).
    Client(int port, int only_version = 0) : stream(Make(only_version)) {
      context.load_verify_file((*certs_ / "ca" / "ca.pem").string());
      stream.set_verify_mode(ssl::verify_peer);
      stream.set_verify_callback(ssl::host_name_verification("localhost"));
      SSL_set_tlsext_host_name(stream.native_handle(), "localhost");
      stream.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
      timeval limit{5, 0};
      ::setsockopt(stream.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    }
    ssl::stream<tcp::socket>& Make(int only_version) {
      if (only_version) {
        SSL_CTX_set_min_proto_version(context.native_handle(), only_version);
        SSL_CTX_set_max_proto_version(context.native_handle(), only_version);
        SSL_CTX_set_cipher_list(context.native_handle(), "DEFAULT:@SECLEVEL=0");
      }
      return stream_holder.emplace(io, context);
    }
    beast::error_code Handshake() {
      beast::error_code ec;
      stream.handshake(ssl::stream_base::client, ec);
      return ec;
    }
    http::response<http::string_body> Request(http::verb verb, const std::string& target, std::string body = "") {
      http::request<http::string_body> request{verb, target, 11};
      request.set(http::field::host, "localhost");
      request.body() = std::move(body);
      request.prepare_payload();
      http::write(stream, request);
      beast::flat_buffer buffer;
      http::response<http::string_body> response;
      http::read(stream, buffer, response);
      return response;
    }
  };

  static fs::path* certs_;
};
fs::path* ServeHttpsTest::certs_ = nullptr;

TEST_F(ServeHttpsTest, ServesHttpsWithHstsAndKeepAlive) {
  HttpServerOptions options;
  options.tls_dir = TlsDir().string();
  options.max_body = 1024;
  auto server = StartServer(options, EchoHandler{});
  ASSERT_TRUE(server);
  EXPECT_TRUE(server->tls());
  Client client(server->port());
  ASSERT_FALSE(client.Handshake());
  EXPECT_GE(SSL_version(client.stream.native_handle()), TLS1_2_VERSION);
  for (int i = 0; i < 3; ++i) {
    auto response = client.Request(http::verb::get, "/x?i=" + std::to_string(i));
    EXPECT_EQ(response.result_int(), 200u);
    EXPECT_NE(response.body().find("query=i=" + std::to_string(i)), std::string::npos) << response.body();
    EXPECT_EQ(response[http::field::strict_transport_security], "max-age=31536000");
    EXPECT_EQ(response["X-Content-Type-Options"], "nosniff");
    EXPECT_EQ(response.count(http::field::set_cookie), 0u);
  }
  EXPECT_EQ(client.Request(http::verb::get, "/reports/%2e%2e/x").result_int(), 400u);
  auto too_big = client.Request(http::verb::post, "/x", std::string(4096, 'b'));
  EXPECT_EQ(too_big.result_int(), 413u);
}

TEST_F(ServeHttpsTest, RefusesPlainClientsAndOldTls) {
  HttpServerOptions options;
  options.tls_dir = TlsDir().string();
  options.listen = "0.0.0.0:0";  // allowed with TLS
  auto server = StartServer(options, EchoHandler{});
  ASSERT_TRUE(server);
  std::string answer = Exchange(server->port(), Get("/x"));
  EXPECT_FALSE(answer.starts_with("HTTP/")) << answer;
  for (int version : {TLS1_VERSION, TLS1_1_VERSION}) {
    Client old(server->port(), version);
    beast::error_code refused = old.Handshake();
    EXPECT_TRUE(refused) << "a client of TLS version " << std::hex << version << " was accepted";
    // The server's refusal (an alert), not this client's own.
    EXPECT_NE(refused.message().find("alert"), std::string::npos) << refused.message();
  }
  Client tls12(server->port(), TLS1_2_VERSION);
  EXPECT_FALSE(tls12.Handshake());
  Client fine(server->port());
  EXPECT_FALSE(fine.Handshake());
}

TEST_F(ServeHttpsTest, ASilentClientIsCutOffDuringTheHandshake) {
  HttpServerOptions options;
  options.tls_dir = TlsDir().string();
  options.request_timeout = 1s;
  auto server = StartServer(options, EchoHandler{});
  ASSERT_TRUE(server);
  int fd = Connect(server->port());
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadToEnd(fd), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2500ms);
  ::close(fd);
}

TEST_F(ServeHttpsTest, BadCertificateFilesAreStartErrorsNamingTheFile) {
  fs::path dir = TestDir("badtls");
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tls_dir = (dir / "absent").string();
  auto server = HttpServer::Start(options, EchoHandler{});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find((dir / "absent" / "cert.pem").string()), std::string::npos) << server.status().message();

  fs::create_directories(dir / "bad");
  fs::copy_file(TlsDir() / "cert.pem", dir / "bad" / "cert.pem");
  std::ofstream(dir / "bad" / "key.pem") << "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n";
  options.tls_dir = (dir / "bad").string();
  server = HttpServer::Start(options, EchoHandler{});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find((dir / "bad" / "key.pem").string()), std::string::npos) << server.status().message();

  std::ofstream(dir / "bad" / "cert.pem", std::ios::trunc) << "garbage\n";
  server = HttpServer::Start(options, EchoHandler{});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find((dir / "bad" / "cert.pem").string()), std::string::npos) << server.status().message();

  // A key that is not the certificate's.
  auto other = testing::RunCommand({testing::SourcePath("deploy/tls/make-certs"), certs_->string(), "server", "other"}, dir);
  ASSERT_EQ(other.code, 0) << other.err;
  fs::copy_file(TlsDir() / "cert.pem", dir / "bad" / "cert.pem", fs::copy_options::overwrite_existing);
  fs::copy_file(*certs_ / "other" / "key.pem", dir / "bad" / "key.pem", fs::copy_options::overwrite_existing);
  server = HttpServer::Start(options, EchoHandler{});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find((dir / "bad" / "key.pem").string()), std::string::npos) << server.status().message();
  EXPECT_NE(server.status().message().find("mismatch"), std::string::npos) << server.status().message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace iofleet::controller
