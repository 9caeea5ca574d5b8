#pragma once
// Constant-time comparisons for secrets, MACs, nonces and handshake results.
#include <cstdint>
#include <span>

namespace conflux::crypto {

// False when the lengths differ (lengths are not secret); otherwise compares
// every byte regardless of where the first difference is.
[[nodiscard]] bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept;
[[nodiscard]] bool ct_is_zero(std::span<const std::uint8_t> a) noexcept;

}  // namespace conflux::crypto
