// Key files and identity strings from disk or config: accepted input must
// re-encode to the same bytes (key files) or the canonical text (identities).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "conflux/keys/fingerprint.hpp"
#include "conflux/keys/key_file.hpp"

using namespace conflux;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto kind = static_cast<keys::KeyKind>(data[0] % 4);
  const std::span<const std::uint8_t> body(data + 1, size - 1);
  if (auto f = keys::decode_key_file(body, kind)) {
    if (f->kind != kind) __builtin_trap();
    const auto again = keys::encode_key_file(f->kind, f->created, f->payload);
    auto back = keys::decode_key_file(again, kind);
    if (!back || back->created != f->created || back->payload != f->payload) __builtin_trap();
  }
  const std::string_view text(reinterpret_cast<const char*>(body.data()), body.size());
  if (auto id = keys::parse_identity(text)) {
    if (keys::parse_identity(keys::identity_base64(*id)) != id) __builtin_trap();
    if (keys::parse_identity(keys::identity_hex(*id)) != id) __builtin_trap();
    if (text.size() != 64 && text.substr(0, 43) != keys::identity_base64(*id)) __builtin_trap();
  }
  return 0;
}
