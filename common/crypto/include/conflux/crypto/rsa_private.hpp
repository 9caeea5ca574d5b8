#pragma once
// RSA private keys, as tor keeps and uses them: a relay's RSA-1024 identity
// (DataDirectory/keys/secret_id_key), an authority's identity (3072 bits) and
// signing key (2048 bits, as tor-gencert makes them). Stored as PKCS#1
// RSAPrivateKey DER, or PEM "RSA PRIVATE KEY" (what tor writes). Signatures
// are PKCS#1 v1.5 padding around a raw digest without the DigestInfo wrapper
// (tor's crypto_pk_private_sign_digest), which RsaPublicKey::verify_digest
// accepts.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/rsa.hpp"

struct evp_pkey_st;

namespace conflux::crypto {

class RsaPrivateKey {
 public:
  // A fresh key of `bits` (1024..4096, a multiple of 8) with e = 65537.
  [[nodiscard]] static RsaPrivateKey generate(std::size_t bits);
  // PKCS#1 RSAPrivateKey DER: canonical only, 1024..4096 bits, e = 65537.
  [[nodiscard]] static std::optional<RsaPrivateKey> from_pkcs1_der(std::span<const std::uint8_t> der);
  // PEM "-----BEGIN RSA PRIVATE KEY-----" (unencrypted) around that DER.
  [[nodiscard]] static std::optional<RsaPrivateKey> from_pem(std::string_view pem);

  // The secret DER / PEM: wipe copies after use.
  [[nodiscard]] std::vector<std::uint8_t> to_pkcs1_der() const;
  [[nodiscard]] std::string to_pem() const;

  [[nodiscard]] const RsaPublicKey& public_key() const noexcept { return public_; }
  [[nodiscard]] std::size_t bits() const noexcept { return public_.bits(); }

  // PKCS#1 v1.5 signature of exactly `digest`, no DigestInfo: a 20- or 32-byte
  // digest, or up to bits/8 - 11 bytes of data (tor's crypto_pk_private_sign
  // signs the 52 bytes of a server descriptor's onion-key-crosscert).
  [[nodiscard]] std::vector<std::uint8_t> sign_digest(std::span<const std::uint8_t> digest) const;

 private:
  RsaPrivateKey(std::shared_ptr<evp_pkey_st> key, RsaPublicKey pub) : key_(std::move(key)), public_(std::move(pub)) {}
  std::shared_ptr<evp_pkey_st> key_;
  RsaPublicKey public_;
};

// PEM "-----BEGIN RSA PUBLIC KEY-----" of a public key's PKCS#1 DER, with
// 64-character lines, as tor writes keys in its documents.
[[nodiscard]] std::string rsa_public_pem(const RsaPublicKey& key);

}  // namespace conflux::crypto
