// Relay keys: the certificate chain, the key files, their permissions, and
// what a later start regenerates.
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/keys/fingerprint.hpp"
#include "conflux/keys/key_file.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "test_support.hpp"

using namespace conflux;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kNow = 1'700'000'000;  // 2023-11-14
constexpr std::uint64_t kDay = 24 * 3600;

// A fresh private directory per test case, removed afterwards.
struct TempDir {
  fs::path root;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "conflux-keys-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  [[nodiscard]] fs::path data() const { return root / "data"; }
  [[nodiscard]] fs::path keys() const { return root / "data" / "keys"; }
};

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

keys::RelayKeys load_ok(const fs::path& dir, std::uint64_t now) {
  auto k = keys::load_or_create_relay_keys(dir, now);
  if (!k) FAIL(k.error().message());
  return std::move(k).value();
}

std::vector<std::uint8_t> seed_of(const crypto::Ed25519Keypair& k) { return {k.seed().begin(), k.seed().end()}; }

}  // namespace

TEST_CASE("relay keys: the certificate chain identity -> signing -> TLS cert and link auth key", "[keys]") {
  const auto k = keys::RelayKeys::generate(kNow);

  auto t4 = cell::decode_ed25519_cert(k.signing_cert_bytes());
  REQUIRE(t4);
  CHECK(t4->body.cert_type == cell::CertType::IdentityVSigning);
  CHECK(t4->signed_with_key() == k.identity());
  CHECK(t4->certified_ed25519_key() == k.signing_key().public_key());
  CHECK(cell::verify_ed25519_cert(*t4, k.identity(), kNow));
  // 30 days, rounded up to the hour: valid just before, expired just after.
  CHECK(cell::verify_ed25519_cert(*t4, k.identity(), kNow + 30 * kDay));
  CHECK(cell::verify_ed25519_cert(*t4, k.identity(), kNow + 30 * kDay + 3600).error() == cell::CertError::Expired);

  auto t5 = cell::decode_ed25519_cert(k.tls_link_cert_bytes());
  REQUIRE(t5);
  CHECK(t5->body.cert_type == cell::CertType::SigningVTlsCert);
  CHECK(t5->body.key_type == cell::CertKeyType::Sha256OfX509);
  CHECK(t5->body.certified_key == crypto::sha256(k.tls_certificate().cert_der));
  CHECK(t5->body.certified_key == k.tls_certificate().digest);
  CHECK(cell::verify_ed25519_cert(*t5, k.signing_key().public_key(), kNow));
  CHECK(!cell::verify_ed25519_cert(*t5, k.identity(), kNow));

  auto t6 = cell::decode_ed25519_cert(k.link_auth_cert_bytes());
  REQUIRE(t6);
  CHECK(t6->body.cert_type == cell::CertType::SigningVAuth);
  CHECK(t6->certified_ed25519_key() == k.link_auth_key().public_key());
  CHECK(cell::verify_ed25519_cert(*t6, k.signing_key().public_key(), kNow));
  CHECK(k.link_certs_expire_at() == kNow + 2 * kDay);
}

TEST_CASE("relay keys: the TLS certificate looks like tor's and is short-lived", "[keys]") {
  const auto k = keys::RelayKeys::generate(kNow);
  const auto& tls = k.tls_certificate();
  const unsigned char* p = tls.cert_der.data();
  X509* x = d2i_X509(nullptr, &p, static_cast<long>(tls.cert_der.size()));
  REQUIRE(x != nullptr);
  char cn[128] = {};
  REQUIRE(X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof cn) > 0);
  const std::string subject(cn);
  CHECK(subject.rfind("www.", 0) == 0);
  CHECK(subject.size() >= 4 + 8 + 4);
  CHECK(subject.size() <= 4 + 20 + 4);
  CHECK(subject.substr(subject.size() - 4) == ".net");
  CHECK(X509_cmp_time(X509_get0_notAfter(x), nullptr) != 0);
  EVP_PKEY* pub = X509_get0_pubkey(x);
  REQUIRE(pub != nullptr);
  CHECK(X509_verify(x, pub) == 1);  // self-signed
  X509_free(x);
  CHECK(tls.not_after == kNow + 2 * kDay);
  CHECK(tls.not_before == kNow - kDay);
  CHECK(tls.cert_pem.rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  CHECK(tls.key_pem.str().rfind("-----BEGIN PRIVATE KEY-----", 0) == 0);

  // Every start (and every regeneration) gets a new one.
  auto k2 = k;
  k2.regenerate_link_keys(kNow + 3600);
  CHECK(k2.tls_certificate().cert_der != tls.cert_der);
  CHECK(k2.link_auth_key().public_key() != k.link_auth_key().public_key());
  CHECK(k2.identity() == k.identity());
}

