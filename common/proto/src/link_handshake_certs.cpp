#include "conflux/proto/link_handshake_certs.hpp"

#include <optional>

#include "conflux/cell/ed25519_cert.hpp"

namespace conflux::proto {
namespace {

LinkFailure from_cert_error(cell::CertError e) noexcept {
  return e == cell::CertError::Expired ? LinkFailure::ExpiredCert : LinkFailure::BadCert;
}

// The certificate of CERTS type `type`, decoded; its own CERT_TYPE must agree.
Result<cell::Ed25519Cert, LinkFailure> find_cert(const cell::CertsCell& certs, cell::CertType type) {
  for (const auto& entry : certs.certs) {
    if (entry.cert_type != static_cast<std::uint8_t>(type)) continue;
    auto cert = cell::decode_ed25519_cert(entry.body);
    if (!cert || cert->body.cert_type != type) return Unexpected{LinkFailure::BadCert};
    return std::move(cert).value();
  }
  return Unexpected{LinkFailure::MissingCert};
}

// Type 4: gives (identity, signing key).
Result<ResponderChain, LinkFailure> check_identity_cert(const cell::CertsCell& certs, std::uint64_t now) {
  auto cert = find_cert(certs, cell::CertType::IdentityVSigning);
  if (!cert) return Unexpected{cert.error()};
  // No key given: verify_ed25519_cert uses extension 4, which type 4 must carry.
  auto identity = cell::verify_ed25519_cert(*cert, std::nullopt, now);
  if (!identity) return Unexpected{from_cert_error(identity.error())};
  auto signing = cert->certified_ed25519_key();
  if (!signing) return Unexpected{LinkFailure::BadCert};
  return ResponderChain{*identity, *signing, {}};
}

Result<cell::Ed25519Cert, LinkFailure> check_signed_by(const cell::CertsCell& certs, cell::CertType type,
                                                       const crypto::Ed25519Public& signing_key, std::uint64_t now) {
  auto cert = find_cert(certs, type);
  if (!cert) return Unexpected{cert.error()};
  auto ok = cell::verify_ed25519_cert(*cert, signing_key, now);
  if (!ok) return Unexpected{from_cert_error(ok.error())};
  return std::move(cert).value();
}

}  // namespace

Result<ResponderChain, LinkFailure> check_responder_certs(const cell::CertsCell& certs,
                                                          const ExpectedPeer& expected,
                                                          const std::array<std::uint8_t, 32>& tls_cert_digest,
                                                          std::uint64_t now) {
  if (!expected.ed25519 && !expected.rsa) return Unexpected{LinkFailure::Internal};
  auto chain = check_identity_cert(certs, now);
  if (!chain) return chain;
  if (expected.ed25519 && chain->identity != *expected.ed25519) return Unexpected{LinkFailure::IdentityMismatch};
  auto tls = check_signed_by(certs, cell::CertType::SigningVTlsCert, chain->signing_key, now);
  if (!tls) return Unexpected{tls.error()};
  // verify_ed25519_cert's profile check made sure this is a SHA-256 of X.509.
  if (tls->body.certified_key != tls_cert_digest) return Unexpected{LinkFailure::TlsCertMismatch};
  auto rsa = rsa_identity_for_ed25519(certs, chain->identity, now);
  if (!rsa) return Unexpected{rsa.error()};
  if (expected.rsa && rsa->fingerprint != *expected.rsa) return Unexpected{LinkFailure::IdentityMismatch};
  chain->rsa = *rsa;
  return chain;
}

Result<InitiatorChain, LinkFailure> check_initiator_certs(const cell::CertsCell& certs, std::uint64_t now) {
  auto chain = check_identity_cert(certs, now);
  if (!chain) return Unexpected{chain.error()};
  auto auth = check_signed_by(certs, cell::CertType::SigningVAuth, chain->signing_key, now);
  if (!auth) return Unexpected{auth.error()};
  auto auth_key = auth->certified_ed25519_key();
  if (!auth_key) return Unexpected{LinkFailure::BadCert};
  auto rsa = rsa_identity_for_ed25519(certs, chain->identity, now);
  if (!rsa) return Unexpected{rsa.error()};
  return InitiatorChain{chain->identity, chain->signing_key, *auth_key, *rsa};
}

}  // namespace conflux::proto
