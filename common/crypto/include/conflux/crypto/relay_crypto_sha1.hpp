#pragma once
// A SHA-1 running digest held by value, for the per-cell path of tor1 relay
// crypto. Unlike Hasher<Sha1> (EVP), copying it is a plain 96-byte copy and
// peek() finalizes a stack copy: OpenSSL 3.0's EVP_MD_CTX_copy_ex allocates a
// fresh provider context on every call, and relay crypto checkpoints and peeks
// once per cell. It wraps OpenSSL's low-level SHA1_* functions (deprecated in
// 3.0 but present; they run the same SHA-NI/AVX assembly as EVP), as C tor's
// crypto_digest_t does for the same reason.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace conflux::crypto {

class RelaySha1 {
 public:
  static constexpr std::size_t kSize = 20;

  RelaySha1();
  // Copy = checkpoint; no allocation, no OpenSSL call.
  RelaySha1(const RelaySha1&) = default;
  RelaySha1& operator=(const RelaySha1&) = default;
  ~RelaySha1();

  void update(std::span<const std::uint8_t> data);
  // Digest of everything absorbed so far; this hasher keeps running.
  [[nodiscard]] std::array<std::uint8_t, kSize> peek() const;

 private:
  // Opaque storage for an OpenSSL SHA_CTX (checked by static_assert in the
  // .cpp) so that this header does not pull in OpenSSL.
  static constexpr std::size_t kStateSize = 96;
  alignas(8) std::array<std::byte, kStateSize> state_;
};

}  // namespace conflux::crypto
