#pragma once
// The Ed25519 key pair that an X25519 (Curve25519) secret key is, as tor
// derives it for the ntor-onion-key cross-certificate of a server descriptor
// (ed25519_keypair_from_curve25519_keypair): the clamped X25519 scalar `a` is
// the Ed25519 secret scalar, and the nonce half of the expanded secret key is
// the first 32 bytes of SHA-512(secret || "Derive high part of ed25519 key
// from curve25519 key\0"). Its public key A = aB maps to the X25519 public key
// u = aB' (ed25519_from_x25519 with the sign bit of A's x). Signatures are
// RFC 8032 Ed25519 with that expanded key (ref10's crypto_sign with a 64-byte
// secret key), which OpenSSL's API cannot make (it takes only seeds); the
// scalar and point operations are libsodium's.
#include <array>
#include <cstdint>
#include <span>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/secret.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::crypto {

class Ed25519FromX25519 {
 public:
  explicit Ed25519FromX25519(const X25519Secret& onion);

  [[nodiscard]] const Ed25519Public& public_key() const noexcept { return public_; }
  // The sign of A's x coordinate (A's top bit): 0 or 1.
  [[nodiscard]] int sign_bit() const noexcept { return public_[31] >> 7; }
  [[nodiscard]] Ed25519Signature sign(std::span<const std::uint8_t> msg) const;

 private:
  Secret<32> scalar_;  // a, reduced mod L (aB is unchanged: B has order L)
  Secret<32> nonce_key_;
  Ed25519Public public_{};
};

}  // namespace conflux::crypto
