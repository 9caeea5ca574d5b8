#pragma once
// KDF-TOR (tor-spec 5.2.1), the SHA-1 key expansion of the old TAP and
// CREATE_FAST handshakes:
//
//   K = H(K0 | [00]) | H(K0 | [01]) | H(K0 | [02]) | ...
//
// truncated to the length asked for. The counter is one byte, so at most
// 256 blocks exist. Only CREATE_FAST uses it here; new protocols use HKDF.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace conflux::crypto {

inline constexpr std::size_t kKdfTorMaxLen = 256 * 20;

// The first `len` bytes of K. Throws std::invalid_argument if len is 0 or
// above kKdfTorMaxLen (a caller bug, never peer input). The caller owns the
// secret result and wipes it (e.g. by moving it into a KeyMaterial).
[[nodiscard]] std::vector<std::uint8_t> kdf_tor(std::span<const std::uint8_t> k0, std::size_t len);

}  // namespace conflux::crypto
