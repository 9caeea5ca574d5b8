#pragma once
// AES-CTR stream cipher (128- or 256-bit key) with a continuous key stream:
// successive apply() calls continue where the last one stopped, as Tor's
// relay crypto needs across cells.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

struct evp_cipher_ctx_st;

namespace conflux::crypto {

class AesCtr {
 public:
  // key: 16 or 32 bytes. iv: the 16-byte initial counter block (zero for Tor).
  explicit AesCtr(std::span<const std::uint8_t> key, std::span<const std::uint8_t, 16> iv);
  explicit AesCtr(std::span<const std::uint8_t> key);
  AesCtr(const AesCtr&) = delete;
  AesCtr& operator=(const AesCtr&) = delete;
  AesCtr(AesCtr&& other) noexcept;
  AesCtr& operator=(AesCtr&& other) noexcept;
  ~AesCtr();

  // XORs the key stream into data in place.
  void apply(std::span<std::uint8_t> data);
  // Copies in -> out (same length) through the key stream.
  void apply(std::span<const std::uint8_t> in, std::span<std::uint8_t> out);

 private:
  evp_cipher_ctx_st* ctx_ = nullptr;
};

}  // namespace conflux::crypto
