#pragma once
// The two files of a stock tor relay's DataDirectory that conflux-net reads
// after `tor --list-fingerprint` made its keys: the identities it checks the
// consensus for and records in network.json, as it does for ours.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"

namespace conflux::netspec {

// DATA/fingerprint: "NICKNAME HEX40\n" (tor's fingerprint, upper case).
[[nodiscard]] std::optional<crypto::RsaFingerprint> parse_tor_fingerprint_file(std::string_view text);

// DATA/keys/ed25519_master_id_public_key: tor's 32-byte tagged header
// ("== ed25519v1-public: type0 ==", NUL-padded), then the 32-byte key.
[[nodiscard]] std::optional<crypto::Ed25519Public> parse_tor_ed25519_public_key_file(
    std::span<const std::uint8_t> bytes);

}  // namespace conflux::netspec
