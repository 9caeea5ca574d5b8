#include "conflux/proto/circuit_ids.hpp"

#include <utility>

#include "conflux/crypto/random.hpp"

namespace conflux::proto {

const char* to_string(CircIdError e) noexcept {
  switch (e) {
    case CircIdError::LimitReached: return "circuit limit reached on channel";
    case CircIdError::Exhausted: return "no unused circuit ID found";
    case CircIdError::Zero: return "circuit ID 0";
    case CircIdError::WrongHalf: return "circuit ID from the wrong half";
    case CircIdError::InUse: return "circuit ID already in use";
  }
  return "unknown circuit ID error";
}

CircIdTable::CircIdTable(ChannelRole our_role, std::size_t max_circuits, unsigned max_tries, RandomU32 random)
    : role_(our_role), max_circuits_(max_circuits), max_tries_(max_tries), random_(std::move(random)) {
  if (!random_) {
    random_ = [] { return static_cast<std::uint32_t>(crypto::random_uniform(std::uint64_t{1} << 32)); };
  }
}

Result<CircId, CircIdError> CircIdTable::allocate() {
  if (used_.size() >= max_circuits_) return Unexpected{CircIdError::LimitReached};
  const std::uint32_t high = role_ == ChannelRole::Initiator ? kCircIdHighBit : 0u;
  for (unsigned attempt = 0; attempt < max_tries_; ++attempt) {
    const std::uint32_t id = (random_() & ~kCircIdHighBit) | high;
    if (id == 0 || used_.contains(id)) continue;
    used_.insert(id);
    return CircId{id};
  }
  return Unexpected{CircIdError::Exhausted};
}

Result<CircId, CircIdError> CircIdTable::register_peer(CircId id) {
  if (id.value() == 0) return Unexpected{CircIdError::Zero};
  const ChannelRole peer = role_ == ChannelRole::Initiator ? ChannelRole::Responder : ChannelRole::Initiator;
  if (!chosen_by(peer, id)) return Unexpected{CircIdError::WrongHalf};
  if (used_.contains(id.value())) return Unexpected{CircIdError::InUse};
  if (used_.size() >= max_circuits_) return Unexpected{CircIdError::LimitReached};
  used_.insert(id.value());
  return id;
}

bool CircIdTable::release(CircId id) { return used_.erase(id.value()) != 0; }

}  // namespace conflux::proto
