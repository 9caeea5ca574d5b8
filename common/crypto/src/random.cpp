#include "conflux/crypto/random.hpp"

#include <limits>

#include <openssl/rand.h>

#include "conflux/crypto/error.hpp"

namespace conflux::crypto {

void random_bytes(std::span<std::uint8_t> out) {
  while (!out.empty()) {
    // RAND_bytes takes an int length.
    std::size_t chunk = std::min<std::size_t>(out.size(), 1u << 30);
    if (RAND_bytes(out.data(), static_cast<int>(chunk)) != 1) throw CryptoError("RAND_bytes");
    out = out.subspan(chunk);
  }
}

std::uint64_t random_uniform(std::uint64_t bound) {
  if (bound == 0) throw std::invalid_argument("random_uniform: bound 0");
  // Reject the top partial range so every value is equally likely.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % bound;
  for (;;) {
    auto raw = random_array<8>();
    std::uint64_t v = 0;
    for (auto b : raw) v = (v << 8) | b;
    if (v < limit) return v % bound;
  }
}

}  // namespace conflux::crypto
