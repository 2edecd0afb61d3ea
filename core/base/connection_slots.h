// Who holds the connections of a server that keeps a fixed number of them open, and whom a newcomer
// pushes out when they are all taken. A cap shared by every client is a lock-out: a few addresses
// holding half-open connections (connected, a partial request, then silence) would keep everyone
// else away until their request timeout. So a full server does not turn a newcomer away while a
// client holding more connections than the newcomer's has one waiting on its client: that one is
// closed (the oldest of the heaviest such client) and its slot goes to the newcomer. When nobody
// holds more, or the newcomer's client is at its own limit, the newcomer takes the slot of its own
// client's oldest waiting connection: a scraper whose address also holds silent connections still
// gets its answer, and no other client loses anything.
//
// Used by `iofleet serve`'s HTTP server and by the /metrics servers (core/metrics/metrics_http_server.h).
// Thread-safe; no call blocks on anything but a short internal lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace iofleet {

// A connection that can be told to close (from any thread: it hands the close to its own).
class Evictable {
 public:
  virtual void Evict() = 0;

 protected:
  ~Evictable() = default;
};

class ConnectionSlots {
 public:
  // `total` connections at most, `per_client` from one client address at most (both >= 1).
  ConnectionSlots(size_t total, size_t per_client) : total_(total), per_client_(per_client) {}

  // What a connection is doing. Only kWaiting connections are evicted: they wait on their client
  // (a TLS handshake, a request, the next request of a keep-alive connection, a lingering close).
  // A connection the server is answering finishes its answer, bounded by the write timeout.
  enum class State { kWaiting, kBusy };

  // A slot for `connection` from `client`, in state kWaiting; 0 when refused (the client holds
  // per_client already, or the server is full, and nobody may be pushed out). A connection
  // evicted to make room is told so (Evict) before this returns, outside the lock.
  uint64_t Admit(const std::string& client, std::weak_ptr<Evictable> connection);
  void SetState(uint64_t slot, State state);
  // The slot is free again. Idempotent; a slot evicted already is a no-op.
  void Release(uint64_t slot);

  size_t open() const;
  size_t open_from(const std::string& client) const;
  size_t evictions() const;

 private:
  struct Holder {
    std::string client;
    State state = State::kWaiting;
    std::weak_ptr<Evictable> connection;
  };
  // Under mu_: the slot whose holder makes room for a newcomer from a client holding `newcomer`
  // slots, or 0.
  uint64_t VictimFor(size_t newcomer) const;
  // Under mu_: the oldest waiting slot `client` holds, or 0.
  uint64_t OldestWaitingOf(const std::string& client) const;
  void Remove(std::map<uint64_t, Holder>::iterator it);

  const size_t total_;
  const size_t per_client_;
  mutable std::mutex mu_;
  uint64_t next_slot_ = 1;
  std::map<uint64_t, Holder> holders_;  // by slot: the oldest first
  std::map<std::string, size_t> by_client_;
  size_t evictions_ = 0;
};

}  // namespace iofleet
