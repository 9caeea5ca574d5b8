#include "conflux/crypto/ct.hpp"

#include <openssl/crypto.h>

#include "conflux/crypto/secret.hpp"

namespace conflux::crypto {

bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool ct_is_zero(std::span<const std::uint8_t> a) noexcept {
  std::uint8_t acc = 0;
  for (std::uint8_t b : a) acc = static_cast<std::uint8_t>(acc | b);
  // Keep the compiler from turning the loop into an early exit.
  volatile std::uint8_t sink = acc;
  return sink == 0;
}

void secure_wipe(void* p, std::size_t n) noexcept { OPENSSL_cleanse(p, n); }

}  // namespace conflux::crypto
