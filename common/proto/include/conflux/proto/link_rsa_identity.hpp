#pragma once
// tor's other name for a relay: the fingerprint of its RSA identity key, all
// that a tor Bridge line, DirAuthority line or FallbackDir line gives. A
// responder's CERTS cell carries that key (type 2, a self-signed X.509
// certificate) and the key's signature of its Ed25519 identity (type 7, the
// RSA->Ed25519 cross-certificate). When the key has the fingerprint we meant
// and the cross-certificate verifies, the Ed25519 identity it names is the
// relay we meant, and check_responder_certs (link_handshake_certs.hpp) then
// checks the rest of the chain against it, as for a relay named by Ed25519.
// Not yet used by LinkHandshake (see docs/DIRECTORY.md, BEGIN_DIR).
#include <cstdint>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/proto/link_handshake_types.hpp"

namespace conflux::proto {

// MissingCert without type 2 or 7; BadCert when one does not parse or
// verify; IdentityMismatch when the RSA key is not `expected`; ExpiredCert
// when the cross-certificate expired at `now` (seconds since the epoch).
[[nodiscard]] Result<crypto::Ed25519Public, LinkFailure> ed25519_identity_for_rsa(
    const cell::CertsCell& certs, const crypto::RsaFingerprint& expected, std::uint64_t now);

}  // namespace conflux::proto
