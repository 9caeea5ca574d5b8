#pragma once
// Base64 (RFC 4648 standard alphabet) without '=' padding, as tor writes
// Ed25519 keys and signatures in its documents. The decoder accepts exactly
// the encoder's output: no padding, no whitespace, no non-zero spare bits, so
// every value has one text form.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/reader.hpp"

namespace conflux::bytes {

std::string base64_encode(ByteSpan data);
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text);

}  // namespace conflux::bytes
