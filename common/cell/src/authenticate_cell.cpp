#include "conflux/cell/authenticate_cell.hpp"

namespace conflux::cell {

Decoded<AuthenticateCell> decode_authenticate_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  AuthenticateCell out;
  out.auth_type = r.u16();
  const std::uint16_t len = r.u16();
  bytes::ByteSpan body = r.take(len);
  if (!r.ok()) return fail(DecodeError::Truncated);
  out.authentication.assign(body.begin(), body.end());
  return out;
}

CellEncoded<std::vector<std::uint8_t>> encode_authenticate_cell(const AuthenticateCell& cell) {
  if (cell.authentication.size() > kMaxVarPayloadLen - 4) return fail(CellEncodeError::PayloadTooLong);
  bytes::Writer w(4 + cell.authentication.size());
  w.u16(cell.auth_type);
  w.u16(static_cast<std::uint16_t>(cell.authentication.size()));
  w.put(cell.authentication);
  return std::move(w).take();
}

}  // namespace conflux::cell
