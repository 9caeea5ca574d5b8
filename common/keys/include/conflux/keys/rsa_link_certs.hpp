#pragma once
// The two X.509 certificates tor puts in a CERTS cell for its RSA-1024
// identity (tor-spec 4.2, tortls.c's tor_tls_context_new):
//   type 2, the identity certificate: the RSA identity key, self-signed,
//          valid for a year (tor's IDENTITY_CERT_LIFETIME);
//   type 1, the link certificate (a responder sends it): the TLS
//          certificate's public key, issued and signed by the RSA identity,
//          valid as long as the TLS certificate.
// Names are random host names as tor's; signatures are SHA-256 with RSA.
// tor checks type 2's self-signature and RSA-1024 key, and (for a link
// without Ed25519 certificates only) type 1's signature and key.
#include <cstdint>
#include <vector>

#include "conflux/crypto/rsa_private.hpp"
#include "conflux/keys/tls_cert.hpp"

namespace conflux::keys {

inline constexpr std::uint64_t kRsaIdentityCertLifetime = 365ULL * 24 * 3600;

struct RsaLinkCerts {
  std::vector<std::uint8_t> link_cert_der;      // type 1
  std::vector<std::uint8_t> identity_cert_der;  // type 2
};

// Throws crypto::CryptoError only if OpenSSL fails in a way no input can cause.
[[nodiscard]] RsaLinkCerts make_rsa_link_certs(const crypto::RsaPrivateKey& identity, const TlsCertificate& tls,
                                               std::uint64_t now);

}  // namespace conflux::keys
