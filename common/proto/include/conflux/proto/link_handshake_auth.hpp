#pragma once
// The AUTH0003 authenticator carried by AUTHENTICATE, AuthType 3,
// "Ed25519-SHA256-RFC5705" (tor-spec 4.4.2):
//
//   TYPE "AUTH0003"[8] | CID[32] | SID[32] | CID_ED[32] | SID_ED[32] |
//   SLOG[32] | CLOG[32] | SCERT[32] | TLSSECRETS[32] | RAND[24] | SIG[64]
//
// SIG is Ed25519, by the initiator's link authentication key (type 6), over
// every byte before it. As tor does, a checker takes SIG from the last 64
// bytes and ignores extra bytes between RAND and SIG (the spec: "MUST ignore
// any extra bytes in the signed data after the RAND field").
//
// CID and SID are the SHA-256 of the initiator's and responder's RSA
// identity keys (PKCS#1 DER, as tor's crypto_pk_get_common_digests hashes
// them); TLSSECRETS is the TLS exporter with kAuth0003ExporterLabel and CID
// as the context (relay_handshake.c, connection_or_compute_authenticate_cell_body).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/proto/link_handshake_types.hpp"

namespace conflux::proto {

inline constexpr std::string_view kAuth0003Type = "AUTH0003";
inline constexpr std::string_view kAuth0003ExporterLabel = "EXPORTER FOR TOR TLS CLIENT BINDING AUTH0003";

inline constexpr std::size_t kAuth0003CheckedLen = 8 + 8 * 32;              // TYPE..TLSSECRETS = 264
inline constexpr std::size_t kAuth0003RandLen = 24;
inline constexpr std::size_t kAuth0003SignedLen = kAuth0003CheckedLen + kAuth0003RandLen;  // 288
inline constexpr std::size_t kAuth0003Len = kAuth0003SignedLen + 64;                       // 352

using Digest32 = std::array<std::uint8_t, 32>;

struct Auth0003Fields {
  Digest32 cid{};                  // SHA-256 of the initiator's RSA identity key
  Digest32 sid{};                  // SHA-256 of the responder's RSA identity key
  crypto::Ed25519Public cid_ed{};  // initiator identity
  crypto::Ed25519Public sid_ed{};  // responder identity
  Digest32 slog{};                 // SHA-256 of what the responder sent, through AUTH_CHALLENGE
  Digest32 clog{};                 // SHA-256 of what the initiator sent, before AUTHENTICATE
  Digest32 scert{};                // SHA-256 of the responder's TLS certificate
  Digest32 tlssecrets{};           // the TLS exporter value, context CID
};

// TYPE..TLSSECRETS (264 bytes): the part a responder recomputes.
[[nodiscard]] std::vector<std::uint8_t> encode_auth0003_checked(const Auth0003Fields& f);
// The full 352-byte authenticator: checked part, RAND, and SIG by `link_auth_key`.
[[nodiscard]] std::vector<std::uint8_t> make_auth0003(const Auth0003Fields& f,
                                                      const std::array<std::uint8_t, kAuth0003RandLen>& rand,
                                                      const crypto::Ed25519Keypair& link_auth_key);
// nullopt when `authentication` carries exactly `expected` (RAND aside) and a
// valid signature by `auth_key`; else BadAuthenticate (too short),
// AuthFieldMismatch or BadAuthSignature.
[[nodiscard]] std::optional<LinkFailure> check_auth0003(bytes::ByteSpan authentication,
                                                        const Auth0003Fields& expected,
                                                        const crypto::Ed25519Public& auth_key);

}  // namespace conflux::proto
