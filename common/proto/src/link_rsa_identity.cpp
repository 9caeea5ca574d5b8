#include "conflux/proto/link_rsa_identity.hpp"

#include <optional>

#include "conflux/cell/rsa_crosscert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/x509_rsa_identity.hpp"

namespace conflux::proto {
namespace {

constexpr std::size_t kRelayRsaBits = 1024;  // tor_tls_cert_is_valid's check_rsa_1024

const cell::CertsCellEntry* entry_of(const cell::CertsCell& certs, std::uint8_t type) {
  for (const auto& e : certs.certs)
    if (e.cert_type == type) return &e;
  return nullptr;
}

struct Checked {
  crypto::RsaPublicKey key;
  crypto::Ed25519Public ed;
};

// Type 2's key and the Ed25519 key type 7 certifies with it.
Result<Checked, LinkFailure> check_pair(const cell::CertsCell& certs, const std::optional<crypto::RsaFingerprint>& want,
                                        std::uint64_t now) {
  const auto* id_cert = entry_of(certs, cell::certs_type::kRsaIdentity);
  const auto* cross = entry_of(certs, cell::certs_type::kRsaEdCrossCert);
  if (id_cert == nullptr || cross == nullptr) return Unexpected{LinkFailure::MissingCert};
  auto key = crypto::rsa_identity_from_x509(id_cert->body);
  if (!key || key->bits() != kRelayRsaBits) return Unexpected{LinkFailure::BadCert};
  if (want && key->fingerprint() != *want) return Unexpected{LinkFailure::IdentityMismatch};
  auto cc = cell::decode_rsa_crosscert(cross->body);
  if (!cc) return Unexpected{LinkFailure::BadCert};
  auto ed = cell::verify_rsa_crosscert(*cc, key->der(), now);
  if (!ed) return Unexpected{ed.error() == cell::CertError::Expired ? LinkFailure::ExpiredCert : LinkFailure::BadCert};
  return Checked{std::move(*key), *ed};
}

}  // namespace

Result<RsaIdentity, LinkFailure> rsa_identity_for_ed25519(const cell::CertsCell& certs,
                                                          const crypto::Ed25519Public& ed_identity,
                                                          std::uint64_t now) {
  auto c = check_pair(certs, std::nullopt, now);
  if (!c) return Unexpected{c.error()};
  if (c->ed != ed_identity) return Unexpected{LinkFailure::BadCert};
  return RsaIdentity{c->key.fingerprint(), crypto::sha256(c->key.der())};
}

Result<crypto::Ed25519Public, LinkFailure> ed25519_identity_for_rsa(const cell::CertsCell& certs,
                                                                   const crypto::RsaFingerprint& expected,
                                                                   std::uint64_t now) {
  auto c = check_pair(certs, expected, now);
  if (!c) return Unexpected{c.error()};
  return c->ed;
}

}  // namespace conflux::proto
