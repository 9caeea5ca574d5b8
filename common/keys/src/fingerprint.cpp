#include "conflux/keys/fingerprint.hpp"

#include <algorithm>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"

namespace conflux::keys {

std::string identity_hex(const crypto::Ed25519Public& id) { return bytes::to_hex(id, true); }

std::string identity_base64(const crypto::Ed25519Public& id) { return bytes::base64_encode(id); }

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
  auto raw = bytes::base64_decode(text);
  if (!raw || raw->size() != id.size()) return std::nullopt;
  std::copy(raw->begin(), raw->end(), id.begin());
  return id;
}

}  // namespace conflux::keys
