#pragma once
// RELAY / RELAY_EARLY channel cell body (tor-spec 3, 5.6): the 509-byte
// payload, kept as one opaque, onion-encrypted block. At channel level it
// cannot be parsed: only the hop that recognises it after decryption can
// (relay-message parsing lives in the relay_* files). The random padding is
// part of the encrypted block, so the whole array is kept, not a prefix.
#include <array>
#include <cstdint>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

struct OpaqueRelayCell {
  std::array<std::uint8_t, kCellPayloadLen> payload{};
  friend bool operator==(const OpaqueRelayCell&, const OpaqueRelayCell&) = default;
};

// BadLength unless the span is exactly 509 bytes (a fixed cell's payload).
[[nodiscard]] Decoded<OpaqueRelayCell> decode_opaque_relay_cell(bytes::ByteSpan payload);
[[nodiscard]] std::vector<std::uint8_t> encode_opaque_relay_cell(const OpaqueRelayCell& cell);

}  // namespace conflux::cell
