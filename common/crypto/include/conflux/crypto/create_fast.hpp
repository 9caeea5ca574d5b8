#pragma once
// The CREATE_FAST handshake (tor-spec 5.1.3), for a first hop whose onion key
// the client does not know yet: a one-hop circuit to a bridge to fetch its
// descriptor. The TLS link already authenticated the relay's identity; the
// handshake adds no authentication of its own, only fresh keys.
//
//   client -> relay   X[20]                 (CREATE_FAST)
//   relay  -> client  Y[20] | KH[20]        (CREATED_FAST)
//
//   K = KDF-TOR(X | Y) = KH[20] | Df[20] | Db[20] | Kf[16] | Kb[16] ...
//
// KH proves the relay saw X; the rest is the caller's key material in the
// layout RelayCryptoKeys::from_key_material expects (tor-spec 5.2.2).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "conflux/crypto/ntor_common.hpp"
#include "conflux/crypto/secret.hpp"

namespace conflux::crypto {

inline constexpr std::size_t kFastKeyLen = 20;                 // HASH_LEN
inline constexpr std::size_t kFastReplyLen = 2 * kFastKeyLen;  // Y | KH

using FastKey = std::array<std::uint8_t, kFastKeyLen>;
using FastReply = std::array<std::uint8_t, kFastReplyLen>;

// What the client keeps between CREATE_FAST and CREATED_FAST: X, wiped on
// destruction.
class FastClientState {
 public:
  // Checks KH (constant time) in a reply of at least 40 bytes (the rest of a
  // cell payload is padding) and derives key_len bytes after KH. BadLength
  // if the reply is short, BadAuth if KH does not match.
  [[nodiscard]] HandshakeResult<KeyMaterial> finish(std::span<const std::uint8_t> reply,
                                                    std::size_t key_len) const;

 private:
  friend struct FastClient;
  explicit FastClientState(const Secret<kFastKeyLen>& x) : x_(x) {}
  Secret<kFastKeyLen> x_;
};

struct FastClientStart {
  FastClientState state;
  FastKey x;  // the CREATE_FAST body
};

struct FastClient {
  // A fresh X from the CSPRNG.
  static FastClientStart start();
  // FOR TESTS (known answers): a caller-chosen X.
  static FastClientStart start_with_x(const FastKey& x);
};

struct FastServerResult {
  FastReply reply;  // Y | KH, the CREATED_FAST body
  KeyMaterial keys;
};

// The relay's side: X is the first 20 bytes of the CREATE_FAST payload (the
// rest is padding); Y comes from the CSPRNG. BadLength if fewer than 20.
[[nodiscard]] HandshakeResult<FastServerResult> fast_server_handshake(std::span<const std::uint8_t> x,
                                                                      std::size_t key_len);
// FOR TESTS (known answers): the same with a caller-chosen Y.
[[nodiscard]] HandshakeResult<FastServerResult> fast_server_handshake_with_y(std::span<const std::uint8_t> x,
                                                                             const FastKey& y,
                                                                             std::size_t key_len);

}  // namespace conflux::crypto
