#include "conflux/dirnet/tor_authority_keys.hpp"

#include "conflux/crypto/secret.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_key_cert_make.hpp"
#include "conflux/keys/key_file.hpp"
#include "conflux/keys/relay_keys.hpp"

namespace conflux::dirnet {
namespace {

using Path = std::filesystem::path;
template <class T>
using KResult = Result<T, keys::KeyStoreError>;

keys::KeyStoreError bad(const Path& p, std::string detail) {
  return keys::KeyStoreError{keys::KeyStoreErrorKind::BadKeyFile, p.string(), std::move(detail)};
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// nullopt when the file does not exist.
KResult<std::optional<std::string>> read_text(const Path& path, bool secret) {
  auto raw = keys::read_raw_key_file(path, secret);
  if (!raw) return Unexpected{raw.error()};
  if (!raw->has_value()) return std::optional<std::string>{};
  std::string text((*raw)->begin(), (*raw)->end());
  crypto::secure_wipe((*raw)->data(), (*raw)->size());
  return std::optional<std::string>{std::move(text)};
}

KResult<std::optional<crypto::RsaPrivateKey>> read_key(const Path& path, std::size_t bits) {
  auto text = read_text(path, true);
  if (!text) return Unexpected{text.error()};
  if (!text->has_value()) return std::optional<crypto::RsaPrivateKey>{};
  auto key = crypto::RsaPrivateKey::from_pem(**text);
  crypto::secure_wipe((*text)->data(), (*text)->size());
  if (!key || key->bits() != bits) return Unexpected{bad(path, "is not a PEM RSA-" + std::to_string(bits) + " private key")};
  return std::optional<crypto::RsaPrivateKey>{std::move(*key)};
}

std::optional<keys::KeyStoreError> write_key(const Path& path, const crypto::RsaPrivateKey& key) {
  std::string pem = key.to_pem();
  auto e = keys::write_raw_key_file(path, as_bytes(pem));
  crypto::secure_wipe(pem.data(), pem.size());
  return e;
}

// The stored certificate, if it is one valid certificate for exactly these
// keys that stays current past now + renew.
bool usable_cert(const std::string& text, const crypto::RsaPrivateKey& identity, const crypto::RsaPrivateKey& signing,
                 std::uint64_t now, const TorAuthorityKeyOptions& o) {
  auto certs = dir::parse_key_certs(text);
  if (!certs || certs->size() != 1) return false;
  const auto& c = (*certs)[0];
  return c.v3ident() == identity.public_key().fingerprint() &&
         c.signing_key_digest() == signing.public_key().fingerprint() && c.published <= now &&
         c.expires > now + o.renew;
}

}  // namespace

Result<TorAuthorityKeys, keys::KeyStoreError> load_or_create_tor_authority_keys(const Path& data_dir,
                                                                                std::uint64_t now,
                                                                                const TorAuthorityKeyOptions& o) {
  if (auto e = keys::check_private_dir(data_dir)) return Unexpected{*e};
  const Path dir = data_dir / keys::kKeysSubdir;
  if (auto e = keys::check_private_dir(dir)) return Unexpected{*e};

  auto identity = read_key(dir / kAuthorityIdentityFile, kAuthorityIdentityBits);
  if (!identity) return Unexpected{identity.error()};
  if (!identity->has_value()) {
    *identity = crypto::RsaPrivateKey::generate(kAuthorityIdentityBits);
    if (auto e = write_key(dir / kAuthorityIdentityFile, **identity)) return Unexpected{*e};
  }
  // A damaged signing key or certificate is replaced: the identity can
  // always certify a new one.
  auto signing = read_key(dir / kAuthoritySigningFile, kAuthoritySigningBits);
  if (!signing && signing.error().kind != keys::KeyStoreErrorKind::BadKeyFile) return Unexpected{signing.error()};
  auto cert = read_text(dir / kAuthorityCertFile, false);
  if (!cert) return Unexpected{cert.error()};
  if (signing && signing->has_value() && cert->has_value() &&
      usable_cert(**cert, **identity, **signing, now, o))
    return TorAuthorityKeys{std::move(**identity), std::move(**signing), std::move(**cert)};

  auto fresh = crypto::RsaPrivateKey::generate(kAuthoritySigningBits);
  std::string text = dir::make_key_cert(**identity, fresh, now, now + o.lifetime, o.dir_address);
  // Key first: a crash in between leaves a certificate for the old key,
  // which the next start detects and replaces.
  if (auto e = write_key(dir / kAuthoritySigningFile, fresh)) return Unexpected{*e};
  if (auto e = keys::write_raw_key_file(dir / kAuthorityCertFile, as_bytes(text))) return Unexpected{*e};
  return TorAuthorityKeys{std::move(**identity), std::move(fresh), std::move(text)};
}

}  // namespace conflux::dirnet
