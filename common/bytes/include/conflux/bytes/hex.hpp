#pragma once
// Hex encoding for logs at debug level, tests and config (fingerprints).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/reader.hpp"

namespace conflux::bytes {

std::string to_hex(ByteSpan data, bool upper = false);
// Accepts upper or lower case; rejects odd lengths and non-hex characters.
std::optional<std::vector<std::uint8_t>> from_hex(std::string_view hex);

}  // namespace conflux::bytes
