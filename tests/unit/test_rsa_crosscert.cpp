// Tor's RSA->Ed25519 cross-certificate (cert-spec 2.3, CERTS type 7): a real
// one from a chutney relay (cert_test_vectors.hpp), and ones signed here with
// fresh RSA keys.
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "conflux/cell/cert_type.hpp"
#include "conflux/cell/rsa_crosscert.hpp"
#include "conflux/crypto/digest.hpp"
#include "cert_test_vectors.hpp"
#include "test_support.hpp"

using namespace conflux;
using namespace conflux::cell;
using conflux::test::hex;
using conflux::test::unhex;
using namespace conflux::test::certs;

namespace {

// --- OpenSSL helpers for the RSA tests (only the tests touch OpenSSL) ------
struct PkeyFree {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

PkeyPtr rsa_keygen(unsigned bits) {
  PkeyPtr k(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(bits)));
  REQUIRE(k);
  return k;
}

template <class F>
std::vector<std::uint8_t> der(EVP_PKEY* k, F i2d) {
  int n = i2d(k, nullptr);
  REQUIRE(n > 0);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  unsigned char* p = out.data();
  REQUIRE(i2d(k, &p) == n);
  return out;
}
std::vector<std::uint8_t> private_der(EVP_PKEY* k) {  // PKCS#1 RSAPrivateKey for RSA keys
  return der(k, [](EVP_PKEY* key, unsigned char** p) { return i2d_PrivateKey(key, p); });
}
std::vector<std::uint8_t> pkcs1_public_der(EVP_PKEY* k) {
  return der(k, [](EVP_PKEY* key, unsigned char** p) { return i2d_PublicKey(key, p); });
}
std::vector<std::uint8_t> spki_der(EVP_PKEY* k) {
  return der(k, [](EVP_PKEY* key, unsigned char** p) { return i2d_PUBKEY(key, p); });
}

// An RSA signature with a DigestInfo(SHA-256) wrapper: what a naive
// RSA_sign / EVP_DigestSign would produce, and what tor would not accept.
std::vector<std::uint8_t> digestinfo_signature(EVP_PKEY* k, std::span<const std::uint8_t> digest) {
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, k, nullptr),
                                                                  &EVP_PKEY_CTX_free);
  REQUIRE(ctx);
  REQUIRE(EVP_PKEY_sign_init(ctx.get()) == 1);
  REQUIRE(EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) == 1);
  REQUIRE(EVP_PKEY_CTX_set_signature_md(ctx.get(), EVP_sha256()) == 1);
  std::vector<std::uint8_t> sig(static_cast<std::size_t>(EVP_PKEY_get_size(k)));
  std::size_t len = sig.size();
  REQUIRE(EVP_PKEY_sign(ctx.get(), sig.data(), &len, digest.data(), digest.size()) == 1);
  sig.resize(len);
  return sig;
}

}  // namespace

// ============================================================================
// RSA->Ed25519 cross-certificates
// ============================================================================

TEST_CASE("a real type-7 cross-certificate decodes, re-encodes and verifies", "[cert][rsa]") {
  const auto bytes = unhex(kChutneyType7);
  REQUIRE(bytes.size() == 32 + 4 + 1 + 128);
  auto cc = decode_rsa_crosscert(bytes);
  REQUIRE(cc.has_value());
  CHECK(cc->ed25519_key == key32(kChutneyIdentity));
  CHECK(cc->expiration_hours == 0x0006DA3Au);
  CHECK(cc->signature.size() == 128);
  CHECK(hex(std::span(cc->signature).first(4)) == "5cf6006f");
  auto e = encode_rsa_crosscert(*cc);
  REQUIRE(e.has_value());
  CHECK(*e == bytes);

  const auto rsa = unhex(kChutneyRsaPublic);
  auto v = verify_rsa_crosscert(*cc, rsa, kChutneyNow);
  REQUIRE(v.has_value());
  CHECK(*v == key32(kChutneyIdentity));  // the identity the type-4 cert carries in extension 4
  CHECK(*v == *decode_ok(kChutneyType4).signed_with_key());

  // One changed modulus byte: a different key, and the signature fails.
  auto wrong = rsa;
  wrong[100] ^= 0x01;
  CHECK(verify_rsa_crosscert(*cc, wrong, kChutneyNow).error() == CertError::BadSignature);
  // Expiry is to the second.
  CHECK(verify_rsa_crosscert(*cc, rsa, 0x0006DA3Aull * 3600).has_value());
  CHECK(verify_rsa_crosscert(*cc, rsa, 0x0006DA3Aull * 3600 + 1).error() == CertError::Expired);
  // A changed subject key breaks the signature.
  RsaCrosscert t = *cc;
  t.ed25519_key[0] ^= 1;
  CHECK(verify_rsa_crosscert(t, rsa, kChutneyNow).error() == CertError::BadSignature);
  t = *cc;
  t.expiration_hours += 1;
  CHECK(verify_rsa_crosscert(t, rsa, kChutneyNow).error() == CertError::BadSignature);
  t = *cc;
  t.signature[64] ^= 0x10;
  CHECK(verify_rsa_crosscert(t, rsa, kChutneyNow).error() == CertError::BadSignature);
  // Not a key at all.
  CHECK(verify_rsa_crosscert(*cc, std::vector<std::uint8_t>{0x30, 0x00}, kChutneyNow).error() ==
        CertError::BadRsaKey);
  CHECK(verify_rsa_crosscert(*cc, {}, kChutneyNow).error() == CertError::BadRsaKey);
  auto trailing = rsa;
  trailing.push_back(0);
  CHECK(verify_rsa_crosscert(*cc, trailing, kChutneyNow).error() == CertError::BadRsaKey);
}

