#include "core/base/connection_slots.h"

namespace iofleet {

uint64_t ConnectionSlots::Admit(const std::string& client, std::weak_ptr<Evictable> connection) {
  std::shared_ptr<Evictable> evicted;  // told after the lock is released
  uint64_t slot = 0;
  {
    std::lock_guard lock(mu_);
    auto mine = by_client_.find(client);
    const size_t held = mine == by_client_.end() ? 0 : mine->second;
    uint64_t victim = 0;
    if (held >= per_client_) {
      victim = OldestIdleOf(client);
      if (victim == 0) return 0;
    } else if (holders_.size() >= total_) {
      victim = VictimFor(held);
      if (victim == 0) victim = OldestIdleOf(client);
      if (victim == 0) return 0;
    }
    if (victim != 0) {
      auto it = holders_.find(victim);
      evicted = it->second.connection.lock();  // null: it is closing on its own already
      Remove(it);
      ++evictions_;
    }
    slot = next_slot_++;
    holders_.emplace(slot, Holder{client, State::kIdle, std::move(connection)});
    ++by_client_[client];
  }
  if (evicted) evicted->Evict();
  return slot;
}

uint64_t ConnectionSlots::VictimFor(size_t newcomer) const {
  // The oldest waiting connection of the client holding the most slots, if that client holds
  // more than the newcomer does now. An equal share is no reason to push anyone out; when every
  // client holds one, the oldest waiting connection makes room, so a newcomer's first connection
  // gets in while anyone at all is waiting.
  uint64_t victim = 0;
  size_t victim_held = 0;
  for (const auto& [slot, holder] : holders_) {  // oldest first: the first of the heaviest wins
    if (holder.state == State::kBusy) continue;
    const size_t held = by_client_.at(holder.client);
    if (held > newcomer && held > victim_held) {
      victim = slot;
      victim_held = held;
    }
  }
  return victim;
}

uint64_t ConnectionSlots::OldestIdleOf(const std::string& client) const {
  for (const auto& [slot, holder] : holders_) {
    if (holder.state == State::kIdle && holder.client == client) return slot;
  }
  return 0;
}

void ConnectionSlots::SetState(uint64_t slot, State state) {
  std::lock_guard lock(mu_);
  auto it = holders_.find(slot);
  if (it != holders_.end()) it->second.state = state;
}

void ConnectionSlots::Release(uint64_t slot) {
  std::lock_guard lock(mu_);
  auto it = holders_.find(slot);
  if (it != holders_.end()) Remove(it);
}

void ConnectionSlots::Remove(std::map<uint64_t, Holder>::iterator it) {
  auto client = by_client_.find(it->second.client);
  if (client != by_client_.end() && --client->second == 0) by_client_.erase(client);
  holders_.erase(it);
}

size_t ConnectionSlots::open() const {
  std::lock_guard lock(mu_);
  return holders_.size();
}

size_t ConnectionSlots::open_from(const std::string& client) const {
  std::lock_guard lock(mu_);
  auto it = by_client_.find(client);
  return it == by_client_.end() ? 0 : it->second;
}

size_t ConnectionSlots::evictions() const {
  std::lock_guard lock(mu_);
  return evictions_;
}

}  // namespace iofleet
