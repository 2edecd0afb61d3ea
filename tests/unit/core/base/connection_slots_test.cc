// Who keeps a connection of a full server, and whom a newcomer pushes out.
#include "core/base/connection_slots.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

namespace iofleet {
namespace {

struct Connection : Evictable {
  std::atomic<int> evicted{0};
  void Evict() override { evicted.fetch_add(1); }
};

struct Held {
  std::shared_ptr<Connection> connection = std::make_shared<Connection>();
  uint64_t slot = 0;
};

Held Open(ConnectionSlots& slots, const std::string& client) {
  Held h;
  h.slot = slots.Admit(client, h.connection);
  return h;
}

TEST(ConnectionSlots, AClientIsHeldToItsOwnLimit) {
  ConnectionSlots slots(10, 2);
  Held a1 = Open(slots, "a"), a2 = Open(slots, "a");
  EXPECT_NE(a1.slot, 0u);
  EXPECT_NE(a2.slot, 0u);
  slots.SetState(a1.slot, ConnectionSlots::State::kBusy);
  slots.SetState(a2.slot, ConnectionSlots::State::kBusy);
  EXPECT_EQ(Open(slots, "a").slot, 0u);  // both being answered: none of its own to give up
  EXPECT_NE(Open(slots, "b").slot, 0u);
  slots.Release(a1.slot);
  slots.Release(a1.slot);  // idempotent
  EXPECT_EQ(slots.open_from("a"), 1u);
  EXPECT_NE(Open(slots, "a").slot, 0u);
}

// CI failed MetricsTest.SilentConnectionsDelayNoScrape: a scraper whose own address held silent
// connections, on a server full of other clients' holding as many, was refused (a reset). A
// client at its limit, or on a full server where nobody holds more, gives up its own oldest
// idle connection (nothing of a request sent) to its newcomer: its share is unchanged and nobody
// else loses a connection. One whose request is under way, or being answered, is not given up.
TEST(ConnectionSlots, ANewcomerReplacesItsOwnClientsOldestIdleConnection) {
  ConnectionSlots slots(10, 4);
  std::vector<Held> a;
  for (int i = 0; i < 4; ++i) a.push_back(Open(slots, "a"));
  slots.SetState(a[0].slot, ConnectionSlots::State::kBusy);
  slots.SetState(a[1].slot, ConnectionSlots::State::kWaiting);  // its request partly arrived
  Held fifth = Open(slots, "a");  // at its limit
  ASSERT_NE(fifth.slot, 0u);
  EXPECT_EQ(a[0].connection->evicted.load(), 0);  // being answered
  EXPECT_EQ(a[1].connection->evicted.load(), 0);  // a request under way
  EXPECT_EQ(a[2].connection->evicted.load(), 1);
  EXPECT_EQ(a[3].connection->evicted.load(), 0);
  EXPECT_EQ(slots.open_from("a"), 4u);
  slots.SetState(a[3].slot, ConnectionSlots::State::kWaiting);
  slots.SetState(fifth.slot, ConnectionSlots::State::kWaiting);
  EXPECT_EQ(Open(slots, "a").slot, 0u);  // none of its own idle: refused

  ConnectionSlots full(4, 4);
  std::vector<Held> held;
  for (const char* client : {"a", "a", "b", "b"}) held.push_back(Open(full, client));
  Held newcomer = Open(full, "a");  // a full server, nobody holds more than "a"
  ASSERT_NE(newcomer.slot, 0u);
  EXPECT_EQ(held[0].connection->evicted.load(), 1);
  for (size_t i = 1; i < held.size(); ++i) EXPECT_EQ(held[i].connection->evicted.load(), 0);
  EXPECT_EQ(full.open_from("a"), 2u);
  EXPECT_EQ(full.open_from("b"), 2u);
}

// The lock-out: a few addresses fill the server with connections that wait on
// their client; a newcomer still gets in, and the one pushed out is the oldest of the heaviest.
TEST(ConnectionSlots, ANewcomerPushesOutTheOldestWaitingConnectionOfTheHeaviestClient) {
  ConnectionSlots slots(6, 4);
  std::vector<Held> a, b;
  for (int i = 0; i < 4; ++i) a.push_back(Open(slots, "a"));
  for (int i = 0; i < 2; ++i) b.push_back(Open(slots, "b"));
  ASSERT_EQ(slots.open(), 6u);
  Held fresh = Open(slots, "fresh");
  ASSERT_NE(fresh.slot, 0u);
  EXPECT_EQ(a[0].connection->evicted.load(), 1);
  for (size_t i = 1; i < a.size(); ++i) EXPECT_EQ(a[i].connection->evicted.load(), 0);
  for (const Held& h : b) EXPECT_EQ(h.connection->evicted.load(), 0);
  EXPECT_EQ(slots.open(), 6u);
  EXPECT_EQ(slots.open_from("a"), 3u);
  EXPECT_EQ(slots.evictions(), 1u);
  slots.Release(a[0].slot);  // its close comes later: a no-op
  EXPECT_EQ(slots.open_from("a"), 3u);
  // The heaviest pushes out nobody else's: its newcomer takes its own oldest idle slot.
  Held again = Open(slots, "a");
  ASSERT_NE(again.slot, 0u);
  EXPECT_EQ(a[1].connection->evicted.load(), 1);
  for (const Held& h : b) EXPECT_EQ(h.connection->evicted.load(), 0);
  EXPECT_EQ(slots.open_from("a"), 3u);
}

TEST(ConnectionSlots, OnlyWaitingConnectionsArePushedOut) {
  ConnectionSlots slots(2, 2);
  Held a1 = Open(slots, "a"), a2 = Open(slots, "a");
  slots.SetState(a1.slot, ConnectionSlots::State::kBusy);
  slots.SetState(a2.slot, ConnectionSlots::State::kBusy);
  EXPECT_EQ(Open(slots, "b").slot, 0u);  // both are being answered: they finish first
  slots.SetState(a2.slot, ConnectionSlots::State::kWaiting);
  EXPECT_NE(Open(slots, "b").slot, 0u);
  EXPECT_EQ(a1.connection->evicted.load(), 0);
  EXPECT_EQ(a2.connection->evicted.load(), 1);
}

TEST(ConnectionSlots, AnEqualShareIsNoReasonToPushAnyoneOut) {
  ConnectionSlots slots(4, 4);
  std::vector<Held> held;
  for (const char* client : {"a", "a", "b", "b"}) held.push_back(Open(slots, client));
  for (const Held& h : held) slots.SetState(h.slot, ConnectionSlots::State::kBusy);
  slots.SetState(held[2].slot, ConnectionSlots::State::kWaiting);
  EXPECT_EQ(Open(slots, "a").slot, 0u);  // its own are being answered; b's is not a's to take
  EXPECT_EQ(held[2].connection->evicted.load(), 0);
  EXPECT_NE(Open(slots, "c").slot, 0u);
  EXPECT_EQ(held[2].connection->evicted.load(), 1);
}

TEST(ConnectionSlots, AConnectionAlreadyGoingStillFreesItsSlot) {
  ConnectionSlots slots(1, 1);
  uint64_t gone;
  {
    auto connection = std::make_shared<Connection>();
    gone = slots.Admit("a", connection);
    ASSERT_NE(gone, 0u);
  }  // destroyed before it released its slot
  Held fresh = Open(slots, "b");
  EXPECT_NE(fresh.slot, 0u);
  slots.Release(gone);
  EXPECT_EQ(slots.open(), 1u);
}

}  // namespace
}  // namespace iofleet
