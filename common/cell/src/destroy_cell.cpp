#include "conflux/cell/destroy_cell.hpp"

namespace conflux::cell {

std::string_view to_string(DestroyReason r) noexcept {
  switch (r) {
    case DestroyReason::None: return "NONE";
    case DestroyReason::Protocol: return "PROTOCOL";
    case DestroyReason::Internal: return "INTERNAL";
    case DestroyReason::Requested: return "REQUESTED";
    case DestroyReason::Hibernating: return "HIBERNATING";
    case DestroyReason::ResourceLimit: return "RESOURCELIMIT";
    case DestroyReason::ConnectFailed: return "CONNECTFAILED";
    case DestroyReason::OrIdentity: return "OR_IDENTITY";
    case DestroyReason::ChannelClosed: return "CHANNEL_CLOSED";
    case DestroyReason::Finished: return "FINISHED";
    case DestroyReason::Timeout: return "TIMEOUT";
    case DestroyReason::Destroyed: return "DESTROYED";
    case DestroyReason::NoSuchService: return "NOSUCHSERVICE";
  }
  return "UNKNOWN";
}

Decoded<DestroyCell> decode_destroy_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  const std::uint8_t reason = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  return DestroyCell{static_cast<DestroyReason>(reason)};
}

std::vector<std::uint8_t> encode_destroy_cell(const DestroyCell& cell) {
  return {static_cast<std::uint8_t>(cell.reason)};
}

}  // namespace conflux::cell
