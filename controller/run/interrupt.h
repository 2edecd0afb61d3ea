// Why a run should end now: Ctrl-C or SIGTERM for `iofleet run`, a cancel or a stopping service
// for `iofleet serve`. Raised from a signal handler too, so it is one lock-free pointer to a
// string with static storage.
#pragma once

#include <atomic>
#include <string>

namespace iofleet::controller {

class Interrupt {
 public:
  // `why` must outlive the run (a string literal): "Ctrl-C", "cancelled", ...
  void Raise(const char* why) noexcept {
    const char* none = nullptr;
    why_.compare_exchange_strong(none, why);  // the first reason stays
  }
  bool raised() const noexcept { return why_.load() != nullptr; }
  explicit operator bool() const noexcept { return raised(); }
  // "interrupted (Ctrl-C)": the words every aborted step and run report.
  std::string Describe() const {
    const char* why = why_.load();
    return std::string("interrupted (") + (why ? why : "not interrupted") + ")";
  }

 private:
  std::atomic<const char*> why_{nullptr};
  static_assert(std::atomic<const char*>::is_always_lock_free);
};

}  // namespace iofleet::controller
