#pragma once
// The CSPRNG (OpenSSL's DRBG, seeded from the kernel).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace conflux::crypto {

// Throws CryptoError only if the DRBG cannot be seeded, which is fatal.
void random_bytes(std::span<std::uint8_t> out);

template <std::size_t N>
std::array<std::uint8_t, N> random_array() {
  std::array<std::uint8_t, N> a{};
  random_bytes(a);
  return a;
}

// Uniform in [0, bound), bound > 0, without modulo bias.
std::uint64_t random_uniform(std::uint64_t bound);

}  // namespace conflux::crypto
