#include "conflux/cell/opaque_relay_cell.hpp"

namespace conflux::cell {

Decoded<OpaqueRelayCell> decode_opaque_relay_cell(bytes::ByteSpan payload) {
  if (payload.size() != kCellPayloadLen) return fail(DecodeError::BadLength);
  OpaqueRelayCell out;
  bytes::Reader r(payload);
  r.copy_to(out.payload);
  return out;
}

std::vector<std::uint8_t> encode_opaque_relay_cell(const OpaqueRelayCell& cell) {
  return {cell.payload.begin(), cell.payload.end()};
}

}  // namespace conflux::cell
