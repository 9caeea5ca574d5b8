#pragma once
// A relay's keys. Identity is an Ed25519 key, plus the RSA-1024 identity
// tor's directory formats and EXTEND2's legacy link specifier name relays by
// (its SHA-1 is the relay's fingerprint). The Ed25519 chain, as tor-spec 4.2 and cert-spec describe it:
//
//   identity (long-term, KP_relayid_ed)
//     -- type 4 cert --> signing key (medium-term, KP_relaysign_ed; 30 days)
//         -- type 5 cert --> SHA-256 of the TLS certificate (DER)
//         -- type 6 cert --> link authentication key (KP_link_ed)
//
// plus the X25519 onion key (current and previous) that serves both ntor and
// ntor-v3 CREATE2 handshakes, as tor's ntor-onion-key does (prop 332).
//
// Files in DataDirectory/keys/ (format in key_file.hpp):
//   ed25519_master_id_secret_key   ed25519-seed    the identity
//   ed25519_master_id_public_key   ed25519-public  (written for tools; checked on load)
//   ed25519_signing_secret_key     ed25519-seed    the signing key
//   ed25519_signing_cert           ed25519-cert    its type-4 certificate
//   secret_onion_key_ntor          x25519-secret   current onion key
//   secret_onion_key_ntor.old      x25519-secret   previous onion key
//   secret_id_key                  PEM "RSA PRIVATE KEY" (PKCS#1), as tor keeps it:
//                                  the RSA-1024 identity
// The TLS key, its certificate and the link authentication key live in memory
// only and are made anew on every start (and by regenerate_link_keys()).
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/keys/key_store_error.hpp"
#include "conflux/keys/tls_cert.hpp"

namespace conflux::keys {

inline constexpr std::string_view kKeysSubdir = "keys";
inline constexpr std::string_view kIdentitySecretFile = "ed25519_master_id_secret_key";
inline constexpr std::string_view kIdentityPublicFile = "ed25519_master_id_public_key";
inline constexpr std::string_view kSigningSecretFile = "ed25519_signing_secret_key";
inline constexpr std::string_view kSigningCertFile = "ed25519_signing_cert";
inline constexpr std::string_view kOnionKeyFile = "secret_onion_key_ntor";
inline constexpr std::string_view kOldOnionKeyFile = "secret_onion_key_ntor.old";
inline constexpr std::string_view kRsaIdentityFile = "secret_id_key";
inline constexpr std::size_t kRelayRsaIdentityBits = 1024;  // tor's relay identity size

struct KeyLifetimes {
  std::uint64_t signing = 30 * 24 * 3600;      // type-4 cert validity
  std::uint64_t signing_renew = 24 * 3600;     // replace when it expires within this
  std::uint64_t link = 2 * 24 * 3600;          // TLS cert, type-5 and type-6 certs
  std::uint64_t onion_rotation = 28 * 24 * 3600;  // tor's onion-key-rotation-days default
  std::uint64_t onion_grace = 7 * 24 * 3600;      // tor's onion-key-grace-period-days default
};

struct OnionKey {
  crypto::X25519Secret key;
  std::uint64_t created = 0;
};

class RelayKeys {
 public:
  // Everything fresh, in memory (tests, conflux-net before writing files).
  static RelayKeys generate(std::uint64_t now, const KeyLifetimes& lifetimes = {});
  // From loaded long- and medium-term keys (the key store uses this); the
  // link keys are made fresh. `signing_cert` must certify `signing`.
  static RelayKeys from_parts(crypto::Ed25519Keypair identity, crypto::Ed25519Keypair signing,
                              cell::Ed25519Cert signing_cert, OnionKey onion, std::optional<OnionKey> old_onion,
                              crypto::RsaPrivateKey rsa_identity, const KeyLifetimes& lifetimes,
                              std::uint64_t now);

  [[nodiscard]] const crypto::Ed25519Public& identity() const noexcept { return identity_.public_key(); }
  [[nodiscard]] const crypto::Ed25519Keypair& identity_keypair() const noexcept { return identity_; }
  // The RSA-1024 identity; its public key's SHA-1 is the relay's fingerprint.
  [[nodiscard]] const crypto::RsaPrivateKey& rsa_identity() const noexcept { return rsa_identity_; }
  [[nodiscard]] const crypto::RsaFingerprint& rsa_fingerprint() const noexcept {
    return rsa_identity_.public_key().fingerprint();
  }

  [[nodiscard]] const crypto::Ed25519Keypair& signing_key() const noexcept { return signing_; }
  [[nodiscard]] const cell::Ed25519Cert& signing_cert() const noexcept { return signing_cert_; }
  // Type 4, encoded: identity -> signing key, extension 4 = identity.
  [[nodiscard]] const std::vector<std::uint8_t>& signing_cert_bytes() const noexcept { return signing_cert_bytes_; }
  [[nodiscard]] std::uint64_t signing_cert_expires_at() const noexcept { return signing_cert_.expires_at(); }

