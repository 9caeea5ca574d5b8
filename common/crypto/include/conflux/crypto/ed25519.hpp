#pragma once
// Ed25519 signatures (RFC 8032, pure Ed25519).
#include <array>
#include <memory>
#include <cstdint>
#include <span>

#include "conflux/crypto/secret.hpp"

struct evp_pkey_st;

namespace conflux::crypto {

using Ed25519Public = std::array<std::uint8_t, 32>;
using Ed25519Signature = std::array<std::uint8_t, 64>;

class Ed25519Keypair {
 public:
  static Ed25519Keypair generate();
  // From the 32-byte RFC 8032 seed.
  static Ed25519Keypair from_seed(std::span<const std::uint8_t, 32> seed);

  [[nodiscard]] const Ed25519Public& public_key() const noexcept { return public_; }
  [[nodiscard]] std::span<const std::uint8_t, 32> seed() const noexcept { return seed_.view(); }
  [[nodiscard]] Ed25519Signature sign(std::span<const std::uint8_t> msg) const;

 private:
  Ed25519Keypair() = default;
  Secret<32> seed_;
  Ed25519Public public_{};
  // The imported key: importing derives the public key, so do it once.
  std::shared_ptr<evp_pkey_st> key_;
};

[[nodiscard]] bool ed25519_verify(const Ed25519Public& key, std::span<const std::uint8_t> msg,
                                  const Ed25519Signature& sig) noexcept;

}  // namespace conflux::crypto