TEST_CASE("relay keys: first start writes keys/, later starts load the same keys", "[keys]") {
  TempDir t;
  const auto first = load_ok(t.data(), kNow);

  CHECK(mode_of(t.data()) == 0700);
  CHECK(mode_of(t.keys()) == 0700);
  for (auto name : {keys::kIdentitySecretFile, keys::kIdentityPublicFile, keys::kSigningSecretFile,
                    keys::kSigningCertFile, keys::kOnionKeyFile, keys::kRsaIdentityFile}) {
    INFO(name);
    REQUIRE(fs::exists(t.keys() / name));
    CHECK(mode_of(t.keys() / name) == 0600);
  }
  CHECK(!fs::exists(t.keys() / keys::kOldOnionKeyFile));

  const auto second = load_ok(t.data(), kNow + 3600);
  CHECK(second.identity() == first.identity());
  CHECK(seed_of(second.signing_key()) == seed_of(first.signing_key()));
  CHECK(second.signing_cert_bytes() == first.signing_cert_bytes());
  CHECK(second.onion_key().key.public_key() == first.onion_key().key.public_key());
  CHECK(second.onion_key().created == kNow);
  // The TLS certificate and link key are per process.
  CHECK(second.tls_certificate().cert_der != first.tls_certificate().cert_der);

  // The identity file holds exactly what the format promises.
  std::ifstream in(t.keys() / keys::kIdentityPublicFile, std::ios::binary);
  std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string header = "conflux-key-v1 ed25519-public 1700000000\n";
  REQUIRE(file.size() == header.size() + 32);
  CHECK(std::string(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(header.size())) == header);
  CHECK(std::equal(first.identity().begin(), first.identity().end(), file.begin() + static_cast<std::ptrdiff_t>(header.size())));
}

TEST_CASE("relay keys: refuses a group/world writable or foreign data directory", "[keys]") {
  TempDir t;
  fs::create_directory(t.data());

  SECTION("world-writable DataDirectory") {
    REQUIRE(::chmod(t.data().c_str(), 0777) == 0);
    auto k = keys::load_or_create_relay_keys(t.data(), kNow);
    REQUIRE(!k);
    CHECK(k.error().kind == keys::KeyStoreErrorKind::InsecureDirectory);
    CHECK(k.error().message().find(t.data().string()) != std::string::npos);
    CHECK(k.error().message().find("0777") != std::string::npos);
    CHECK(!fs::exists(t.keys()));  // nothing written
  }
  SECTION("group-writable keys/") {
    fs::create_directory(t.keys());
    REQUIRE(::chmod(t.data().c_str(), 0700) == 0);
    REQUIRE(::chmod(t.keys().c_str(), 0770) == 0);
    auto k = keys::load_or_create_relay_keys(t.data(), kNow);
    REQUIRE(!k);
    CHECK(k.error().kind == keys::KeyStoreErrorKind::InsecureDirectory);
  }
  SECTION("group-readable DataDirectory is tightened to 0700, as tor does") {
    REQUIRE(::chmod(t.data().c_str(), 0750) == 0);
    REQUIRE(keys::load_or_create_relay_keys(t.data(), kNow));
    CHECK(mode_of(t.data()) == 0700);
  }
  SECTION("owned by someone else") {
    if (::geteuid() != 0) return;  // only root can give a directory away
    REQUIRE(::chown(t.data().c_str(), 65534, 65534) == 0);
    auto k = keys::load_or_create_relay_keys(t.data(), kNow);
    REQUIRE(!k);
    CHECK(k.error().kind == keys::KeyStoreErrorKind::WrongOwner);
  }
  SECTION("a file where the directory should be") {
    fs::remove(t.data());
    std::ofstream(t.data()) << "x";
    auto k = keys::load_or_create_relay_keys(t.data(), kNow);
    REQUIRE(!k);
    CHECK(k.error().kind == keys::KeyStoreErrorKind::NotADirectory);
  }
}

