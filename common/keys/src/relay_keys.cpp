#include "conflux/keys/relay_keys.hpp"

#include <algorithm>
#include <stdexcept>

#include "conflux/cell/rsa_crosscert.hpp"
#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/error.hpp"
#include "conflux/crypto/secret.hpp"
#include "conflux/keys/rsa_link_certs.hpp"

namespace conflux::keys {
namespace {

constexpr std::uint64_t kRsaCrosscertLifetime = 6ULL * 30 * 24 * 3600;

std::vector<std::uint8_t> encode_or_throw(const cell::Ed25519Cert& cert) {
  auto bytes = cell::encode_ed25519_cert(cert);
  // Our own certificates have one 32-byte extension: encoding cannot fail.
  if (!bytes) throw std::logic_error("relay keys: certificate does not encode");
  return std::move(bytes).value();
}

// Type 4 must name its signer (extension 4); types 5 and 6 are checked
// against the already known signing key, and tor leaves the extension out.
cell::Ed25519Cert sign_or_throw(cell::Ed25519CertBody body, const crypto::Ed25519Keypair& signer,
                                cell::IncludeSigningKey include = cell::IncludeSigningKey::No) {
  auto cert = cell::sign_ed25519_cert(std::move(body), signer, include);
  if (!cert) throw std::logic_error("relay keys: certificate does not sign");
  return std::move(cert).value();
}

}  // namespace

cell::Ed25519Cert make_signing_cert(const crypto::Ed25519Keypair& identity, const crypto::Ed25519Keypair& signing,
                                    std::uint64_t now, std::uint64_t lifetime) {
  cell::Ed25519CertBody body;
  body.cert_type = cell::CertType::IdentityVSigning;
  body.expiration_hours = cell::cert_expiration_hours(now + lifetime);
  body.key_type = cell::CertKeyType::Ed25519;
  body.certified_key = signing.public_key();
  return sign_or_throw(std::move(body), identity, cell::IncludeSigningKey::Yes);
}

RelayKeys::RelayKeys(crypto::Ed25519Keypair identity, crypto::Ed25519Keypair signing, cell::Ed25519Cert signing_cert,
                     OnionKey onion, std::optional<OnionKey> old_onion, crypto::RsaPrivateKey rsa_identity,
                     KeyLifetimes lifetimes, std::uint64_t now)
    : identity_(std::move(identity)),
      rsa_identity_(std::move(rsa_identity)),
      signing_(std::move(signing)),
      signing_cert_(std::move(signing_cert)),
      signing_cert_bytes_(encode_or_throw(signing_cert_)),
      link_auth_(crypto::Ed25519Keypair::generate()),
      onion_(std::move(onion)),
      old_onion_(std::move(old_onion)),
      lifetimes_(lifetimes) {
  regenerate_link_keys(now);
}

RelayKeys RelayKeys::generate(std::uint64_t now, const KeyLifetimes& lifetimes) {
  auto identity = crypto::Ed25519Keypair::generate();
  auto signing = crypto::Ed25519Keypair::generate();
  auto cert = make_signing_cert(identity, signing, now, lifetimes.signing);
  return RelayKeys(std::move(identity), std::move(signing), std::move(cert),
                   OnionKey{crypto::X25519Secret::generate(), now}, std::nullopt,
                   crypto::RsaPrivateKey::generate(kRelayRsaIdentityBits), lifetimes, now);
}

RelayKeys RelayKeys::from_parts(crypto::Ed25519Keypair identity, crypto::Ed25519Keypair signing,
                                cell::Ed25519Cert signing_cert, OnionKey onion, std::optional<OnionKey> old_onion,
                                crypto::RsaPrivateKey rsa_identity, const KeyLifetimes& lifetimes,
                                std::uint64_t now) {
  return RelayKeys(std::move(identity), std::move(signing), std::move(signing_cert), std::move(onion),
                   std::move(old_onion), std::move(rsa_identity), lifetimes, now);
}

const crypto::X25519Secret* RelayKeys::find_onion_key(const crypto::X25519Public& keyid) const noexcept {
  if (onion_.key.public_key() == keyid) return &onion_.key;
  if (old_onion_ && old_onion_->key.public_key() == keyid) return &old_onion_->key;
  return nullptr;
}

void RelayKeys::regenerate_link_keys(std::uint64_t now) {
  // The link certificates never outlive the signing key that vouches for them.
  const std::uint64_t expires = std::min(now + lifetimes_.link, signing_cert_.expires_at());
  const std::uint64_t lifetime = expires > now ? expires - now : 0;

  tls_ = generate_tls_certificate(now, lifetime);
  cell::Ed25519CertBody tls_body;
  tls_body.cert_type = cell::CertType::SigningVTlsCert;
  tls_body.expiration_hours = cell::cert_expiration_hours(expires);
  tls_body.key_type = cell::CertKeyType::Sha256OfX509;
  tls_body.certified_key = tls_.digest;
  tls_link_cert_bytes_ = encode_or_throw(sign_or_throw(std::move(tls_body), signing_));

  link_auth_ = crypto::Ed25519Keypair::generate();
  cell::Ed25519CertBody auth_body;
  auth_body.cert_type = cell::CertType::SigningVAuth;
  auth_body.expiration_hours = cell::cert_expiration_hours(expires);
  auth_body.key_type = cell::CertKeyType::Ed25519;
  auth_body.certified_key = link_auth_.public_key();
  link_auth_cert_bytes_ = encode_or_throw(sign_or_throw(std::move(auth_body), signing_));
  link_expires_ = expires;

  auto rsa = make_rsa_link_certs(rsa_identity_, tls_, now);
  rsa_link_cert_ = std::move(rsa.link_cert_der);
  rsa_id_cert_ = std::move(rsa.identity_cert_der);
  // tor's crosscert lasts six months (routerkeys.c); ours is re-signed with
  // every link key.
  auto der = rsa_identity_.to_pkcs1_der();
  auto cross = cell::sign_rsa_crosscert(identity(), cell::cert_expiration_hours(now + kRsaCrosscertLifetime), der);
  crypto::secure_wipe(der.data(), der.size());
  if (!cross) throw crypto::CryptoError("relay keys: RSA->Ed25519 crosscert");
  auto cross_bytes = cell::encode_rsa_crosscert(*cross);
  if (!cross_bytes) throw crypto::CryptoError("relay keys: RSA->Ed25519 crosscert encoding");
  rsa_crosscert_ = std::move(*cross_bytes);
}

}  // namespace conflux::keys
