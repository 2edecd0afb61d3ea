// A /metrics page on a loopback port whose text a test writes: series shaped as an exporter's
// (agents', controller's) for testing what queries them (dashboards, rules) before or without
// the real exporter. Each scrape calls `page(n)` with the scrape's number, so counters can grow.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace iofleet::testing {

class FakeExporter {
 public:
  explicit FakeExporter(std::function<std::string(int scrape)> page);
  ~FakeExporter();
  const std::string& address() const { return address_; }  // "127.0.0.1:PORT"

 private:
  void Serve();
  std::function<std::string(int)> page_;
  int fd_ = -1;
  std::string address_;
  std::atomic<bool> stop_{false};
  int scrapes_ = 0;
  std::thread thread_;
};

}  // namespace iofleet::testing