TEST_CASE("relay keys: refuses a secret key file others can read", "[keys]") {
  TempDir t;
  (void)load_ok(t.data(), kNow);
  REQUIRE(::chmod((t.keys() / keys::kIdentitySecretFile).c_str(), 0644) == 0);
  auto k = keys::load_or_create_relay_keys(t.data(), kNow);
  REQUIRE(!k);
  CHECK(k.error().kind == keys::KeyStoreErrorKind::InsecureFile);
  CHECK(k.error().message().find(std::string(keys::kIdentitySecretFile)) != std::string::npos);
}

TEST_CASE("relay keys: the RSA-1024 identity is tor's PEM secret_id_key, made once and kept", "[keys]") {
  TempDir t;
  const auto first = load_ok(t.data(), kNow);
  const fs::path path = t.keys() / keys::kRsaIdentityFile;
  REQUIRE(fs::exists(path));
  CHECK(mode_of(path) == 0600);
  CHECK(first.rsa_identity().bits() == 1024);
  CHECK(first.rsa_fingerprint() == crypto::sha1(first.rsa_identity().public_key().der()));
  std::ifstream in(path, std::ios::binary);
  const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(pem.rfind("-----BEGIN RSA PRIVATE KEY-----\n", 0) == 0);
  REQUIRE(crypto::RsaPrivateKey::from_pem(pem));
  CHECK(crypto::RsaPrivateKey::from_pem(pem)->public_key().fingerprint() == first.rsa_fingerprint());

  const auto second = load_ok(t.data(), kNow + 40 * kDay);
  CHECK(second.rsa_fingerprint() == first.rsa_fingerprint());

  // Others may not read it; a damaged or wrong-sized one is an error, never replaced.
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  auto readable = keys::load_or_create_relay_keys(t.data(), kNow);
  REQUIRE(!readable);
  CHECK(readable.error().kind == keys::KeyStoreErrorKind::InsecureFile);
  const std::string big = crypto::RsaPrivateKey::generate(2048).to_pem();
  REQUIRE(!keys::write_raw_key_file(path, {reinterpret_cast<const std::uint8_t*>(big.data()), big.size()}));
  auto wrong = keys::load_or_create_relay_keys(t.data(), kNow);
  REQUIRE(!wrong);
  CHECK(wrong.error().kind == keys::KeyStoreErrorKind::BadKeyFile);
  const std::string junk = "not a key\n";
  REQUIRE(!keys::write_raw_key_file(path, {reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()}));
  CHECK(!keys::load_or_create_relay_keys(t.data(), kNow));
  CHECK(fs::file_size(path) == junk.size());
}

TEST_CASE("relay keys: an expiring signing key is replaced, the identity kept", "[keys]") {
  TempDir t;
  const auto first = load_ok(t.data(), kNow);

  // Within the renewal margin (1 day) of the 30-day expiry: replaced.
  const auto later = load_ok(t.data(), kNow + 29 * kDay + 3600);
  CHECK(later.identity() == first.identity());
  CHECK(seed_of(later.signing_key()) != seed_of(first.signing_key()));
  CHECK(later.signing_cert_expires_at() >= kNow + 29 * kDay + 3600 + 30 * kDay);
  auto cert = cell::decode_ed25519_cert(later.signing_cert_bytes());
  REQUIRE(cert);
  CHECK(cell::verify_ed25519_cert(*cert, later.identity(), kNow + 40 * kDay));

  // And the replacement is what the next start loads.
  const auto again = load_ok(t.data(), kNow + 30 * kDay);
  CHECK(seed_of(again.signing_key()) == seed_of(later.signing_key()));

  SECTION("long expired") {
    const auto much_later = load_ok(t.data(), kNow + 400 * kDay);
    CHECK(much_later.identity() == first.identity());
    CHECK(seed_of(much_later.signing_key()) != seed_of(later.signing_key()));
  }
}

