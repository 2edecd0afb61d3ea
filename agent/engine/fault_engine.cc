#include "agent/engine/fault_engine.h"

#include <time.h>

#include "core/base/units.h"

namespace iofleet::agent {

Result<std::vector<Fault>> ParseFaults(const std::string& spec) {
  std::vector<Fault> faults;
  size_t start = 0;
  while (start < spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(start, end - start);
    start = end + 1;
    size_t at = item.find('@');
    if (at == std::string::npos) return InvalidArgument("IOFLEET_FAULT_INJECT: \"" + item + "\" needs @N");
    Fault f;
    std::string what = item.substr(0, at);
    std::string index = item.substr(at + 1);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("IOFLEET_FAULT_INJECT: \"" + index + "\" is not a request number");
    }
    f.request = std::stoull(index);
    if (what == "eio") {
      f.error = EIO;
    } else if (what == "enospc") {
      f.error = ENOSPC;
    } else if (what.rfind("delay=", 0) == 0) {
      auto d = ParseDuration(what.substr(6));
      if (!d.ok()) return InvalidArgument("IOFLEET_FAULT_INJECT: " + d.status().message());
      f.delay_ns = *d;
    } else {
      return InvalidArgument("IOFLEET_FAULT_INJECT: \"" + what + "\" is not eio, enospc or delay=DURATION");
    }
    faults.push_back(f);
  }
  return faults;
}

Status FaultEngine::Open(const EngineSetup& setup) {
  failed_.assign(setup.queue_depth, Completion{0, 0});
  return inner_->Open(setup);
}

int FaultEngine::Enqueue(IoRequest& request) noexcept {
  if (request.done == 0) ++requests_;  // the rest of a short transfer is the same request
  for (const Fault& f : faults_) {
    if (f.request != requests_ || request.done != 0) continue;
    if (f.error) {
      if (failed_count_ == failed_.size()) return -EAGAIN;
      failed_[failed_count_++] = Completion{request.slot, -static_cast<int64_t>(f.error)};
      return 0;
    }
    timespec ts{static_cast<time_t>(f.delay_ns / 1'000'000'000), static_cast<long>(f.delay_ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  return inner_->Enqueue(request);
}

int FaultEngine::Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept {
  if (failed_count_ > 0) {
    uint32_t n = 0;
    while (failed_count_ > 0 && n < out.size()) out[n++] = failed_[--failed_count_];
    return static_cast<int>(n);
  }
  return inner_->Reap(out, min_done, timeout_ns);
}

}  // namespace iofleet::agent
