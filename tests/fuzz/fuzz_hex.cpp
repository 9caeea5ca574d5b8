// from_hex must accept exactly the even-length hex strings, and to_hex must
// invert it (modulo case).
#include <cctype>
#include <cstdint>
#include <string_view>

#include "conflux/bytes/hex.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto decoded = conflux::bytes::from_hex(text);
  bool all_hex = size % 2 == 0;
  for (char c : text) all_hex = all_hex && std::isxdigit(static_cast<unsigned char>(c)) != 0;
  if (decoded.has_value() != all_hex) __builtin_trap();
  if (decoded) {
    auto again = conflux::bytes::to_hex(*decoded);
    if (again.size() != size) __builtin_trap();
    for (std::size_t i = 0; i < size; ++i)
      if (again[i] != std::tolower(static_cast<unsigned char>(text[i]))) __builtin_trap();
  }
  auto encoded = conflux::bytes::to_hex({data, size});
  auto back = conflux::bytes::from_hex(encoded);
  if (!back || back->size() != size || !std::equal(back->begin(), back->end(), data)) __builtin_trap();
  return 0;
}
