#pragma once
// The RSA->Ed25519 cross-certificate, CERTS type 7 (cert-spec 2.3):
//
//   ED25519_KEY [32] | EXPIRATION_DATE u32 (hours) | SIGLEN u8 | SIGNATURE [SIGLEN]
//
// SIGNATURE is an RSA PKCS#1 v1.5 signature made with the relay's RSA1024
// identity key over the 32-byte SHA-256 of
//   "Tor TLS RSA/Ed25519 cross-certificate" | ED25519_KEY | EXPIRATION_DATE
// (SIGLEN is not covered). The digest is padded as it is, with no
// DigestInfo wrapper: tor signs with crypto_pk_private_sign, a raw
// RSA_private_encrypt with PKCS#1 type-1 padding.
//
// RSA keys cross this API as DER so that no OpenSSL type appears here.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/result.hpp"
#include "conflux/cell/cert_type.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/crypto/ed25519.hpp"

namespace conflux::cell {

inline constexpr std::string_view kRsaCrosscertPrefix = "Tor TLS RSA/Ed25519 cross-certificate";
inline constexpr std::size_t kRsaCrosscertSignedLen = 32 + 4;

struct RsaCrosscert {
  crypto::Ed25519Public ed25519_key{};
  std::uint32_t expiration_hours = 0;
  std::vector<std::uint8_t> signature;  // SIGLEN = size(), at most 255
  friend bool operator==(const RsaCrosscert&, const RsaCrosscert&) = default;

  [[nodiscard]] std::uint64_t expires_at() const noexcept {
    return std::uint64_t{expiration_hours} * 3600U;
  }
};

// Truncated / TrailingBytes; any SIGLEN is structurally fine (the signature
// check judges it).
[[nodiscard]] Decoded<RsaCrosscert> decode_rsa_crosscert(bytes::ByteSpan in);
// TooLarge if the signature is longer than 255 bytes.
[[nodiscard]] Result<std::vector<std::uint8_t>, CertError> encode_rsa_crosscert(const RsaCrosscert& cc);

// SHA-256(prefix | ED25519_KEY | EXPIRATION_DATE): the value the RSA key signs.
[[nodiscard]] std::array<std::uint8_t, 32> rsa_crosscert_digest(const crypto::Ed25519Public& key,
                                                                std::uint32_t expiration_hours);

// Checks expiry (expired when now > EXPIRATION_DATE * 3600, as tor's
// rsa_ed25519_crosscert_check) and the signature with the RSA public key
// `rsa_public_der`: PKCS#1 RSAPublicKey or SubjectPublicKeyInfo DER. SIGLEN
// must equal the modulus size and the recovered message must be exactly the
// 32-byte digest. Returns the certified Ed25519 identity; the caller compares
// it with the identity from the type-4 certificate.
[[nodiscard]] Result<crypto::Ed25519Public, CertError> verify_rsa_crosscert(
    const RsaCrosscert& cc, bytes::ByteSpan rsa_public_der, std::uint64_t now);

// Signs a cross-certificate with an RSA private key given as PKCS#1
// RSAPrivateKey or PKCS#8 DER. BadRsaKey if it does not parse or is not RSA;
// TooLarge if the modulus exceeds 255 bytes (SIGLEN is one byte).
[[nodiscard]] Result<RsaCrosscert, CertError> sign_rsa_crosscert(const crypto::Ed25519Public& key,
                                                                 std::uint32_t expiration_hours,
                                                                 bytes::ByteSpan rsa_private_der);

}  // namespace conflux::cell
