// Renews every agent's lease while the run lasts, so agents outlive long steps on other
// agents but not a dead controller. A run holds one from its agents' Prepare to its end.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "controller/fleet/fleet.h"

namespace iofleet::controller {

class LeaseKeeper {
 public:
  LeaseKeeper(Fleet& fleet, std::string run_id, uint64_t lease_ns) : fleet_(fleet), run_id_(std::move(run_id)) {
    period_ = std::chrono::nanoseconds(lease_ns / 4);
    thread_ = std::thread([this] { Loop(); });
  }
  ~LeaseKeeper() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  static constexpr std::chrono::milliseconds kRenewDeadline{3000};

  void Loop() {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, period_, [&] { return done_; })) {
      lock.unlock();
      ForEachAgent(fleet_, [&](size_t i) {
        const FleetAgent& a = *fleet_[i];
        if (a.prepared && !a.streaming && !a.lost) (void)fleet_[i]->client->Renew(run_id_, kRenewDeadline);
      });
      lock.lock();
    }
  }

  Fleet& fleet_;
  const std::string run_id_;
  std::chrono::nanoseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace iofleet::controller
