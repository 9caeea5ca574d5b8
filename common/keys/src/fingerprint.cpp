#include "conflux/keys/fingerprint.hpp"

#include <algorithm>

#include "conflux/bytes/hex.hpp"

namespace conflux::keys {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int b64_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string identity_hex(const crypto::Ed25519Public& id) { return bytes::to_hex(id, true); }

std::string identity_base64(const crypto::Ed25519Public& id) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::uint8_t b : id) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 0x3f];
    }
  }
  // 32 bytes = 256 bits: 42 full sextets and 4 bits left, zero-padded.
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 0x3f];
  return out;
}

std::optional<crypto::Ed25519Public> parse_identity(std::string_view text) {
  crypto::Ed25519Public id{};
  if (text.size() == 64) {
    auto raw = bytes::from_hex(text);
    if (!raw || raw->size() != 32) return std::nullopt;
    std::copy(raw->begin(), raw->end(), id.begin());
    return id;
  }
  if (text.size() == 44 && text.back() == '=') text.remove_suffix(1);
  if (text.size() != 43) return std::nullopt;
  std::uint32_t acc = 0;
  int bits = 0;
  std::size_t n = 0;
  for (char c : text) {
    const int v = b64_value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      id[n++] = static_cast<std::uint8_t>(acc >> bits);
    }
  }
  // The 2 bits left over must be zero: one text per key.
  if ((acc & ((1U << bits) - 1U)) != 0) return std::nullopt;
  return id;
}

}  // namespace conflux::keys