TEST_CASE("the cross-certificate digest covers prefix, key and expiration only", "[cert][rsa]") {
  crypto::Ed25519Public k{};
  k.fill(0xAB);
  std::string msg = "Tor TLS RSA/Ed25519 cross-certificate";
  std::vector<std::uint8_t> m(msg.begin(), msg.end());
  m.insert(m.end(), k.begin(), k.end());
  for (std::uint8_t b : {std::uint8_t{0x00}, std::uint8_t{0x07}, std::uint8_t{0x5B}, std::uint8_t{0xCD}})
    m.push_back(b);
  CHECK(rsa_crosscert_digest(k, 0x00075BCDu) == crypto::sha256(m));
}

TEST_CASE("sign then verify a cross-certificate with a fresh 1024-bit RSA key", "[cert][rsa]") {
  PkeyPtr rsa = rsa_keygen(1024);
  const auto priv = private_der(rsa.get());
  const auto pub1 = pkcs1_public_der(rsa.get());
  const auto spki = spki_der(rsa.get());
  const auto ed = keypair(0x5A).public_key();

  auto cc = sign_rsa_crosscert(ed, 480000, priv);
  REQUIRE(cc.has_value());
  CHECK(cc->signature.size() == 128);
  auto e = encode_rsa_crosscert(*cc);
  REQUIRE(e.has_value());
  REQUIRE(e->size() == 165);
  CHECK(hex(std::span(*e).first(37)) == hex(ed) + "0007530080");  // key | 480000 | SIGLEN 0x80
  auto d = decode_rsa_crosscert(*e);
  REQUIRE(d.has_value());
  CHECK(*d == *cc);

  CHECK(verify_rsa_crosscert(*d, pub1, 1000).value() == ed);
  CHECK(verify_rsa_crosscert(*d, spki, 1000).value() == ed);
  CHECK(verify_rsa_crosscert(*d, pub1, 480000ull * 3600 + 1).error() == CertError::Expired);

  // Another RSA key did not sign it.
  PkeyPtr other = rsa_keygen(1024);
  CHECK(verify_rsa_crosscert(*d, pkcs1_public_der(other.get()), 1000).error() == CertError::BadSignature);

  SECTION("a DigestInfo-wrapped signature of the same digest is not tor's format") {
    RsaCrosscert t = *cc;
    t.signature = digestinfo_signature(rsa.get(), rsa_crosscert_digest(ed, 480000));
    REQUIRE(t.signature.size() == 128);
    CHECK(verify_rsa_crosscert(t, pub1, 1000).error() == CertError::BadSignature);
  }
  SECTION("SIGLEN must be the modulus size") {
    RsaCrosscert t = *cc;
    t.signature.pop_back();
    CHECK(verify_rsa_crosscert(t, pub1, 1000).error() == CertError::BadSignature);
    t.signature.clear();
    CHECK(verify_rsa_crosscert(t, pub1, 1000).error() == CertError::BadSignature);
  }
  SECTION("a public key is no private key") {
    CHECK(sign_rsa_crosscert(ed, 1, pub1).error() == CertError::BadRsaKey);
  }
}

TEST_CASE("an RSA key too large for a one-byte SIGLEN cannot sign a cross-certificate", "[cert][rsa]") {
  PkeyPtr rsa = rsa_keygen(2048);
  CHECK(sign_rsa_crosscert(keypair(1).public_key(), 1, private_der(rsa.get())).error() == CertError::TooLarge);
}

TEST_CASE("cross-certificate framing errors", "[cert][rsa]") {
  const auto bytes = unhex(kChutneyType7);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    auto d = decode_rsa_crosscert(std::span(bytes).first(n));
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::Truncated);
  }
  auto longer = bytes;
  longer.push_back(0);
  CHECK(decode_rsa_crosscert(longer).error() == DecodeError::TrailingBytes);

  // SIGLEN 0 is well formed (and never verifies).
  auto empty = decode_rsa_crosscert(unhex(std::string(kChutneyIdentity) + "00000001" "00"));
  REQUIRE(empty.has_value());
  CHECK(empty->signature.empty());
  CHECK(encode_rsa_crosscert(*empty).value() == unhex(std::string(kChutneyIdentity) + "00000001" "00"));

  RsaCrosscert big;
  big.signature.resize(256);
  CHECK(encode_rsa_crosscert(big).error() == CertError::TooLarge);
  big.signature.resize(255);
  CHECK(encode_rsa_crosscert(big).value().size() == 37 + 255);
}
