// A relay named by its RSA fingerprint (tor's Bridge, DirAuthority and
// FallbackDir lines): its CERTS cell's type-2 certificate (self-signed
// X.509, the RSA identity) and type-7 cross-certificate (that key's
// signature of the Ed25519 identity) give the Ed25519 identity the rest of
// the link handshake checks. Certificates are made here with fresh keys, as
// a tor relay makes them.
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>

#include <catch2/catch.hpp>

#include "conflux/cell/rsa_crosscert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/x509_rsa_identity.hpp"
#include "conflux/proto/link_rsa_identity.hpp"

using namespace conflux;

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const noexcept { X509_free(x); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

constexpr std::uint64_t kNow = 1795654010;  // 2026-11-26

PkeyPtr rsa1024() {
  PkeyPtr k(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{1024}));
  REQUIRE(k);
  return k;
}

// An X.509 certificate for `subject`'s key, signed by `signer` (tor's type 2
// when they are the same key).
std::vector<std::uint8_t> x509_der(EVP_PKEY* subject, EVP_PKEY* signer) {
  std::unique_ptr<X509, X509Free> x(X509_new());
  REQUIRE(x);
  REQUIRE(X509_set_version(x.get(), 2) == 1);
  REQUIRE(ASN1_INTEGER_set(X509_get_serialNumber(x.get()), 7) == 1);
  REQUIRE(X509_gmtime_adj(X509_getm_notBefore(x.get()), 0) != nullptr);
  REQUIRE(X509_gmtime_adj(X509_getm_notAfter(x.get()), 86400) != nullptr);
  X509_NAME* name = X509_get_subject_name(x.get());
  REQUIRE(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>("www.example.net"), -1, -1, 0) == 1);
  REQUIRE(X509_set_issuer_name(x.get(), name) == 1);
  REQUIRE(X509_set_pubkey(x.get(), subject) == 1);
  REQUIRE(X509_sign(x.get(), signer, EVP_sha256()) > 0);
  const int n = i2d_X509(x.get(), nullptr);
  REQUIRE(n > 0);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  unsigned char* p = out.data();
  REQUIRE(i2d_X509(x.get(), &p) == n);
  return out;
}

std::vector<std::uint8_t> key_der(EVP_PKEY* k, bool is_private) {
  const int n = is_private ? i2d_PrivateKey(k, nullptr) : i2d_PublicKey(k, nullptr);
  REQUIRE(n > 0);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  unsigned char* p = out.data();
  REQUIRE((is_private ? i2d_PrivateKey(k, &p) : i2d_PublicKey(k, &p)) == n);
  return out;
}

crypto::RsaFingerprint fingerprint(EVP_PKEY* k) { return crypto::sha1(key_der(k, false)); }

std::vector<std::uint8_t> crosscert(const crypto::Ed25519Public& ed, EVP_PKEY* rsa, std::uint64_t valid_until) {
  auto cc = cell::sign_rsa_crosscert(ed, static_cast<std::uint32_t>(valid_until / 3600), key_der(rsa, true));
  REQUIRE(cc);
  auto bytes = cell::encode_rsa_crosscert(*cc);
  REQUIRE(bytes);
  return *bytes;
}

struct Relay {
  PkeyPtr rsa = rsa1024();
  crypto::Ed25519Public ed{};
  cell::CertsCell certs;
  Relay() {
    ed.fill(0x42);
    certs.certs = {{cell::certs_type::kRsaIdentity, x509_der(rsa.get(), rsa.get())},
                   {cell::certs_type::kRsaEdCrossCert, crosscert(ed, rsa.get(), kNow + 86400)}};
  }
};

}  // namespace

TEST_CASE("RSA identity: the type-2 certificate's key, only if it signed itself", "[link][rsa]") {
  Relay r;
  auto key = crypto::rsa_identity_from_x509(r.certs.certs[0].body);
  REQUIRE(key);
  CHECK(key->fingerprint() == fingerprint(r.rsa.get()));
  CHECK(key->bits() == 1024);
  auto other = rsa1024();
  CHECK_FALSE(crypto::rsa_identity_from_x509(x509_der(r.rsa.get(), other.get())));  // not self-signed
  auto tampered = r.certs.certs[0].body;
  tampered[tampered.size() / 2] ^= 0x01;
  CHECK_FALSE(crypto::rsa_identity_from_x509(tampered));
  auto trailing = r.certs.certs[0].body;
  trailing.push_back(0);
  CHECK_FALSE(crypto::rsa_identity_from_x509(trailing));
  CHECK_FALSE(crypto::rsa_identity_from_x509({}));
}

TEST_CASE("RSA identity: the fingerprint we meant gives the cross-certified Ed25519 identity", "[link][rsa]") {
  Relay r;
  auto ed = proto::ed25519_identity_for_rsa(r.certs, fingerprint(r.rsa.get()), kNow);
  REQUIRE(ed);
  CHECK(*ed == r.ed);
}

TEST_CASE("RSA identity: every way it can be wrong", "[link][rsa]") {
  Relay r;
  const auto fp = fingerprint(r.rsa.get());
  using proto::LinkFailure;
  auto failure = [&](const cell::CertsCell& c, const crypto::RsaFingerprint& want, std::uint64_t now) {
    auto got = proto::ed25519_identity_for_rsa(c, want, now);
    REQUIRE_FALSE(got);
    return got.error();
  };
  auto other = rsa1024();
  CHECK(failure(r.certs, fingerprint(other.get()), kNow) == LinkFailure::IdentityMismatch);
  CHECK(failure(r.certs, fp, kNow + 3 * 86400) == LinkFailure::ExpiredCert);
  cell::CertsCell no_cross{{r.certs.certs[0]}};
  CHECK(failure(no_cross, fp, kNow) == LinkFailure::MissingCert);
  cell::CertsCell no_id{{r.certs.certs[1]}};
  CHECK(failure(no_id, fp, kNow) == LinkFailure::MissingCert);
  // A cross-certificate by another RSA key: a relay cannot borrow an identity.
  cell::CertsCell borrowed = r.certs;
  borrowed.certs[1].body = crosscert(r.ed, other.get(), kNow + 86400);
  CHECK(failure(borrowed, fp, kNow) == LinkFailure::BadCert);
  cell::CertsCell garbled = r.certs;
  garbled.certs[1].body.resize(10);
  CHECK(failure(garbled, fp, kNow) == LinkFailure::BadCert);
}
