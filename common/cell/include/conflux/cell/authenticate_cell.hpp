#pragma once
// AUTHENTICATE cell body (tor-spec 4.4):
//
//   AuthType[2] | AuthLen[2] | Authentication[AuthLen]
//
// Responders MUST ignore extra bytes after Authentication. The Authentication
// contents (AUTH0001 / AUTH0003 fields and signature) are the link
// handshake's business and stay opaque here.
#include <cstdint>
#include <vector>

#include "conflux/cell/auth_challenge_cell.hpp"  // auth_method constants
#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

struct AuthenticateCell {
  std::uint16_t auth_type = 0;
  std::vector<std::uint8_t> authentication;
  friend bool operator==(const AuthenticateCell&, const AuthenticateCell&) = default;
};

// Truncated if AuthLen runs past the payload.
[[nodiscard]] Decoded<AuthenticateCell> decode_authenticate_cell(bytes::ByteSpan payload);
// PayloadTooLong if the body does not fit a 65535-byte variable payload.
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_authenticate_cell(
    const AuthenticateCell& cell);

}  // namespace conflux::cell
