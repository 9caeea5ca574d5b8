#pragma once
// Checking a CERTS cell (tor-spec 4.2) for the Ed25519-only link handshake.
// Certificates of other types (the RSA ones tor also sends) are ignored;
// duplicates of types 1..7 were already rejected by the CERTS decoder.
#include <array>
#include <cstdint>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/proto/link_handshake_types.hpp"

namespace conflux::proto {

struct ResponderChain {
  crypto::Ed25519Public identity{};
  crypto::Ed25519Public signing_key{};
};

struct InitiatorChain {
  crypto::Ed25519Public identity{};
  crypto::Ed25519Public signing_key{};
  crypto::Ed25519Public auth_key{};
};

// What an initiator checks: type 4 self-signed by the identity it names in
// extension 4, which must be `expected_identity` (else IdentityMismatch);
// type 5 signed by the type-4 subject and certifying exactly
// `tls_cert_digest` (else TlsCertMismatch); none expired at `now`.
[[nodiscard]] Result<ResponderChain, LinkFailure> check_responder_certs(
    const cell::CertsCell& certs, const crypto::Ed25519Public& expected_identity,
    const std::array<std::uint8_t, 32>& tls_cert_digest, std::uint64_t now);

// What a responder checks: type 4 as above (any identity), type 6 signed by
// the type-4 subject; gives the key that must sign AUTHENTICATE.
[[nodiscard]] Result<InitiatorChain, LinkFailure> check_initiator_certs(const cell::CertsCell& certs,
                                                                        std::uint64_t now);

}  // namespace conflux::proto
