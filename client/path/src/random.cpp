#include "conflux/path/random.hpp"

namespace conflux::path {

std::uint64_t uniform_below(const Rng& rng, std::uint64_t n) {
  if (n == 0) return 0;
  // Values below 2^64 mod n would make the low residues more likely.
  const std::uint64_t reject_below = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= reject_below) return x % n;
  }
}

}  // namespace conflux::path
