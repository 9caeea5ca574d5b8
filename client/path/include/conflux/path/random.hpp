#pragma once
// Randomness is injected: the runtime passes a CSPRNG, tests a seeded
// generator, so every choice here is reproducible under test.
#include <cstdint>
#include <functional>

namespace conflux::path {

// Returns uniformly distributed 64-bit values.
using Rng = std::function<std::uint64_t()>;

// Uniform in [0, n) without modulo bias (rejection sampling); 0 when n == 0.
[[nodiscard]] std::uint64_t uniform_below(const Rng& rng, std::uint64_t n);

}  // namespace conflux::path
