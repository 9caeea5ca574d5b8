#pragma once
// Circuit IDs on one channel, link protocol 4 or later (tor-spec 5.1.1):
// 4-byte IDs; the node that initiated the channel picks IDs with the most
// significant bit set, the responder picks them with it clear; 0 is never a
// circuit. IDs are drawn at random among the unused ones and tor gives up
// after 64 tries, which we do too (configurable).
//
// The table holds every ID in use on the channel, whichever side chose it,
// and enforces a per-channel circuit limit. An ID must stay registered until
// its circuit is gone from both ends (tor counts IDs with a pending DESTROY
// as in use), so the caller releases it only then.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_set>

#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"

namespace conflux::proto {

enum class ChannelRole : std::uint8_t { Initiator, Responder };

enum class CircIdError : std::uint8_t {
  LimitReached,  // the channel already carries its maximum number of circuits
  Exhausted,     // every random try hit an ID in use
  Zero,          // a peer's CREATE used circuit ID 0
  WrongHalf,     // a peer's CREATE used an ID from our half (wrong MSB)
  InUse,         // a peer's CREATE reused an ID that is still in use
};

[[nodiscard]] const char* to_string(CircIdError e) noexcept;

inline constexpr std::uint32_t kCircIdHighBit = 0x8000'0000u;

class CircIdTable {
 public:
  // Source of uniform 32-bit values; the default is the CSPRNG. Tests inject
  // a deterministic one.
  using RandomU32 = std::function<std::uint32_t()>;

  static constexpr unsigned kDefaultMaxTries = 64;

  CircIdTable(ChannelRole our_role, std::size_t max_circuits, unsigned max_tries = kDefaultMaxTries,
              RandomU32 random = {});

  // A fresh ID for a circuit we create on this channel (our half, nonzero,
  // unused). The ID is registered.
  [[nodiscard]] Result<CircId, CircIdError> allocate();
  // The ID of a CREATE/CREATE2 the peer sent: must be nonzero, from the
  // peer's half and unused, and the limit must allow another circuit.
  [[nodiscard]] Result<CircId, CircIdError> register_peer(CircId id);
  // Frees an ID; false if it was not in use.
  bool release(CircId id);

  [[nodiscard]] bool in_use(CircId id) const { return used_.contains(id.value()); }
  [[nodiscard]] std::size_t size() const noexcept { return used_.size(); }
  [[nodiscard]] ChannelRole role() const noexcept { return role_; }
  // True if 'id' is from the half the given role chooses from.
  [[nodiscard]] static constexpr bool chosen_by(ChannelRole role, CircId id) noexcept {
    return ((id.value() & kCircIdHighBit) != 0) == (role == ChannelRole::Initiator);
  }

 private:
  ChannelRole role_;
  std::size_t max_circuits_;
  unsigned max_tries_;
  RandomU32 random_;
  std::unordered_set<std::uint32_t> used_;
};

}  // namespace conflux::proto
