#pragma once
// tor1's running SHA-1 digest of a relay crypto layer (relay_crypto_layer.hpp),
// on OpenSSL's SHA-1 state itself rather than an EVP context, as tor's
// crypto_digest_t does: a checkpoint is a copy of a 96-byte struct, where
// EVP_MD_CTX_copy_ex allocates and dispatches through the provider. The
// client checkpoints and reads the digest of every cell it recognizes, and
// the exit reads it for every cell it seals.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace conflux::crypto {

class RunningSha1 {
 public:
  RunningSha1() noexcept;
  void update(std::span<const std::uint8_t> data) noexcept;
  // Digest of everything absorbed so far; the digest keeps running.
  [[nodiscard]] std::array<std::uint8_t, 20> peek() const noexcept;

 private:
  // OpenSSL's SHA_CTX, held by value (its size is checked where it is used).
  alignas(8) std::array<std::byte, 96> state_{};
};

}  // namespace conflux::crypto
