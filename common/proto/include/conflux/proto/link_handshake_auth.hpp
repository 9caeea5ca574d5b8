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
// DELIBERATE DIFFERENCE FROM TOR: CID and SID are the SHA-256 of the
// initiator's and responder's RSA identity keys in tor. Our relays have no
// RSA identity, so both are 32 zero bytes (kNoRsaIdentityDigest), and so is
// the TLS exporter context, which tor defines as CID. A tor relay would
// reject our AUTHENTICATE; relay-to-relay links only run among our relays,
// and clients (which do not authenticate) are unaffected.
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
inline constexpr std::array<std::uint8_t, 32> kNoRsaIdentityDigest{};
// Context for the TLS exporter: CID, i.e. kNoRsaIdentityDigest.
inline constexpr std::array<std::uint8_t, 32> kAuth0003ExporterContext = kNoRsaIdentityDigest;

inline constexpr std::size_t kAuth0003CheckedLen = 8 + 8 * 32;              // TYPE..TLSSECRETS = 264
inline constexpr std::size_t kAuth0003RandLen = 24;
inline constexpr std::size_t kAuth0003SignedLen = kAuth0003CheckedLen + kAuth0003RandLen;  // 288
inline constexpr std::size_t kAuth0003Len = kAuth0003SignedLen + 64;                       // 352

using Digest32 = std::array<std::uint8_t, 32>;

struct Auth0003Fields {
  Digest32 cid = kNoRsaIdentityDigest;
  Digest32 sid = kNoRsaIdentityDigest;
  crypto::Ed25519Public cid_ed{};  // initiator identity
  crypto::Ed25519Public sid_ed{};  // responder identity
  Digest32 slog{};                 // SHA-256 of what the responder sent, through AUTH_CHALLENGE
  Digest32 clog{};                 // SHA-256 of what the initiator sent, before AUTHENTICATE
  Digest32 scert{};                // SHA-256 of the responder's TLS certificate
  Digest32 tlssecrets{};           // the TLS exporter value
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
