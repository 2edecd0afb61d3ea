// Runs code that must not hang on a FIFO, so that a hang fails the test instead of blocking the
// suite: the code runs on its own thread; past the limit, every FIFO named is opened for reading
// and writing and closed again (an open() blocked on it for either then returns, and a read sees
// end of file), over and over until the thread has returned.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <thread>
#include <vector>

namespace iofleet::testing {

// Whether `body` returned within `limit` (it has returned either way when this returns).
inline bool ReturnsWithin(std::chrono::milliseconds limit, const std::vector<std::filesystem::path>& fifos,
                          const std::function<void()>& body) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread thread([&] {
    body();
    done.set_value();
  });
  const bool in_time = finished.wait_for(limit) == std::future_status::ready;
  while (finished.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    for (const auto& fifo : fifos) {
      int fd = open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) close(fd);
    }
  }
  thread.join();
  return in_time;
}

}  // namespace iofleet::testing
