// load_or_create_relay_keys: the first-start / later-start logic over the
// key files. Secrets pass through KeyFileContents and Secret<>, both wiped.
#include <algorithm>
#include <span>

#include "conflux/crypto/secret.hpp"
#include "conflux/keys/key_file.hpp"
#include "conflux/keys/relay_keys.hpp"

namespace conflux::keys {
namespace {

using Path = std::filesystem::path;
template <class T>
using KResult = Result<T, KeyStoreError>;

std::span<const std::uint8_t, 32> first32(const std::vector<std::uint8_t>& v) {
  return std::span<const std::uint8_t, 32>(v.data(), 32);
}

KResult<crypto::Ed25519Keypair> load_or_create_identity(const Path& dir, std::uint64_t now, bool& created) {
  const Path secret_path = dir / kIdentitySecretFile;
  const Path public_path = dir / kIdentityPublicFile;
  auto secret = read_key_file(secret_path, KeyKind::Ed25519Seed);
  if (!secret) return Unexpected{secret.error()};
  if (!secret->has_value()) {
    auto id = crypto::Ed25519Keypair::generate();
    if (auto e = write_key_file(secret_path, KeyKind::Ed25519Seed, now, id.seed())) return Unexpected{*e};
    if (auto e = write_key_file(public_path, KeyKind::Ed25519Public, now, id.public_key())) return Unexpected{*e};
    created = true;
    return id;
  }
  auto id = crypto::Ed25519Keypair::from_seed(first32((*secret)->payload));
  auto pub = read_key_file(public_path, KeyKind::Ed25519Public);
  if (!pub) return Unexpected{pub.error()};
  if (!pub->has_value()) {
    if (auto e = write_key_file(public_path, KeyKind::Ed25519Public, (*secret)->created, id.public_key())) {
      return Unexpected{*e};
    }
  } else if (!std::equal(id.public_key().begin(), id.public_key().end(), (*pub)->payload.begin())) {
    return Unexpected{KeyStoreError{KeyStoreErrorKind::Mismatch, public_path.string(),
                                    "does not match " + std::string(kIdentitySecretFile) +
                                        "; refusing to guess which identity is ours"}};
  }
  return id;
}

// tor's secret_id_key: PEM "RSA PRIVATE KEY". A file that is there but is
// not a 1024-bit key is an error: the identity is never replaced.
KResult<crypto::RsaPrivateKey> load_or_create_rsa_identity(const Path& dir) {
  const Path path = dir / kRsaIdentityFile;
  auto raw = read_raw_key_file(path, true);
  if (!raw) return Unexpected{raw.error()};
  if (!raw->has_value()) {
    auto key = crypto::RsaPrivateKey::generate(kRelayRsaIdentityBits);
    std::string pem = key.to_pem();
    auto e = write_raw_key_file(path, {reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()});
    crypto::secure_wipe(pem.data(), pem.size());
    if (e) return Unexpected{*e};
    return key;
  }
  std::vector<std::uint8_t>& bytes = **raw;
  auto key = crypto::RsaPrivateKey::from_pem({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
  crypto::secure_wipe(bytes.data(), bytes.size());
  if (!key || key->bits() != kRelayRsaIdentityBits) {
    return Unexpected{KeyStoreError{KeyStoreErrorKind::BadKeyFile, path.string(),
                                    "is not a PEM RSA-1024 private key; refusing to replace an identity"}};
  }
  return std::move(*key);
}

struct Signing {
  crypto::Ed25519Keypair key;
  cell::Ed25519Cert cert;
};

// The stored signing key, if its certificate is ours, names this key and is
// good for longer than the renewal margin.
std::optional<Signing> usable_signing(const KeyFileContents& key_file, const KeyFileContents& cert_file,
                                      const crypto::Ed25519Public& identity, std::uint64_t now,
                                      const KeyLifetimes& lifetimes) {
  auto key = crypto::Ed25519Keypair::from_seed(first32(key_file.payload));
  auto cert = cell::decode_ed25519_cert(cert_file.payload);
  if (!cert || cert->body.cert_type != cell::CertType::IdentityVSigning) return std::nullopt;
  auto signer = cell::verify_ed25519_cert(*cert, identity, now + lifetimes.signing_renew);
  if (!signer) return std::nullopt;
  if (cert->certified_ed25519_key() != key.public_key()) return std::nullopt;
  return Signing{std::move(key), std::move(cert).value()};
}

KResult<Signing> load_or_create_signing(const Path& dir, const crypto::Ed25519Keypair& identity, bool fresh_identity,
                                        std::uint64_t now, const KeyLifetimes& lifetimes) {
  const Path key_path = dir / kSigningSecretFile;
  const Path cert_path = dir / kSigningCertFile;
  if (!fresh_identity) {
    // A malformed signing key or certificate is replaced below, not fatal:
    // the identity key can always make new ones. Unsafe permissions are.
    auto key = read_key_file(key_path, KeyKind::Ed25519Seed);
    if (!key && key.error().kind != KeyStoreErrorKind::BadKeyFile) return Unexpected{key.error()};
    auto cert = read_key_file(cert_path, KeyKind::Ed25519Cert);
    if (!cert && cert.error().kind != KeyStoreErrorKind::BadKeyFile) return Unexpected{cert.error()};
    if (key && key->has_value() && cert && cert->has_value()) {
      if (auto s = usable_signing(**key, **cert, identity.public_key(), now, lifetimes)) return std::move(*s);
    }
  }
  auto key = crypto::Ed25519Keypair::generate();
  auto cert = make_signing_cert(identity, key, now, lifetimes.signing);
  auto encoded = cell::encode_ed25519_cert(cert);
  if (!encoded) return Unexpected{KeyStoreError{KeyStoreErrorKind::BadKeyFile, cert_path.string(), "cannot encode"}};
  // Key first: a crash between the two leaves a certificate for the old key,
  // which the next start detects and replaces.
  if (auto e = write_key_file(key_path, KeyKind::Ed25519Seed, now, key.seed())) return Unexpected{*e};
  if (auto e = write_key_file(cert_path, KeyKind::Ed25519Cert, now, *encoded)) return Unexpected{*e};
  return Signing{std::move(key), std::move(cert)};
}

KResult<std::optional<OnionKey>> read_onion(const Path& path) {
  auto f = read_key_file(path, KeyKind::X25519Secret);
  if (!f) return Unexpected{f.error()};
  if (!f->has_value()) return std::optional<OnionKey>{};
  return std::optional<OnionKey>{OnionKey{crypto::X25519Secret::from_bytes(first32((*f)->payload)), (*f)->created}};
}

std::optional<KeyStoreError> write_onion(const Path& path, const OnionKey& k) {
  return write_key_file(path, KeyKind::X25519Secret, k.created, k.key.secret_bytes());
}

struct Onions {
  OnionKey current;
  std::optional<OnionKey> previous;
};

KResult<Onions> load_or_rotate_onion(const Path& dir, std::uint64_t now, const KeyLifetimes& lifetimes) {
  const Path cur_path = dir / kOnionKeyFile;
  const Path old_path = dir / kOldOnionKeyFile;
  auto cur = read_onion(cur_path);
  if (!cur) return Unexpected{cur.error()};
  auto old = read_onion(old_path);
  if (!old) return Unexpected{old.error()};
  std::optional<OnionKey> current = std::move(*cur);
  std::optional<OnionKey> previous = std::move(*old);

  const bool stale = current && (current->created > now || now - current->created >= lifetimes.onion_rotation);
  if (!current || stale) {
    if (current) {
      // Old first: if we crash before the new key is written, the current
      // key is still in both files and nothing is lost.
      if (auto e = write_onion(old_path, *current)) return Unexpected{*e};
      previous = std::move(current);
    }
    current = OnionKey{crypto::X25519Secret::generate(), now};
    if (auto e = write_onion(cur_path, *current)) return Unexpected{*e};
  }
  // The previous key serves CREATE2 cells made from an old descriptor for a
  // grace period after its successor appeared.
  if (previous && now - std::min(now, current->created) >= lifetimes.onion_grace) {
    if (auto e = remove_key_file(old_path)) return Unexpected{*e};
    previous.reset();
  }
  return Onions{std::move(*current), std::move(previous)};
}

}  // namespace

Result<RelayKeys, KeyStoreError> load_or_create_relay_keys(const std::filesystem::path& data_dir, std::uint64_t now,
                                                           const KeyLifetimes& lifetimes) {
  if (auto e = check_private_dir(data_dir)) return Unexpected{*e};
  const Path dir = data_dir / kKeysSubdir;
  if (auto e = check_private_dir(dir)) return Unexpected{*e};

  bool fresh_identity = false;
  auto identity = load_or_create_identity(dir, now, fresh_identity);
  if (!identity) return Unexpected{identity.error()};
  auto signing = load_or_create_signing(dir, *identity, fresh_identity, now, lifetimes);
  if (!signing) return Unexpected{signing.error()};
  auto onions = load_or_rotate_onion(dir, now, lifetimes);
  if (!onions) return Unexpected{onions.error()};
  auto rsa = load_or_create_rsa_identity(dir);
  if (!rsa) return Unexpected{rsa.error()};

  return RelayKeys::from_parts(std::move(identity).value(), std::move(signing->key), std::move(signing->cert),
                               std::move(onions->current), std::move(onions->previous), std::move(rsa).value(),
                               lifetimes, now);
}

}  // namespace conflux::keys
