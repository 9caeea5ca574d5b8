#pragma once
// Checking a CERTS cell (tor-spec 4.2) as tor does when Ed25519 certificates
// are present (torcert.c, or_handshake_certs_ed25519_ok): the Ed25519 chain,
// and the RSA identity (type 2) cross-certifying the Ed25519 identity (type
// 7). The RSA link certificates (types 1, 3) are ignored, as tor ignores them
// then; duplicates of types 1..7 were already rejected by the CERTS decoder.
#include <array>
#include <cstdint>
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/proto/link_handshake_types.hpp"
#include "conflux/proto/link_rsa_identity.hpp"

namespace conflux::proto {

struct ResponderChain {
  crypto::Ed25519Public identity{};
  crypto::Ed25519Public signing_key{};
  RsaIdentity rsa{};
};

// Whom an initiator meant to reach: by Ed25519 identity, RSA fingerprint, or
// both (each given one must match). At least one must be set.
struct ExpectedPeer {
  std::optional<crypto::Ed25519Public> ed25519;
  std::optional<crypto::RsaFingerprint> rsa;
};

struct InitiatorChain {
  crypto::Ed25519Public identity{};
  crypto::Ed25519Public signing_key{};
  crypto::Ed25519Public auth_key{};
  RsaIdentity rsa{};
};

// What an initiator checks: type 4 self-signed by the identity it names in
// extension 4; type 5 signed by the type-4 subject and certifying exactly
// `tls_cert_digest` (else TlsCertMismatch); types 2 and 7 as
// rsa_identity_for_ed25519 checks them; none expired at `now`; the Ed25519
// and RSA identities those give must be the `expected` ones (else IdentityMismatch).
[[nodiscard]] Result<ResponderChain, LinkFailure> check_responder_certs(
    const cell::CertsCell& certs, const ExpectedPeer& expected,
    const std::array<std::uint8_t, 32>& tls_cert_digest, std::uint64_t now);

// What a responder checks: type 4 as above (any identity), type 6 signed by
// the type-4 subject, types 2 and 7; gives the key that must sign AUTHENTICATE.
[[nodiscard]] Result<InitiatorChain, LinkFailure> check_initiator_certs(const cell::CertsCell& certs,
                                                                        std::uint64_t now);

}  // namespace conflux::proto