  [[nodiscard]] const TlsCertificate& tls_certificate() const noexcept { return tls_; }
  // Type 5, encoded: signing key -> SHA-256 of tls_certificate().cert_der.
  [[nodiscard]] const std::vector<std::uint8_t>& tls_link_cert_bytes() const noexcept { return tls_link_cert_bytes_; }
  [[nodiscard]] const crypto::Ed25519Keypair& link_auth_key() const noexcept { return link_auth_; }
  // Type 6, encoded: signing key -> link_auth_key().
  [[nodiscard]] const std::vector<std::uint8_t>& link_auth_cert_bytes() const noexcept { return link_auth_cert_bytes_; }
  // The RSA identity's CERTS entries (rsa_link_certs.hpp, cert-spec 2.3):
  // type 1 (TLS key, signed by the RSA identity), type 2 (the RSA identity,
  // self-signed) and type 7 (the RSA->Ed25519 cross-certificate of identity()).
  [[nodiscard]] const std::vector<std::uint8_t>& rsa_link_cert_bytes() const noexcept { return rsa_link_cert_; }
  [[nodiscard]] const std::vector<std::uint8_t>& rsa_identity_cert_bytes() const noexcept { return rsa_id_cert_; }
  [[nodiscard]] const std::vector<std::uint8_t>& rsa_crosscert_bytes() const noexcept { return rsa_crosscert_; }
  // When the TLS certificate, type 5 and type 6 stop being valid.
  [[nodiscard]] std::uint64_t link_certs_expire_at() const noexcept { return link_expires_; }

  [[nodiscard]] const OnionKey& onion_key() const noexcept { return onion_; }
  [[nodiscard]] const std::optional<OnionKey>& previous_onion_key() const noexcept { return old_onion_; }
  // The onion key (current or previous) whose public part is `keyid` (the
  // KEYID/B of an ntor or ntor-v3 CREATE2), or nullptr.
  [[nodiscard]] const crypto::X25519Secret* find_onion_key(const crypto::X25519Public& keyid) const noexcept;

  // New TLS key and certificate, type-5 cert, link authentication key and
  // type-6 cert, and the RSA certificates (types 1, 2, 7). Call before link_certs_expire_at(); new channels then use them.
  void regenerate_link_keys(std::uint64_t now);

 private:
  RelayKeys(crypto::Ed25519Keypair identity, crypto::Ed25519Keypair signing, cell::Ed25519Cert signing_cert,
            OnionKey onion, std::optional<OnionKey> old_onion, crypto::RsaPrivateKey rsa_identity,
            KeyLifetimes lifetimes, std::uint64_t now);

  crypto::Ed25519Keypair identity_;
  crypto::RsaPrivateKey rsa_identity_;
  crypto::Ed25519Keypair signing_;
  cell::Ed25519Cert signing_cert_;
  std::vector<std::uint8_t> signing_cert_bytes_;
  crypto::Ed25519Keypair link_auth_;
  std::vector<std::uint8_t> link_auth_cert_bytes_;
  TlsCertificate tls_;
  std::vector<std::uint8_t> tls_link_cert_bytes_;
  std::vector<std::uint8_t> rsa_link_cert_;
  std::vector<std::uint8_t> rsa_id_cert_;
  std::vector<std::uint8_t> rsa_crosscert_;
  std::uint64_t link_expires_ = 0;
  OnionKey onion_;
  std::optional<OnionKey> old_onion_;
  KeyLifetimes lifetimes_;
};

// Type-4 certificate for `signing`, signed by `identity`, carrying the
// identity in extension 4, valid until now + lifetime.
[[nodiscard]] cell::Ed25519Cert make_signing_cert(const crypto::Ed25519Keypair& identity,
                                                  const crypto::Ed25519Keypair& signing, std::uint64_t now,
                                                  std::uint64_t lifetime);

// Loads DataDirectory/keys/, creating what is missing (first start) and
// replacing what is stale: a signing key whose certificate is invalid or
// expires within lifetimes.signing_renew, an onion key older than
// lifetimes.onion_rotation (it becomes the previous key; a previous key is
// dropped onion_grace after its successor was made). The identities (Ed25519
// and RSA) are never replaced once they exist. Creates DataDirectory (0700) if missing; refuses a
// DataDirectory or keys/ owned by someone else or writable by group/world.
// `now`: seconds since the epoch.
[[nodiscard]] Result<RelayKeys, KeyStoreError> load_or_create_relay_keys(const std::filesystem::path& data_dir,
                                                                         std::uint64_t now,
                                                                         const KeyLifetimes& lifetimes = {});

}  // namespace conflux::keys
