#pragma once
// Curve25519 Diffie-Hellman (RFC 7748).
#include <array>
#include <memory>
#include <cstdint>
#include <optional>
#include <span>

#include "conflux/crypto/secret.hpp"

struct evp_pkey_st;

namespace conflux::crypto {

using X25519Public = std::array<std::uint8_t, 32>;
using X25519Shared = Secret<32>;

class X25519Secret {
 public:
  static X25519Secret generate();
  static X25519Secret from_bytes(std::span<const std::uint8_t, 32> secret);

  [[nodiscard]] const X25519Public& public_key() const noexcept { return public_; }
  [[nodiscard]] std::span<const std::uint8_t, 32> secret_bytes() const noexcept { return secret_.view(); }
  // Shared secret with peer's public key. nullopt when the result is all
  // zeros (a small-order peer key), which every Tor handshake must reject.
  [[nodiscard]] std::optional<X25519Shared> dh(const X25519Public& peer) const;

 private:
  X25519Secret() = default;
  Secret<32> secret_;
  X25519Public public_{};
  // The imported key, kept so that each DH costs one scalar multiplication
  // (importing a raw private key recomputes its public key).
  std::shared_ptr<evp_pkey_st> key_;
};

}  // namespace conflux::crypto
