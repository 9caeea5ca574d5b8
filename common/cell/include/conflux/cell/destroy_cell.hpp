#pragma once
// DESTROY cell body (tor-spec 5.4): Reason[1], the rest is padding.
#include <cstdint>
#include <string_view>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

// Every reason tor-spec 5.4 defines. The enum may also hold values outside
// this list: receivers keep unknown reasons (tor does; a future relay may
// send new ones) instead of rejecting the cell, and the circuit is torn
// down either way.
enum class DestroyReason : std::uint8_t {
  None = 0,            // no reason given
  Protocol = 1,        // tor protocol violation
  Internal = 2,        // internal error
  Requested = 3,       // a client sent a TRUNCATE command
  Hibernating = 4,     // not currently operating; trying to save bandwidth
  ResourceLimit = 5,   // out of memory, sockets, or circuit IDs
  ConnectFailed = 6,   // unable to reach relay
  OrIdentity = 7,      // connected, but its OR identity was not as expected
  ChannelClosed = 8,   // the OR connection carrying this circuit died
  Finished = 9,        // the circuit has expired for being dirty or old
  Timeout = 10,        // circuit construction took too long
  Destroyed = 11,      // the circuit was destroyed without client TRUNCATE
  NoSuchService = 12,  // request for unknown hidden service
};

constexpr bool is_known_destroy_reason(DestroyReason r) noexcept {
  return static_cast<std::uint8_t>(r) <= static_cast<std::uint8_t>(DestroyReason::NoSuchService);
}
// Spec name ("CHANNEL_CLOSED"), or "UNKNOWN" for an unlisted value.
std::string_view to_string(DestroyReason r) noexcept;

struct DestroyCell {
  DestroyReason reason = DestroyReason::None;
  friend bool operator==(const DestroyCell&, const DestroyCell&) = default;
};

// Truncated only for an empty span; any reason value is accepted.
[[nodiscard]] Decoded<DestroyCell> decode_destroy_cell(bytes::ByteSpan payload);
[[nodiscard]] std::vector<std::uint8_t> encode_destroy_cell(const DestroyCell& cell);

}  // namespace conflux::cell
