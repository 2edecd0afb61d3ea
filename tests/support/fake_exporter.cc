#include "tests/support/fake_exporter.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/http_client.h"

namespace iofleet::testing {

FakeExporter::FakeExporter(std::function<std::string(int)> page) : page_(std::move(page)) {
  int port = 0;
  fd_ = ListenOnLoopback(16, port);
  address_ = "127.0.0.1:" + std::to_string(port);
  thread_ = std::thread([this] { Serve(); });
}

FakeExporter::~FakeExporter() {
  stop_ = true;
  thread_.join();
  close(fd_);
}

// One request per connection (Prometheus reconnects or keeps alive; "Connection: close" makes it
// reconnect), answered with the page.
void FakeExporter::Serve() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    int c = accept(fd_, nullptr, nullptr);
    if (c < 0) continue;
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      pollfd q{c, POLLIN, 0};
      if (poll(&q, 1, 1000) <= 0) break;
      ssize_t n = read(c, buf, sizeof(buf));
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
    }
    std::string body = page_(scrapes_++);
    std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nConnection: close\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body;
    for (size_t off = 0; off < answer.size();) {
      ssize_t n = write(c, answer.data() + off, answer.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(c);
  }
}

}  // namespace iofleet::testing
