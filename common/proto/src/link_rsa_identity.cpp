#include "conflux/proto/link_rsa_identity.hpp"

#include "conflux/cell/rsa_crosscert.hpp"
#include "conflux/crypto/x509_rsa_identity.hpp"

namespace conflux::proto {
namespace {

const cell::CertsCellEntry* entry_of(const cell::CertsCell& certs, std::uint8_t type) {
  for (const auto& e : certs.certs)
    if (e.cert_type == type) return &e;
  return nullptr;
}

}  // namespace

Result<crypto::Ed25519Public, LinkFailure> ed25519_identity_for_rsa(const cell::CertsCell& certs,
                                                                   const crypto::RsaFingerprint& expected,
                                                                   std::uint64_t now) {
  const auto* id_cert = entry_of(certs, cell::certs_type::kRsaIdentity);
  const auto* cross = entry_of(certs, cell::certs_type::kRsaEdCrossCert);
  if (id_cert == nullptr || cross == nullptr) return Unexpected{LinkFailure::MissingCert};
  auto key = crypto::rsa_identity_from_x509(id_cert->body);
  if (!key) return Unexpected{LinkFailure::BadCert};
  if (key->fingerprint() != expected) return Unexpected{LinkFailure::IdentityMismatch};
  auto cc = cell::decode_rsa_crosscert(cross->body);
  if (!cc) return Unexpected{LinkFailure::BadCert};
  auto ed = cell::verify_rsa_crosscert(*cc, key->der(), now);
  if (!ed) return Unexpected{ed.error() == cell::CertError::Expired ? LinkFailure::ExpiredCert : LinkFailure::BadCert};
  return *ed;
}

}  // namespace conflux::proto
