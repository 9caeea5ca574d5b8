#pragma once
// The values a link handshake (tor-spec 4) takes and gives: our certificates,
// facts from the TLS layer, addresses, limits, and the outcome.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "conflux/cell/cell_command.hpp"
#include "conflux/cell/netinfo_cell.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/secret.hpp"

namespace conflux::proto {

// Link protocol versions we speak: 4 (4-byte circuit IDs) and 5 (link padding).
inline constexpr std::array<std::uint16_t, 2> kSupportedLinkVersions{4, 5};

// A relay's side of the handshake, filled from keys::RelayKeys:
//   LinkCredentials{k.identity(), k.signing_cert_bytes(), k.tls_link_cert_bytes(),
//                   k.link_auth_cert_bytes(), k.link_auth_key()}
// (conflux_proto does not depend on conflux_keys, hence the plain struct.)
struct LinkCredentials {
  crypto::Ed25519Public identity{};
  std::vector<std::uint8_t> id_signing_cert;    // type 4, encoded
  std::vector<std::uint8_t> signing_tls_cert;   // type 5, encoded (sent when responding)
  std::vector<std::uint8_t> signing_auth_cert;  // type 6, encoded (sent when initiating)
  crypto::Ed25519Keypair link_auth_key;         // KS_link_ed, certified by type 6
};

// What the TLS layer knows once its handshake is done.
struct TlsFacts {
  // SHA-256 of the DER certificate the responder presented. The initiator
  // checks the type-5 certificate against it; the responder passes its own.
  std::array<std::uint8_t, 32> responder_cert_digest{};
  // RFC 5705 / RFC 8446 7.5 exporter output, 32 bytes, with label
  // kAuth0003ExporterLabel and context kAuth0003ExporterContext
  // (link_handshake_auth.hpp). Used by relay-to-relay authentication only.
  crypto::Secret<32> exporter;
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
