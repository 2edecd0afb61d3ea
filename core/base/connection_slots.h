// Who holds the connections of a server that keeps a fixed number of them open, and whom a newcomer
// pushes out when they are all taken. A cap shared by every client is a lock-out: a few addresses
// holding half-open connections (connected, a partial request, then silence) would keep everyone
// else away until their request timeout. So a full server does not turn a newcomer away while a
// client holding more connections than the newcomer's has one waiting on its client: that one is
// closed (the oldest of the heaviest such client) and its slot goes to the newcomer. When nobody
// holds more, or the newcomer's client is at its own limit, the newcomer takes the slot of its own
// client's oldest idle connection (one that has sent nothing of a request, as nginx reclaims idle
// keep-alive connections): a scraper whose address also holds silent connections still gets its
// answer, and no other client loses anything.
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

  // What a connection is doing. kIdle and kWaiting connections wait on their client and may be
  // evicted: kIdle has sent nothing of its next request (a new connection, a keep-alive one
  // between requests), kWaiting has begun (a TLS handshake, a request partly arrived, a
  // lingering close). A newcomer takes its own address's slot only from a kIdle one, so a burst
  // from one address (many users behind one proxy) never cuts off a request under way. A
  // connection the server is answering (kBusy) finishes its answer, bounded by the write timeout.
  enum class State { kIdle, kWaiting, kBusy };

  // A slot for `connection` from `client`, in state kIdle; 0 when refused (the client holds
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
    State state = State::kIdle;
    std::weak_ptr<Evictable> connection;
  };
  // Under mu_: the slot whose holder makes room for a newcomer from a client holding `newcomer`
  // slots, or 0.
  uint64_t VictimFor(size_t newcomer) const;
  // Under mu_: the oldest idle slot `client` holds, or 0.
  uint64_t OldestIdleOf(const std::string& client) const;
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
