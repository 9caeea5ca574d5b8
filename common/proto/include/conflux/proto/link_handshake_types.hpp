#pragma once
// The values a link handshake (tor-spec 4) takes and gives: our certificates,
// facts from the TLS layer, addresses, limits, and the outcome.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "conflux/cell/cell_command.hpp"
#include "conflux/cell/netinfo_cell.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/crypto/secret.hpp"

namespace conflux::proto {

// Link protocol versions we speak: 4 (4-byte circuit IDs) and 5 (link padding).
inline constexpr std::array<std::uint16_t, 2> kSupportedLinkVersions{4, 5};

// A relay's side of the handshake, filled from keys::RelayKeys by
// net::link_credentials (conflux_proto does not depend on conflux_keys,
// hence the plain struct). Certificate types as tor-spec 4.2 numbers them.
struct LinkCredentials {
  crypto::Ed25519Public identity{};
  std::vector<std::uint8_t> id_signing_cert;    // type 4, encoded
  std::vector<std::uint8_t> signing_tls_cert;   // type 5, encoded (sent when responding)
  std::vector<std::uint8_t> signing_auth_cert;  // type 6, encoded (sent when initiating)
  crypto::Ed25519Keypair link_auth_key;         // KS_link_ed, certified by type 6
  std::vector<std::uint8_t> rsa_link_cert;      // type 1, X.509 DER (sent when responding)
  std::vector<std::uint8_t> rsa_identity_cert;  // type 2, X.509 DER
  std::vector<std::uint8_t> rsa_crosscert;      // type 7, encoded
  // SHA-256 of our RSA identity's PKCS#1 DER (AUTH0003's CID or SID).
  std::array<std::uint8_t, 32> rsa_identity_sha256{};
};

// RFC 5705 / RFC 8446 7.5 exporter: 32 bytes with label
// kAuth0003ExporterLabel (link_handshake_auth.hpp) and the given context,
// nullopt if TLS cannot export. AUTH0003's context is CID, which a responder
// learns from the initiator's CERTS, hence a function rather than a value.
using TlsExporter = std::function<std::optional<crypto::Secret<32>>(std::span<const std::uint8_t> context)>;

// What the TLS layer knows once its handshake is done.
struct TlsFacts {
  // SHA-256 of the DER certificate the responder presented. The initiator
  // checks the type-5 certificate against it; the responder passes its own.
  std::array<std::uint8_t, 32> responder_cert_digest{};
  // Used by relay-to-relay authentication only; may be empty for a client.
  TlsExporter exporter;
};

struct LinkAddresses {
  std::optional<cell::NetinfoAddress> peer;  // the peer's address as we see it (OTHERADDR)
  std::vector<cell::NetinfoAddress> ours;    // our advertised addresses (a client sends none)
};

// Bounds on what a peer may make us accept before the handshake is done.
// The normal exchange is 4 or 5 cells and a few KiB.
struct LinkLimits {
  std::size_t max_cells = 16;
  std::size_t max_bytes = 64 * 1024;
};

enum class LinkFailure : std::uint8_t {
  MalformedCell,        // framing error, nonzero CircID, or a body that does not decode
  UnexpectedCell,       // a command not allowed at this point (unknown commands included)
  DuplicateCell,        // a second VERSIONS, CERTS, AUTH_CHALLENGE, AUTHENTICATE or NETINFO
  NoCommonVersion,      // the peer's VERSIONS lists neither 4 nor 5
  MissingCert,          // CERTS lacks a certificate type the role requires
  BadCert,              // malformed, wrong type or key type, or bad signature
  ExpiredCert,          // a certificate expired at `now`
  IdentityMismatch,     // the responder is not the relay we meant to reach
  TlsCertMismatch,      // type 5 does not certify the TLS certificate we saw
  NoAuthMethod,         // (relay initiator) AUTH_CHALLENGE offers no method 3
  BadAuthenticate,      // AUTHENTICATE malformed, too short, or an AuthType we did not offer
  AuthFieldMismatch,    // an AUTH0003 field (ids, SLOG, CLOG, SCERT, TLSSECRETS) is wrong
  NoExporter,           // TLS gave no exporter value (relay-to-relay only)
  BadAuthSignature,     // the AUTH0003 signature does not verify with the type-6 key
  MissingAuthenticate,  // CERTS then NETINFO with no AUTHENTICATE in between
  SelfConnection,       // the initiator proved our own identity
  TooLarge,             // more cells or bytes than LinkLimits allow
  NotStarted,           // (initiator) a cell arrived before start()
  Internal,             // we could not encode one of our own cells
};

std::string_view to_string(LinkFailure f) noexcept;

struct LinkDone {
  cell::LinkVersion link_version = 0;
  // The peer's Ed25519 identity when it proved one: always for an
  // initiator's view of the responder; for a responder, only when the
  // initiator authenticated (a relay, not a client or bridge).
  std::optional<crypto::Ed25519Public> peer_identity;
  // The fingerprint of the RSA identity that cross-certified it (set with
  // peer_identity).
  std::optional<crypto::RsaFingerprint> peer_rsa_identity;
  // From the peer's NETINFO: how it sees us (OTHERADDR) and what it advertises.
  std::optional<cell::NetinfoAddress> our_address_seen_by_peer;
  std::vector<cell::NetinfoAddress> peer_addresses;
  std::uint32_t peer_timestamp = 0;
  // peer_timestamp - now, when the peer sent a timestamp (clients send 0).
  // The caller may log a large skew; it never fails the handshake.
  std::optional<std::int64_t> clock_skew;
};

enum class LinkState : std::uint8_t { InProgress, Done, Failed };

}  // namespace conflux::proto
