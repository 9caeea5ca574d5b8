#pragma once
// A relay's RSA-1024 identity in a CERTS cell (tor-spec 4.2): type 2, the
// key in a self-signed X.509 certificate, and type 7, the RSA->Ed25519
// cross-certificate, the RSA key's signature of the Ed25519 identity. tor
// requires both from every relay (torcert.c, or_handshake_certs_ed25519_ok:
// "Missing legacy RSA ID certificate") and names relays by the RSA key's
// fingerprint (SHA-1 of its PKCS#1 DER): the consensus, ntor v1's NODEID,
// EXTEND2's legacy link specifier, Bridge and DirAuthority lines. AUTH0003's
// CID and SID are the SHA-256 of the same DER.
#include <array>
#include <cstdint>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/proto/link_handshake_types.hpp"

namespace conflux::proto {

struct RsaIdentity {
  crypto::RsaFingerprint fingerprint{};  // SHA-1 of the PKCS#1 DER
  std::array<std::uint8_t, 32> sha256{};  // SHA-256 of the same DER (AUTH0003's CID / SID)
  friend bool operator==(const RsaIdentity&, const RsaIdentity&) = default;
};

// The RSA identity of `certs` that cross-certifies `ed_identity` (the
// subject of the type-4 certificate's signer): MissingCert without type 2 or
// 7; BadCert when one does not parse or verify, the key is not RSA-1024 (as
// tor requires), or type 7 certifies another Ed25519 key; ExpiredCert when
// type 7 expired at `now` (seconds since the epoch).
[[nodiscard]] Result<RsaIdentity, LinkFailure> rsa_identity_for_ed25519(const cell::CertsCell& certs,
                                                                        const crypto::Ed25519Public& ed_identity,
                                                                        std::uint64_t now);

// The other direction, for a relay known only by its fingerprint: the
// Ed25519 identity type 7 certifies, when type 2's key has fingerprint
// `expected` (else IdentityMismatch); other failures as above.
[[nodiscard]] Result<crypto::Ed25519Public, LinkFailure> ed25519_identity_for_rsa(
    const cell::CertsCell& certs, const crypto::RsaFingerprint& expected, std::uint64_t now);

}  // namespace conflux::proto
