#include "core/base/address_in_use.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace iofleet {
namespace {

Status CheckUnix(const std::string& address) {
  const std::string path = address.substr(5);
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Status::Ok();  // nothing there yet
  if (!S_ISSOCK(st.st_mode)) {
    return Status(Code::kAlreadyExists, path + " exists and is not a socket (ENOTSOCK)");
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return InvalidArgument("the socket path is too long");
  std::memcpy(addr.sun_path, path.data(), path.size());
  // Non-blocking: a live server whose backlog is full must not hang this check (EAGAIN says it
  // is there all the same).
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return PosixError("socket", errno);
  const int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  const int err = rc == 0 ? 0 : errno;
  close(fd);
  // A socket file nobody answers on (ECONNREFUSED) is left by a process that died: binding over
  // it is fine. One that cannot be tried (EACCES: another user's) is not taken over blindly.
  if (err == EACCES || err == EPERM) return PosixError(path, err);
  const bool answered = err == 0 || err == EAGAIN || err == EINPROGRESS;
  if (answered) {
    return Status(Code::kAlreadyExists, "Address already in use (EADDRINUSE): another process serves this socket");
  }
  return Status::Ok();
}

}  // namespace

Status CheckListenAddressFree(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) return CheckUnix(address);
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Status::Ok();  // not host:port: the server's own parse says so
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (port == "0") return Status::Ok();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found) != 0) {
    return Status::Ok();  // the server's own bind names what is wrong with the address
  }
  Status result;
  for (addrinfo* ai = found; ai && result.ok(); ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    // As the servers bind: SO_REUSEADDR (a port left in TIME_WAIT is free), never SO_REUSEPORT.
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno == EADDRINUSE) {
      result = Status(Code::kAlreadyExists, "Address already in use (EADDRINUSE)");
    }
    close(fd);
  }
  freeaddrinfo(found);
  return result;
}

}  // namespace iofleet
