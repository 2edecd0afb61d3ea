#include "controller/fleet/connect_diagnosis.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/base/status.h"

namespace iofleet::controller {
namespace {

std::string ErrnoText(int err) { return std::string(strerror(err)) + ", " + ErrnoName(err); }

// Connects `fd` to `addr` within `timeout`: 0, or the errno (ETIMEDOUT when the time ran out).
int ConnectWithin(int fd, const sockaddr* addr, socklen_t len, std::chrono::milliseconds timeout) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (connect(fd, addr, len) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd p{fd, POLLOUT, 0};
  int ready = poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready == 0) return ETIMEDOUT;
  if (ready < 0) return errno;
  int err = 0;
  socklen_t err_len = sizeof(err);
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len);
  return err;
}

ConnectDiagnosis FromErrno(int err, const std::string& where) {
  if (err == 0) return {ConnectFailure::kConnects, where + " accepts connections"};
  if (err == ECONNREFUSED) return {ConnectFailure::kRefused, "nothing listens at " + where + " (connection refused, ECONNREFUSED)"};
  if (err == ETIMEDOUT) {
    return {ConnectFailure::kTimedOut, "no answer from " + where + " (the connect timed out: is the host up, the port open in its firewall, the address right?)"};
  }
  return {ConnectFailure::kOtherError, "cannot connect to " + where + " (" + ErrnoText(err) + ")"};
}

ConnectDiagnosis DiagnoseUnix(const std::string& address, std::chrono::milliseconds timeout) {
  const std::string path = address.substr(5);
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) return {ConnectFailure::kRefused, "no agent socket at " + path + " (ENOENT: is the agent running?)"};
    return {ConnectFailure::kOtherError, "cannot reach " + path + " (" + ErrnoText(err) + ")"};
  }
  if (!S_ISSOCK(st.st_mode)) return {ConnectFailure::kOtherError, path + " is not a socket"};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return {ConnectFailure::kOtherError, "the socket path " + path + " is too long"};
  memcpy(addr.sun_path, path.data(), path.size());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {ConnectFailure::kOtherError, "socket: " + ErrnoText(errno)};
  int err = ConnectWithin(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr), timeout);
  close(fd);
  return FromErrno(err, address);
}

}  // namespace

ConnectDiagnosis DiagnoseConnect(const std::string& address, std::chrono::milliseconds timeout) {
  if (address.rfind("unix:", 0) == 0) return DiagnoseUnix(address, timeout);
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {ConnectFailure::kOtherError, address + " is not host:port"};
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    std::string why = rc == EAI_SYSTEM ? ErrnoText(errno) : gai_strerror(rc);
    return {ConnectFailure::kUnresolved, "the name " + host + " does not resolve (" + why + ")"};
  }
  // Every address the name has, as gRPC tries them: the best outcome wins (one that connects, then
  // a refusal, which is definite, then a time-out).
  ConnectDiagnosis best = FromErrno(ETIMEDOUT, address);
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int err = ConnectWithin(fd, ai->ai_addr, ai->ai_addrlen, timeout);
    close(fd);
    ConnectDiagnosis d = FromErrno(err, address);
    if (d.failure == ConnectFailure::kConnects) {
      best = d;
      break;
    }
    if (d.failure == ConnectFailure::kRefused || best.failure == ConnectFailure::kTimedOut) best = d;
  }
  freeaddrinfo(found);
  return best;
}

std::string UnreachableReason(const std::string& address, const std::string& grpc_message, bool tls,
                              const std::string& server_name, std::chrono::milliseconds timeout) {
  ConnectDiagnosis d = DiagnoseConnect(address, timeout);
  if (d.failure != ConnectFailure::kConnects) return d.reason;
  // The port answers TCP, so what failed is above it: gRPC does not say why a TLS handshake failed,
  // so name what must hold.
  if (!tls) {
    return d.reason + " but did not answer iofleet's gRPC in plain text (" + grpc_message +
           "): if it serves TLS, pass --tls-dir; else check that it is an iofleet-agent";
  }
  if (address.rfind("unix:", 0) == 0) return d.reason + " but did not answer iofleet's gRPC (" + grpc_message + ")";
  return d.reason + " but the TLS handshake or gRPC failed (" + grpc_message +
         "): check that its certificate is signed by this --tls-dir's ca.pem for server use and names " +
         (server_name.empty() ? "the host part of its address" : server_name) +
         " (--tls-server-name), that this side's certificate is a controller's, for client use, and that the agent serves TLS";
}

}  // namespace iofleet::controller
