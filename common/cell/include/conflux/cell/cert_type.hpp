#pragma once
// Numbers shared by Tor's certificates: certificate types (the CERTS cell's
// CertType and the Ed25519 certificate's CERT_TYPE share one numbering,
// cert-spec A.1), certified-key types (cert-spec A.4) and the errors a
// certificate check reports.
#include <cstdint>
#include <string_view>

namespace conflux::cell {

// cert-spec A.1 / tor-spec 4.2. Types 1..3 are X.509 certificates and 7 is
// the RSA->Ed25519 cross-certificate; 4..6 and 8..11 use the Ed25519
// certificate format. A decoded value may lie outside the enum.
enum class CertType : std::uint8_t {
  RsaLinkX509 = 1,           // TLS link key, signed by the RSA1024 identity
  RsaIdentityX509 = 2,       // RSA1024 identity, self-signed
  RsaAuthX509 = 3,           // AUTHENTICATE link key, signed by the RSA1024 identity
  IdentityVSigning = 4,      // Ed25519 signing key, signed by the Ed25519 identity
  SigningVTlsCert = 5,       // SHA-256 of the TLS link certificate, signed by the signing key
  SigningVAuth = 6,          // Ed25519 AUTHENTICATE key, signed by the signing key
  RsaIdVEdIdentity = 7,      // Ed25519 identity, signed by the RSA identity (cross-cert)
  HsDescSigning = 8,         // onion service: descriptor signing key, by blinded key
  HsIntroAuth = 9,           // onion service: intro point auth key
  NtorOnionCrossCert = 10,   // ntor onion key cross-certifying the Ed25519 identity
  HsIntroEncCrossCert = 11,  // onion service: ntor-extra encryption key
};

// What CERTIFIED_KEY holds (cert-spec A.4).
enum class CertKeyType : std::uint8_t {
  Ed25519 = 1,       // an Ed25519 public key
  Sha256OfRsa = 2,   // SHA-256 of a DER-encoded RSA key
  Sha256OfX509 = 3,  // SHA-256 of a DER-encoded X.509 certificate
};

// Why a structurally valid certificate was not accepted, or could not be
// built. (Malformed bytes are DecodeError, from the decoders.)
enum class CertError : std::uint8_t {
  BadSignature,               // the signature does not verify with the signing key
  Expired,                    // now is past EXPIRATION_DATE
  NoSigningKey,               // no key given and no signed-with-ed25519-key extension
  SigningKeyMismatch,         // the extension's key differs from the key the caller expects
  UnknownCriticalExtension,   // an unknown extension flagged AFFECTS_VALIDATION
  MissingSigningKeyExtension, // a type that must carry extension 4 (type 4) lacks it
  WrongKeyType,               // CERT_KEY_TYPE not the one this CERT_TYPE certifies
  BadExtension,               // extension 4 repeated or not 32 bytes (hand-built cert)
  TooLarge,                   // cannot be encoded: >255 extensions, >65535-byte data, >255-byte signature
  BadRsaKey,                  // an RSA key that does not parse or does not fit the format
};

std::string_view to_string(CertError e) noexcept;

}  // namespace conflux::cell
