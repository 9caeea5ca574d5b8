#pragma once
// Tor's Ed25519 certificate (cert-spec 2.1):
//
//   VERSION u8 (=1) | CERT_TYPE u8 | EXPIRATION_DATE u32 (hours since the epoch) |
//   CERT_KEY_TYPE u8 | CERTIFIED_KEY [32] | N_EXTENSIONS u8 |
//   N x { ExtLength u16 | ExtType u8 | ExtFlags u8 | ExtData [ExtLength] } |
//   SIGNATURE [64]
//
// The signature is Ed25519 over every byte before SIGNATURE, with no prefix.
// (An early cert-spec said "prefixed with 'Tor node signing key certificate
// v1'"; tor never did that and the spec was corrected.)
//
// The decoder is as strict as tor's tor_cert_parse: version 1 only, no
// trailing bytes, extension 4 exactly 32 bytes and at most once, and an
// unknown extension flagged AFFECTS_VALIDATION is rejected outright. Unknown
// extensions without the flag are kept, so encode(decode(b)) == b.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/result.hpp"
#include "conflux/cell/cert_type.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/crypto/ed25519.hpp"

namespace conflux::cell {

inline constexpr std::uint8_t kEd25519CertVersion = 1;
inline constexpr std::size_t kEd25519CertMinLen = 1 + 1 + 4 + 1 + 32 + 1 + 64;  // 104
inline constexpr std::uint8_t kCertExtSignedWithEd25519Key = 4;
inline constexpr std::uint8_t kCertExtFlagAffectsValidation = 1;

struct CertExtension {
  std::uint8_t type = 0;
  std::uint8_t flags = 0;
  std::vector<std::uint8_t> data;
  friend bool operator==(const CertExtension&, const CertExtension&) = default;
};

// Everything the signature covers (VERSION is implied: always 1).
struct Ed25519CertBody {
  CertType cert_type{};  // may hold a value outside the enum
  std::uint32_t expiration_hours = 0;
  CertKeyType key_type = CertKeyType::Ed25519;  // may hold a value outside the enum
  std::array<std::uint8_t, 32> certified_key{};
  std::vector<CertExtension> extensions;  // wire order, extension 4 included
  friend bool operator==(const Ed25519CertBody&, const Ed25519CertBody&) = default;
};

struct Ed25519Cert {
  Ed25519CertBody body;
  crypto::Ed25519Signature signature{};
  friend bool operator==(const Ed25519Cert&, const Ed25519Cert&) = default;

  // The key in the signed-with-ed25519-key extension, if present.
  [[nodiscard]] std::optional<crypto::Ed25519Public> signed_with_key() const;
  // CERTIFIED_KEY as an Ed25519 key, when CERT_KEY_TYPE says it is one.
  [[nodiscard]] std::optional<crypto::Ed25519Public> certified_ed25519_key() const;
  // The end of validity, in seconds since the epoch.
  [[nodiscard]] std::uint64_t expires_at() const noexcept {
    return std::uint64_t{body.expiration_hours} * 3600U;
  }
};

// The expiration field for a certificate valid until at least `seconds`
// (seconds since the epoch): rounded up to the hour, as tor does.
[[nodiscard]] std::uint32_t cert_expiration_hours(std::uint64_t seconds) noexcept;

[[nodiscard]] Decoded<Ed25519Cert> decode_ed25519_cert(bytes::ByteSpan in);

// The bytes the signature covers (the whole certificate minus SIGNATURE).
[[nodiscard]] Result<std::vector<std::uint8_t>, CertError> encode_ed25519_cert_body(
    const Ed25519CertBody& body);
// The canonical certificate. TooLarge if it cannot be encoded.
[[nodiscard]] Result<std::vector<std::uint8_t>, CertError> encode_ed25519_cert(const Ed25519Cert& cert);

enum class IncludeSigningKey : bool { No = false, Yes = true };

// Signs `body` with `signer`. With IncludeSigningKey::Yes the
// signed-with-ed25519-key extension carrying signer's public key is appended
// (kept if already present with that key; SigningKeyMismatch if present with
// another). Does not apply the per-type rules: a caller may build any
// certificate, verify_ed25519_cert judges it.
[[nodiscard]] Result<Ed25519Cert, CertError> sign_ed25519_cert(
    Ed25519CertBody body, const crypto::Ed25519Keypair& signer,
    IncludeSigningKey include = IncludeSigningKey::No);

// The per-type rules of tor-spec 4.2 / cert-spec for the CERTS-cell types:
// type 4 certifies an Ed25519 key and carries extension 4 (the identity key);
// type 5 certifies the SHA-256 of an X.509 certificate; type 6 certifies an
// Ed25519 key. Other types have no rule here.
[[nodiscard]] std::optional<CertError> check_ed25519_cert_profile(const Ed25519Cert& cert);

// Checks, in order: extensions (no unknown AFFECTS_VALIDATION, extension 4
// well formed), the per-type rules above, the signing key, expiry, then the
// signature. The signing key is `signing_key` if given (and extension 4, if
// present, must equal it), else the key in extension 4. Expired when
// now > EXPIRATION_DATE * 3600 (`now` in seconds since the epoch), as in
// tor's tor_cert_checksig. Returns the key that signed the certificate.
[[nodiscard]] Result<crypto::Ed25519Public, CertError> verify_ed25519_cert(
    const Ed25519Cert& cert, const std::optional<crypto::Ed25519Public>& signing_key,
    std::uint64_t now);

}  // namespace conflux::cell
