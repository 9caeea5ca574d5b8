// RSA private keys (crypto/rsa_private.hpp): generation, PKCS#1 DER and PEM
// round trips, and raw-digest signatures that RsaPublicKey accepts.
#include <string>

#include <catch2/catch.hpp>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/rsa_private.hpp"

using namespace conflux;
using conflux::crypto::RsaPrivateKey;

namespace {

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

const RsaPrivateKey& key1024() {
  static const RsaPrivateKey k = RsaPrivateKey::generate(1024);
  return k;
}

}  // namespace

TEST_CASE("rsa private: generated keys have the asked size and a usable public half") {
  const auto& k = key1024();
  CHECK(k.bits() == 1024);
  CHECK(k.public_key().bits() == 1024);
  auto again = crypto::RsaPublicKey::from_pkcs1_der(k.public_key().der());
  REQUIRE(again);
  CHECK(again->fingerprint() == k.public_key().fingerprint());
  CHECK(crypto::sha1(k.public_key().der()) == k.public_key().fingerprint());
  CHECK_THROWS(RsaPrivateKey::generate(512));
  CHECK_THROWS(RsaPrivateKey::generate(1025));
}

TEST_CASE("rsa private: SHA-1 and SHA-256 digests sign and verify, other digests and keys do not") {
  const auto& k = key1024();
  const auto d1 = crypto::sha1(bytes_of("tor document"));
  const auto d256 = crypto::sha256(bytes_of("tor document"));
  auto s1 = k.sign_digest(d1);
  auto s256 = k.sign_digest(d256);
  CHECK(s1.size() == 128);
  CHECK(k.public_key().verify_digest(d1, s1));
  CHECK(k.public_key().verify_digest(d256, s256));
  CHECK_FALSE(k.public_key().verify_digest(d256, s1));
  auto other = crypto::sha256(bytes_of("another document"));
  CHECK_FALSE(k.public_key().verify_digest(other, s256));
  s256[5] ^= 1;
  CHECK_FALSE(k.public_key().verify_digest(d256, s256));
  const auto k2 = RsaPrivateKey::generate(2048);
  CHECK_FALSE(k2.public_key().verify_digest(d1, s1));
  const auto s2 = k2.sign_digest(d1);
  CHECK(s2.size() == 256);
  CHECK(k2.public_key().verify_digest(d1, s2));
  // Any data up to bits/8 - 11 bytes (tor's onion-key-crosscert signs 52).
  const std::vector<std::uint8_t> crosscert(52, 7);
  CHECK(k.public_key().verify_digest(crosscert, k.sign_digest(crosscert)));
  CHECK_FALSE(k.public_key().verify_digest(d1, k.sign_digest(crosscert)));
  const std::vector<std::uint8_t> too_long(128 - 10, 1);
  CHECK_THROWS(k.sign_digest(too_long));
  CHECK_THROWS(k.sign_digest(std::vector<std::uint8_t>{}));
}

TEST_CASE("rsa private: DER and PEM round trips keep the key, damaged ones are refused") {
  const auto& k = key1024();
  const auto der = k.to_pkcs1_der();
  auto back = RsaPrivateKey::from_pkcs1_der(der);
  REQUIRE(back);
  CHECK(back->public_key().fingerprint() == k.public_key().fingerprint());
  const auto d = crypto::sha1(bytes_of("x"));
  CHECK(k.public_key().verify_digest(d, back->sign_digest(d)));

  const std::string pem = k.to_pem();
  CHECK(pem.rfind("-----BEGIN RSA PRIVATE KEY-----\n", 0) == 0);
  CHECK(pem.ends_with("-----END RSA PRIVATE KEY-----\n"));
  auto from_pem = RsaPrivateKey::from_pem(pem);
  REQUIRE(from_pem);
  CHECK(from_pem->to_pkcs1_der() == der);

  auto cut = der;
  cut.pop_back();
  CHECK_FALSE(RsaPrivateKey::from_pkcs1_der(cut));
  auto extra = der;
  extra.push_back(0);
  CHECK_FALSE(RsaPrivateKey::from_pkcs1_der(extra));
  auto flipped = der;
  flipped[der.size() / 2] ^= 0x40;  // inside a prime or exponent: no longer one key
  CHECK_FALSE(RsaPrivateKey::from_pkcs1_der(flipped));
  CHECK_FALSE(RsaPrivateKey::from_pkcs1_der(k.public_key().der()));
  CHECK_FALSE(RsaPrivateKey::from_pem(crypto::rsa_public_pem(k.public_key())));
  CHECK_FALSE(RsaPrivateKey::from_pem("-----BEGIN RSA PRIVATE KEY-----\n!!!!\n-----END RSA PRIVATE KEY-----\n"));
  CHECK_FALSE(RsaPrivateKey::from_pem(""));
}

TEST_CASE("rsa private: public PEM is tor's RSA PUBLIC KEY object") {
  const auto pem = crypto::rsa_public_pem(key1024().public_key());
  CHECK(pem.rfind("-----BEGIN RSA PUBLIC KEY-----\n", 0) == 0);
  CHECK(pem.ends_with("-----END RSA PUBLIC KEY-----\n"));
  for (std::size_t pos = 0, next; (next = pem.find('\n', pos)) != std::string::npos; pos = next + 1)
    CHECK(next - pos <= 64);
}
