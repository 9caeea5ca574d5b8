#include "conflux/netspec/tor_key_files.hpp"

#include <algorithm>
#include <string>

#include "conflux/bytes/hex.hpp"

namespace conflux::netspec {

std::optional<crypto::RsaFingerprint> parse_tor_fingerprint_file(std::string_view text) {
  // One line, one space: a nickname is letters and digits only.
  const auto sp = text.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp > 19) return std::nullopt;
  auto hex = text.substr(sp + 1);
  if (hex.ends_with('\n')) hex.remove_suffix(1);
  if (hex.size() != 40) return std::nullopt;
  const auto raw = bytes::from_hex(hex);
  if (!raw || raw->size() != 20) return std::nullopt;
  crypto::RsaFingerprint out{};
  std::copy(raw->begin(), raw->end(), out.begin());
  return out;
}

std::optional<crypto::Ed25519Public> parse_tor_ed25519_public_key_file(std::span<const std::uint8_t> bytes) {
  static constexpr std::string_view kTag = "== ed25519v1-public: type0 ==";
  constexpr std::size_t kHeader = 32;
  if (bytes.size() != kHeader + 32) return std::nullopt;
  if (!std::equal(kTag.begin(), kTag.end(), bytes.begin())) return std::nullopt;
  if (!std::all_of(bytes.begin() + kTag.size(), bytes.begin() + kHeader, [](std::uint8_t b) { return b == 0; }))
    return std::nullopt;
  crypto::Ed25519Public out{};
  std::copy(bytes.begin() + kHeader, bytes.end(), out.begin());
  return out;
}

}  // namespace conflux::netspec
