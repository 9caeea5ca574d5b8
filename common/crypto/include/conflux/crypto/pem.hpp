#pragma once
// PEM armour as tor writes it: "-----BEGIN TYPE-----\n", base64 with '='
// padding in lines of 64 characters, "-----END TYPE-----\n".
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace conflux::crypto {

[[nodiscard]] std::string pem_encode(std::span<const std::uint8_t> der, std::string_view type);
// The bytes inside exactly one block of `type` (surrounding whitespace
// allowed, nothing else); nullopt for anything else.
[[nodiscard]] std::optional<std::vector<std::uint8_t>> pem_decode(std::string_view pem, std::string_view type);

}  // namespace conflux::crypto
