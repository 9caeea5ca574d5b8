#include "conflux/cell/auth_challenge_cell.hpp"

namespace conflux::cell {

Decoded<AuthChallengeCell> decode_auth_challenge_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  AuthChallengeCell out;
  r.copy_to(out.challenge);
  const std::uint16_t n = r.u16();
  // Check the count against what is there before reserving for it.
  if (!r.ok() || r.remaining() / 2 < n) return fail(DecodeError::Truncated);
  out.methods.reserve(n);
  for (std::uint16_t i = 0; i < n; ++i) out.methods.push_back(r.u16());
  if (!r.ok()) return fail(DecodeError::Truncated);
  return out;
}

CellEncoded<std::vector<std::uint8_t>> encode_auth_challenge_cell(const AuthChallengeCell& cell) {
  if (cell.methods.size() > (kMaxVarPayloadLen - kAuthChallengeLen - 2) / 2)
    return fail(CellEncodeError::TooManyItems);
  bytes::Writer w(kAuthChallengeLen + 2 + 2 * cell.methods.size());
  w.put(cell.challenge);
  w.u16(static_cast<std::uint16_t>(cell.methods.size()));
  for (std::uint16_t m : cell.methods) w.u16(m);
  return std::move(w).take();
}

}  // namespace conflux::cell
