#include "conflux/cell/padding_cells.hpp"

namespace conflux::cell {

Decoded<PaddingCell> decode_padding_cell(bytes::ByteSpan /*payload*/) { return PaddingCell{}; }

std::vector<std::uint8_t> encode_padding_cell(const PaddingCell& /*cell*/) { return {}; }

Decoded<VPaddingCell> decode_vpadding_cell(bytes::ByteSpan payload) {
  if (payload.size() > kMaxVarPayloadLen) return fail(DecodeError::BadLength);
  return VPaddingCell{static_cast<std::uint16_t>(payload.size())};
}

std::vector<std::uint8_t> encode_vpadding_cell(const VPaddingCell& cell) {
  return std::vector<std::uint8_t>(cell.length, 0);
}

Decoded<PaddingNegotiateCell> decode_padding_negotiate_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  const std::uint8_t version = r.u8();
  const std::uint8_t command = r.u8();
  PaddingNegotiateCell out;
  out.ito_low_ms = r.u16();
  out.ito_high_ms = r.u16();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (version != 0) return fail(DecodeError::BadVersion);
  if (command != static_cast<std::uint8_t>(PaddingNegotiateCommand::Stop) &&
      command != static_cast<std::uint8_t>(PaddingNegotiateCommand::Start))
    return fail(DecodeError::BadValue);
  out.command = static_cast<PaddingNegotiateCommand>(command);
  return out;
}

std::vector<std::uint8_t> encode_padding_negotiate_cell(const PaddingNegotiateCell& cell) {
  bytes::Writer w(6);
  w.u8(0);
  w.u8(static_cast<std::uint8_t>(cell.command));
  w.u16(cell.ito_low_ms);
  w.u16(cell.ito_high_ms);
  return std::move(w).take();
}

}  // namespace conflux::cell
