#pragma once
// The Ed25519 public key that corresponds to an X25519 (Curve25519) public
// key: the birational map y = (u - 1) / (u + 1) mod 2^255 - 19, with the
// sign of x given separately (an X25519 key does not carry it). tor uses it
// for the ntor-onion-key cross-certificate of a server descriptor: the relay
// signs with the Ed25519 form of its ntor onion key, and publishes the sign
// bit (tor's ed25519_public_key_from_curve25519_public_key).
#include <optional>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::crypto {

// nullopt for u = -1 (mod p), where the map is undefined. `sign_bit` is 0 or 1.
[[nodiscard]] std::optional<Ed25519Public> ed25519_from_x25519(const X25519Public& u, int sign_bit);

}  // namespace conflux::crypto
