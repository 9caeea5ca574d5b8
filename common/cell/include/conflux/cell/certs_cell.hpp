#pragma once
// CERTS cell body (tor-spec 4.2): the container only.
//
//   N[1] | N x { CertType[1] | CLEN[2] | Certificate[CLEN] }
//
// Certificate bodies stay opaque here (X.509 DER for types 1-3, cert-spec
// formats for 4-7); parsing them is the certificate code's job. Bytes after
// the N entries are ignored, as the spec requires.
#include <cstdint>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

// CertType values defined by tor-spec 4.2.
namespace certs_type {
inline constexpr std::uint8_t kRsaLink = 1;         // link key, signed by RSA1024 identity
inline constexpr std::uint8_t kRsaIdentity = 2;     // RSA1024 identity, self-signed
inline constexpr std::uint8_t kRsaAuthenticate = 3; // AUTHENTICATE link cert, signed by RSA1024
inline constexpr std::uint8_t kEdIdSigning = 4;     // Ed25519 signing key, signed by identity
inline constexpr std::uint8_t kEdSigningLink = 5;   // TLS link cert, signed by signing key
inline constexpr std::uint8_t kEdSigningAuth = 6;   // AUTHENTICATE key, signed by signing key
inline constexpr std::uint8_t kRsaEdCrossCert = 7;  // Ed25519 identity, signed by RSA identity
}  // namespace certs_type

struct CertsCellEntry {
  std::uint8_t cert_type = 0;
  std::vector<std::uint8_t> body;
  friend bool operator==(const CertsCellEntry&, const CertsCellEntry&) = default;
};

struct CertsCell {
  std::vector<CertsCellEntry> certs;  // wire order
  friend bool operator==(const CertsCell&, const CertsCell&) = default;
};

// Truncated if an entry runs past the payload. BadValue if a type defined by
// the spec (1..7) appears twice ("no more than one certificate of each
// CertType"); tor enforces that for the types it knows and ignores others,
// so repeated unknown types are kept.
[[nodiscard]] Decoded<CertsCell> decode_certs_cell(bytes::ByteSpan payload);
// TooManyItems for more than 255 entries; PayloadTooLong for a body over
// 65535 bytes or a total over 65535; BadValue for a repeated type 1..7.
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_certs_cell(const CertsCell& cell);

}  // namespace conflux::cell
