#pragma once
// How a relay's Ed25519 identity is written for people and config files:
// upper-case hex (64 characters) and, as tor prints Ed25519 identities
// (the "fingerprint-ed25519" file, "id ed25519" lines), standard base64
// without the trailing '=' (43 characters).
#include <optional>
#include <string>
#include <string_view>

#include "conflux/crypto/ed25519.hpp"

namespace conflux::keys {

[[nodiscard]] std::string identity_hex(const crypto::Ed25519Public& id);
[[nodiscard]] std::string identity_base64(const crypto::Ed25519Public& id);

// Accepts 64 hex digits (either case) or 43 base64 characters, with or
// without one trailing '='. nullopt for anything else.
[[nodiscard]] std::optional<crypto::Ed25519Public> parse_identity(std::string_view text);

}  // namespace conflux::keys
