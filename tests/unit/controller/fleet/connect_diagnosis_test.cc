#include "controller/fleet/connect_diagnosis.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

using namespace std::chrono_literals;

// A loopback TCP socket bound to a free port; listening when `backlog` >= 0.
struct LoopbackSocket {
  explicit LoopbackSocket(int backlog) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
    if (backlog >= 0) EXPECT_EQ(listen(fd, backlog), 0);
  }
  ~LoopbackSocket() { close(fd); }
  int fd;
  std::string address;
};

TEST(ConnectDiagnosis, APortNobodyListensOnIsRefused) {
  std::string address;
  {
    LoopbackSocket bound(-1);  // bound, never listening: connects are refused
    address = bound.address;
    ConnectDiagnosis d = DiagnoseConnect(address, 1000ms);
    EXPECT_EQ(d.failure, ConnectFailure::kRefused) << d.reason;
    EXPECT_EQ(d.reason, "nothing listens at " + address + " (connection refused, ECONNREFUSED)");
  }
  std::string why = UnreachableReason(address, "Deadline Exceeded", false, "", 1000ms);
  EXPECT_NE(why.find("nothing listens at " + address), std::string::npos) << why;
  EXPECT_EQ(why.find("--tls-dir"), std::string::npos) << "a refused port is no TLS matter: " << why;
}

TEST(ConnectDiagnosis, ANameThatDoesNotResolveIsNamed) {
  ConnectDiagnosis d = DiagnoseConnect("no-such-agent.invalid:7070", 1000ms);
  EXPECT_EQ(d.failure, ConnectFailure::kUnresolved) << d.reason;
  EXPECT_EQ(d.reason.rfind("the name no-such-agent.invalid does not resolve (", 0), 0u) << d.reason;
}

TEST(ConnectDiagnosis, APortThatConnectsButIsNotPlainGrpcPointsAtTls) {
  LoopbackSocket listening(8);  // the kernel accepts for it: TCP works, nothing speaks gRPC
  ConnectDiagnosis d = DiagnoseConnect(listening.address, 1000ms);
  EXPECT_EQ(d.failure, ConnectFailure::kConnects) << d.reason;
  std::string plain = UnreachableReason(listening.address, "Deadline Exceeded", false, "", 1000ms);
  EXPECT_NE(plain.find(listening.address + " accepts connections but did not answer iofleet's gRPC in plain text"), std::string::npos) << plain;
  EXPECT_NE(plain.find("if it serves TLS, pass --tls-dir"), std::string::npos) << plain;
  std::string tls = UnreachableReason(listening.address, "Deadline Exceeded", true, "node01", 1000ms);
  EXPECT_NE(tls.find("TLS handshake or gRPC failed"), std::string::npos) << tls;
  EXPECT_NE(tls.find("names node01 (--tls-server-name)"), std::string::npos) << tls;
}

TEST(ConnectDiagnosis, AFullAcceptQueueTimesOut) {
  // With its accept queue full the kernel drops further SYNs: the connect hangs as to a host that
  // is down, on loopback.
  LoopbackSocket listening(0);
  std::vector<int> clients;
  ConnectDiagnosis d;
  for (int i = 0; i < 8 && d.failure != ConnectFailure::kTimedOut; ++i) {
    d = DiagnoseConnect(listening.address, 300ms);
    // Keep a connection in the queue so the next one finds it full.
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(std::stoi(listening.address.substr(10))));
    connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    clients.push_back(c);
  }
  for (int c : clients) close(c);
  EXPECT_EQ(d.failure, ConnectFailure::kTimedOut) << d.reason;
  EXPECT_NE(d.reason.find("no answer from " + listening.address + " (the connect timed out"), std::string::npos) << d.reason;
}

TEST(ConnectDiagnosis, UnixSocketsMissingStaleAndLive) {
  testing::TempDir tmp;
  const std::string path = (tmp / "agent.sock").string();
  ConnectDiagnosis missing = DiagnoseConnect("unix:" + path, 500ms);
  EXPECT_EQ(missing.failure, ConnectFailure::kRefused);
  EXPECT_EQ(missing.reason, "no agent socket at " + path + " (ENOENT: is the agent running?)");

  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ConnectDiagnosis stale = DiagnoseConnect("unix:" + path, 500ms);  // bound, not listening
  EXPECT_EQ(stale.failure, ConnectFailure::kRefused) << stale.reason;
  EXPECT_NE(stale.reason.find("ECONNREFUSED"), std::string::npos) << stale.reason;
  ASSERT_EQ(listen(fd, 4), 0);
  EXPECT_EQ(DiagnoseConnect("unix:" + path, 500ms).failure, ConnectFailure::kConnects);
  close(fd);

  std::ofstream(tmp / "file") << "x";
  ConnectDiagnosis not_socket = DiagnoseConnect("unix:" + (tmp / "file").string(), 500ms);
  EXPECT_EQ(not_socket.reason, (tmp / "file").string() + " is not a socket");
}

}  // namespace
}  // namespace iofleet::controller
