#pragma once
// An authority's keys for tor's directory formats, kept in DataDirectory/keys/
// under tor's names (as tor-gencert writes them):
//   authority_identity_key   PEM "RSA PRIVATE KEY", 3072 bits: the v3ident is its SHA-1
//   authority_signing_key    PEM "RSA PRIVATE KEY", 2048 bits: signs consensuses
//   authority_certificate    dir-key-certificate-3: identity -> signing key
// Made at first start; the identity is never replaced; the signing key and
// its certificate are replaced when the certificate does not verify, does
// not match the keys, or expires within `renew`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "conflux/bytes/result.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/keys/key_store_error.hpp"

namespace conflux::dirnet {

inline constexpr std::string_view kAuthorityIdentityFile = "authority_identity_key";
inline constexpr std::string_view kAuthoritySigningFile = "authority_signing_key";
inline constexpr std::string_view kAuthorityCertFile = "authority_certificate";
inline constexpr std::size_t kAuthorityIdentityBits = 3072;
inline constexpr std::size_t kAuthoritySigningBits = 2048;

struct TorAuthorityKeyOptions {
  std::uint64_t lifetime = 365 * 24 * 3600;  // tor-gencert's default: 12 months
  std::uint64_t renew = 30 * 24 * 3600;
  std::optional<std::string> dir_address;     // "IP:PORT" written into a new certificate
};

struct TorAuthorityKeys {
  crypto::RsaPrivateKey identity;
  crypto::RsaPrivateKey signing;
  std::string certificate;  // as served at /tor/keys/authority
  [[nodiscard]] const crypto::RsaFingerprint& v3ident() const noexcept { return identity.public_key().fingerprint(); }
};

[[nodiscard]] Result<TorAuthorityKeys, keys::KeyStoreError> load_or_create_tor_authority_keys(
    const std::filesystem::path& data_dir, std::uint64_t now, const TorAuthorityKeyOptions& options = {});

}  // namespace conflux::dirnet