TEST_CASE("relay keys: a corrupt signing certificate is regenerated, a mismatched identity refused", "[keys]") {
  TempDir t;
  const auto first = load_ok(t.data(), kNow);

  SECTION("signing cert garbage") {
    REQUIRE(keys::write_key_file(t.keys() / keys::kSigningCertFile, keys::KeyKind::Ed25519Seed, kNow,
                                 std::vector<std::uint8_t>(32, 7)) == std::nullopt);
    const auto k = load_ok(t.data(), kNow);
    CHECK(k.identity() == first.identity());
    CHECK(cell::decode_ed25519_cert(k.signing_cert_bytes()));
  }
  SECTION("public identity file of another key") {
    const auto other = crypto::Ed25519Keypair::generate();
    REQUIRE(keys::write_key_file(t.keys() / keys::kIdentityPublicFile, keys::KeyKind::Ed25519Public, kNow,
                                 other.public_key()) == std::nullopt);
    auto k = keys::load_or_create_relay_keys(t.data(), kNow);
    REQUIRE(!k);
    CHECK(k.error().kind == keys::KeyStoreErrorKind::Mismatch);
  }
}

TEST_CASE("relay keys: onion keys rotate after 28 days and the previous one is kept 7 days", "[keys]") {
  TempDir t;
  const auto first = load_ok(t.data(), kNow);
  CHECK(!first.previous_onion_key());
  const auto b0 = first.onion_key().key.public_key();

  const auto rotated = load_ok(t.data(), kNow + 28 * kDay);
  REQUIRE(rotated.previous_onion_key());
  CHECK(rotated.previous_onion_key()->key.public_key() == b0);
  CHECK(rotated.onion_key().key.public_key() != b0);
  CHECK(rotated.find_onion_key(b0) != nullptr);
  CHECK(rotated.find_onion_key(rotated.onion_key().key.public_key()) == &rotated.onion_key().key);
  CHECK(rotated.find_onion_key(crypto::X25519Public{}) == nullptr);
  CHECK(mode_of(t.keys() / keys::kOldOnionKeyFile) == 0600);

  const auto reloaded = load_ok(t.data(), kNow + 30 * kDay);
  REQUIRE(reloaded.previous_onion_key());
  CHECK(reloaded.onion_key().key.public_key() == rotated.onion_key().key.public_key());

  const auto after_grace = load_ok(t.data(), kNow + 35 * kDay);
  CHECK(!after_grace.previous_onion_key());
  CHECK(after_grace.find_onion_key(b0) == nullptr);
  CHECK(!fs::exists(t.keys() / keys::kOldOnionKeyFile));
}

TEST_CASE("key file format: header, kinds and lengths", "[keys]") {
  const std::vector<std::uint8_t> key(32, 0xab);
  const auto file = keys::encode_key_file(keys::KeyKind::X25519Secret, 42, key);
  const std::string header = "conflux-key-v1 x25519-secret 42\n";
  REQUIRE(file.size() == header.size() + 32);
  CHECK(std::string(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(header.size())) == header);

  auto back = keys::decode_key_file(file, keys::KeyKind::X25519Secret);
  REQUIRE(back);
  CHECK(back->created == 42);
  CHECK(back->payload == key);

  CHECK(!keys::decode_key_file(file, keys::KeyKind::Ed25519Seed));  // wrong kind
  CHECK(!keys::decode_key_file(std::span(file).first(file.size() - 1), keys::KeyKind::X25519Secret));
  auto bad_number = file;
  bad_number[header.size() - 2] = 'x';
  CHECK(!keys::decode_key_file(bad_number, keys::KeyKind::X25519Secret));
  auto bad_magic = file;
  bad_magic[0] = 'C';
  CHECK(!keys::decode_key_file(bad_magic, keys::KeyKind::X25519Secret));
  CHECK(keys::encode_key_file(keys::KeyKind::X25519Secret, 1, std::vector<std::uint8_t>(31)).empty());
}

TEST_CASE("fingerprint: hex and unpadded base64 as tor prints Ed25519 ids", "[keys]") {
  crypto::Ed25519Public id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(i);
  // base64 of 00 01 .. 1f is "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" (RFC 4648).
  CHECK(keys::identity_base64(id) == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8");
  CHECK(keys::identity_hex(id) == "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F");
  CHECK(keys::parse_identity("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8") == id);
  CHECK(keys::parse_identity("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=") == id);
  CHECK(keys::parse_identity("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f") == id);
  CHECK(!keys::parse_identity("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9"));  // nonzero padding bits
  CHECK(!keys::parse_identity("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh"));
  CHECK(!keys::parse_identity("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdH*8"));
  CHECK(!keys::parse_identity(""));
  const auto k = keys::RelayKeys::generate(kNow);
  CHECK(keys::parse_identity(keys::identity_base64(k.identity())) == k.identity());
}
