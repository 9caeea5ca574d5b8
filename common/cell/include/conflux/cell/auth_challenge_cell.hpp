#pragma once
// AUTH_CHALLENGE cell body (tor-spec 4.3):
//
//   Challenge[32] | N_Methods[2] | Methods[2 * N_Methods]
//
// Initiators MUST ignore bytes after the methods, so trailing bytes decode.
#include <array>
#include <cstdint>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

// Authentication methods (tor-spec 4.4.1 / 4.4.2; there is no method 2).
namespace auth_method {
inline constexpr std::uint16_t kRsaSha256TlsSecret = 1;
inline constexpr std::uint16_t kEd25519Sha256Rfc5705 = 3;
}  // namespace auth_method

inline constexpr std::size_t kAuthChallengeLen = 32;

struct AuthChallengeCell {
  std::array<std::uint8_t, kAuthChallengeLen> challenge{};
  std::vector<std::uint16_t> methods;
  friend bool operator==(const AuthChallengeCell&, const AuthChallengeCell&) = default;
};

// Truncated if the challenge or the N_Methods entries run past the payload.
[[nodiscard]] Decoded<AuthChallengeCell> decode_auth_challenge_cell(bytes::ByteSpan payload);
// TooManyItems if the methods do not fit the 65535-byte variable payload.
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_auth_challenge_cell(
    const AuthChallengeCell& cell);

}  // namespace conflux::cell
