#pragma once
// Helpers shared by the unit tests.
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "conflux/bytes/hex.hpp"

namespace conflux::test {

inline std::vector<std::uint8_t> unhex(std::string_view s) {
  std::string compact;
  for (char c : s)
    if (c != ' ' && c != '\n' && c != '\t') compact.push_back(c);
  auto v = bytes::from_hex(compact);
  if (!v) throw std::invalid_argument("bad hex in test");
  return *v;
}

inline std::string hex(std::span<const std::uint8_t> b) { return bytes::to_hex(b); }

}  // namespace conflux::test
