#pragma once
// RSA public keys as Tor's directory uses them (dir-spec): PKCS#1
// RSAPublicKey DER (the body of a "RSA PUBLIC KEY" object), identified by
// the SHA-1 of that DER (the "fingerprint", an authority's v3ident), and
// signatures that are PKCS#1 v1.5 padding around a raw digest, without the
// DigestInfo wrapper (tor's crypto_pk_private_sign_digest).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

struct evp_pkey_st;

namespace conflux::crypto {

using RsaFingerprint = std::array<std::uint8_t, 20>;

class RsaPublicKey {
 public:
  // Accepts only canonical DER of a key of 1024 to 4096 bits with public
  // exponent 65537 (what tor generates); anything else is nullopt.
  [[nodiscard]] static std::optional<RsaPublicKey> from_pkcs1_der(std::span<const std::uint8_t> der);

  [[nodiscard]] const std::vector<std::uint8_t>& der() const noexcept { return der_; }
  // SHA-1 of der().
  [[nodiscard]] const RsaFingerprint& fingerprint() const noexcept { return fingerprint_; }
  [[nodiscard]] std::size_t bits() const noexcept { return bits_; }

  // Whether `signature` is this key's PKCS#1 v1.5 signature of exactly
  // `digest` (20 or 32 bytes, or other data up to bits/8 - 11 bytes), as tor's
  // authorities and relays make them.
  [[nodiscard]] bool verify_digest(std::span<const std::uint8_t> digest,
                                   std::span<const std::uint8_t> signature) const noexcept;

 private:
  RsaPublicKey() = default;
  std::shared_ptr<evp_pkey_st> key_;
  std::vector<std::uint8_t> der_;
  RsaFingerprint fingerprint_{};
  std::size_t bits_ = 0;
};

}  // namespace conflux::crypto
