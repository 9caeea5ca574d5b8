#pragma once
// HashedControlPassword values as `tor --hash-password` makes them: "16:"
// then hex of an RFC 2440 iterated and salted S2K specifier (8 bytes of salt,
// one count byte) and the 20-byte SHA-1 result (tor's
// secret_to_key_rfc2440: the salt and password repeated through SHA-1 until
// (16 + (c & 15)) << ((c >> 4) + 6) bytes went in).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace conflux::control {

// tor's default count byte (96: 65536 bytes hashed).
inline constexpr std::uint8_t kS2kDefaultCount = 0x60;

[[nodiscard]] std::string hash_control_password(std::string_view password, const std::array<std::uint8_t, 8>& salt,
                                                std::uint8_t count = kS2kDefaultCount);
// Whether `password` hashes to `hashed` (compared in constant time); false
// when `hashed` is not of the form above.
[[nodiscard]] bool control_password_matches(std::string_view hashed, std::string_view password);
// Whether `hashed` is of that form (a torrc value to accept).
[[nodiscard]] bool valid_hashed_control_password(std::string_view hashed);

}  // namespace conflux::control
