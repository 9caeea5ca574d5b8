// Tor's Ed25519 certificate (cert-spec 2.1). The RSA->Ed25519
// cross-certificate (cert-spec 2.3) is in test_rsa_crosscert.cpp.
//
// Real certificates, which prove byte compatibility with tor:
//  - a type-4, a type-5 and a type-7 certificate from one relay's CERTS cell
//    in a chutney network, with that relay's RSA identity key (the vectors in
//    Arti's crates/tor-cert/tests/testvec_certs.rs);
//  - the identity-ed25519 (type 4) and ntor-onion-key-crosscert (type 10)
//    certificates of the public relay "destiny", published 2015-08-22 (stem's
//    test/unit/descriptor/data/server_descriptor_with_ed25519, base64 there).

#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "conflux/cell/cert_type.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "cert_test_vectors.hpp"
#include "test_support.hpp"

using namespace conflux;
using namespace conflux::cell;
using conflux::test::hex;
using conflux::test::unhex;
using namespace conflux::test::certs;

namespace {

// --- relay "destiny", 2015 ---------------------------------------------------
const char* const kDestinyMasterKey = "67a6b551a6d22be376d63e8d9f233a37b8ecb07e832baf2a6ba5b9b81e10a464";
constexpr std::uint64_t kDestinyPublished = 1440256905;  // 2015-08-22 15:21:45 UTC
const char* const kDestinyType4 =
    "01" "04" "00061b59" "01"
    "a5b61a80440f522363703a7fa18da81125e40f377c3d996bdba91a47b9d491aa"
    "01" "0020" "04" "00"
    "67a6b551a6d22be376d63e8d9f233a37b8ecb07e832baf2a6ba5b9b81e10a464"
    "c68ed3ae0b3fed4a36e2ef95cf2c186f254e3c7583893710bb966201d8594e6b"
    "0226bb9e5e2051f0593847c701f2844bb97777addd0448c45fdf0b8e1769db0e";
const char* const kDestinyNtorCrossCert =
    "01" "0a" "00061b70" "01"
    "67a6b551a6d22be376d63e8d9f233a37b8ecb07e832baf2a6ba5b9b81e10a464"
    "00"
    "78f820faa6fa8b31bdb29fbd11de674b9a82114f66befa5153d8c2e2b837e55c"
    "5bbe72ab6bee152b054c226a6a63c1dcf21d4b3eab6f1e14e05de2ae8ced2c04";


std::vector<std::uint8_t> encode_ok(const Ed25519Cert& c) {
  auto e = encode_ed25519_cert(c);
  REQUIRE(e.has_value());
  return *e;
}

Ed25519Cert sign_ok(const Ed25519CertBody& body, const crypto::Ed25519Keypair& k,
                    IncludeSigningKey inc = IncludeSigningKey::No) {
  auto c = sign_ed25519_cert(body, k, inc);
  REQUIRE(c.has_value());
  return *c;
}

Ed25519CertBody body_of(CertType t, CertKeyType kt, std::uint8_t key_fill, std::uint32_t exp = 500000) {
  Ed25519CertBody b;
  b.cert_type = t;
  b.key_type = kt;
  b.expiration_hours = exp;
  b.certified_key.fill(key_fill);
  return b;
}

}  // namespace

// ============================================================================
// Ed25519 certificates: real ones
// ============================================================================

TEST_CASE("a real type-4 certificate decodes field by field and re-encodes byte for byte",
          "[cert][ed25519]") {
  const auto bytes = unhex(kChutneyType4);
  REQUIRE(bytes.size() == 104 + 4 + 32);
  Ed25519Cert c = decode_ok(kChutneyType4);
  CHECK(c.body.cert_type == CertType::IdentityVSigning);
  CHECK(c.body.expiration_hours == 0x0006CC2Au);
  CHECK(c.expires_at() == 0x0006CC2Aull * 3600);
  CHECK(c.body.key_type == CertKeyType::Ed25519);
  CHECK(c.certified_ed25519_key() == key32(kChutneySigning));
  REQUIRE(c.body.extensions.size() == 1);
  CHECK(c.body.extensions[0].type == kCertExtSignedWithEd25519Key);
  CHECK(c.body.extensions[0].flags == 0);
  CHECK(c.signed_with_key() == key32(kChutneyIdentity));
  CHECK(hex(c.signature) ==
        "ff1a5203fa27f86ef7528d89a0845d2520166e340754ffea2aae0f612b7ce5da"
        "094a0236cdac45034b0b6842c18e7f6b51b93a3cf7e60663b8ad061c30a62602");
  CHECK(encode_ok(c) == bytes);
  auto body = encode_ed25519_cert_body(c.body);
  REQUIRE(body.has_value());
  CHECK(*body == std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 64));
}

TEST_CASE("a real type-4 certificate verifies with the key in extension 4", "[cert][ed25519]") {
  Ed25519Cert c = decode_ok(kChutneyType4);
  CHECK(check_ed25519_cert_profile(c) == std::nullopt);
  auto v = verify_ed25519_cert(c, std::nullopt, kChutneyNow);
  REQUIRE(v.has_value());
  CHECK(*v == key32(kChutneyIdentity));
  // Given the identity explicitly, the same.
  CHECK(verify_ed25519_cert(c, key32(kChutneyIdentity), kChutneyNow).has_value());
  // Given another key: the extension must match the signer.
  auto other = verify_ed25519_cert(c, key32(kChutneySigning), kChutneyNow);
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error() == CertError::SigningKeyMismatch);
}

TEST_CASE("a real type-5 certificate decodes, re-encodes and verifies with the signing key",
          "[cert][ed25519]") {
  const auto bytes = unhex(kChutneyType5);
  REQUIRE(bytes.size() == 104);
  Ed25519Cert c = decode_ok(kChutneyType5);
  CHECK(c.body.cert_type == CertType::SigningVTlsCert);
  CHECK(c.body.expiration_hours == 0x0006C98Au);
  CHECK(c.body.key_type == CertKeyType::Sha256OfX509);
  CHECK(hex(c.body.certified_key) == hex(unhex(kChutneyTlsDigest)));
  CHECK(c.body.extensions.empty());
  CHECK(c.signed_with_key() == std::nullopt);
  CHECK(c.certified_ed25519_key() == std::nullopt);
  CHECK(encode_ok(c) == bytes);

  // Signed by the key the type-4 certificate certifies.
  const auto signing = decode_ok(kChutneyType4).certified_ed25519_key();
  REQUIRE(signing.has_value());
  auto v = verify_ed25519_cert(c, *signing, kChutneyNow);
  REQUIRE(v.has_value());
  CHECK(*v == key32(kChutneySigning));
  // No extension 4 and no key given: nothing to check against.
  auto none = verify_ed25519_cert(c, std::nullopt, kChutneyNow);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error() == CertError::NoSigningKey);
  // The identity key did not sign it.
  auto wrong = verify_ed25519_cert(c, key32(kChutneyIdentity), kChutneyNow);
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error() == CertError::BadSignature);
}

TEST_CASE("expiry is checked against the caller's clock to the second", "[cert][ed25519]") {
  Ed25519Cert c = decode_ok(kChutneyType5);
  const std::uint64_t end = 0x0006C98Aull * 3600;  // 1601316000
  CHECK(verify_ed25519_cert(c, key32(kChutneySigning), end).has_value());  // valid through the hour mark
  auto late = verify_ed25519_cert(c, key32(kChutneySigning), end + 1);
  REQUIRE_FALSE(late.has_value());
  CHECK(late.error() == CertError::Expired);
  CHECK(verify_ed25519_cert(c, key32(kChutneySigning), 0).has_value());
}

TEST_CASE("a public relay's identity-ed25519 certificate (2015) decodes and verifies", "[cert][ed25519]") {
  const auto bytes = unhex(kDestinyType4);
  REQUIRE(bytes.size() == 140);
  Ed25519Cert c = decode_ok(kDestinyType4);
  CHECK(c.body.cert_type == CertType::IdentityVSigning);
  CHECK(c.expires_at() == 1440781200u);  // 0x00061b59 hours
  CHECK(c.signed_with_key() == key32(kDestinyMasterKey));  // = its master-key-ed25519 line
  CHECK(encode_ok(c) == bytes);
  auto v = verify_ed25519_cert(c, std::nullopt, kDestinyPublished);
  REQUIRE(v.has_value());
  CHECK(*v == key32(kDestinyMasterKey));
  CHECK(verify_ed25519_cert(c, std::nullopt, 1440781201).error() == CertError::Expired);
}

TEST_CASE("a real type-10 ntor cross-certificate decodes and re-encodes", "[cert][ed25519]") {
  // Signed by the ntor onion key converted to Ed25519; checking it needs that
  // conversion, which belongs to the descriptor code, so only the framing here.
  const auto bytes = unhex(kDestinyNtorCrossCert);
  Ed25519Cert c = decode_ok(kDestinyNtorCrossCert);
  CHECK(c.body.cert_type == CertType::NtorOnionCrossCert);
  CHECK(c.certified_ed25519_key() == key32(kDestinyMasterKey));
  CHECK(c.body.extensions.empty());
  CHECK(check_ed25519_cert_profile(c) == std::nullopt);
  CHECK(encode_ok(c) == bytes);
}

// ============================================================================
// Ed25519 certificates: signing and the rules
// ============================================================================

TEST_CASE("sign then verify: type 4 with extension 4, types 5 and 6", "[cert][ed25519]") {
  const auto identity = keypair(0x11);
  const auto signing = keypair(0x22);
  const auto auth = keypair(0x33);

  Ed25519CertBody b4 = body_of(CertType::IdentityVSigning, CertKeyType::Ed25519, 0);
  b4.certified_key = signing.public_key();
  Ed25519Cert c4 = sign_ok(b4, identity, IncludeSigningKey::Yes);
  REQUIRE(c4.body.extensions.size() == 1);
  CHECK(c4.signed_with_key() == identity.public_key());

  // The exact layout tor produces: the extension header is 00 20 04 00.
  const auto e4 = encode_ok(c4);
  REQUIRE(e4.size() == 140);
  CHECK(hex(std::span(e4).first(7)) == "01" "04" "0007a120" "01");  // 500000 hours, Ed25519 key
  CHECK(hex(std::span(e4).subspan(7, 32)) == hex(signing.public_key()));
  CHECK(hex(std::span(e4).subspan(39, 5)) == "0100200400");
  CHECK(hex(std::span(e4).subspan(44, 32)) == hex(identity.public_key()));
  // The signature covers the first N-64 bytes, with no prefix.
  CHECK(crypto::ed25519_verify(identity.public_key(), std::span(e4).first(76), c4.signature));

  auto d4 = decode_ed25519_cert(e4);
  REQUIRE(d4.has_value());
  CHECK(*d4 == c4);
  auto v4 = verify_ed25519_cert(*d4, std::nullopt, 1000);
  REQUIRE(v4.has_value());
  CHECK(*v4 == identity.public_key());

  Ed25519CertBody b5 = body_of(CertType::SigningVTlsCert, CertKeyType::Sha256OfX509, 0);
  const std::vector<std::uint8_t> fake_tls_cert{0x30, 0x82, 0x01, 0x00};
  b5.certified_key = crypto::sha256(fake_tls_cert);
  Ed25519Cert c5 = sign_ok(b5, signing);
  auto d5 = decode_ed25519_cert(encode_ok(c5));
  REQUIRE(d5.has_value());
  CHECK(*d5 == c5);
  CHECK(verify_ed25519_cert(*d5, signing.public_key(), 1000).has_value());

  Ed25519CertBody b6 = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 0);
  b6.certified_key = auth.public_key();
  Ed25519Cert c6 = sign_ok(b6, signing);
  CHECK(verify_ed25519_cert(c6, signing.public_key(), 1000).has_value());
  CHECK(verify_ed25519_cert(c6, identity.public_key(), 1000).error() == CertError::BadSignature);
}

TEST_CASE("sign keeps a matching extension 4 and refuses a different one", "[cert][ed25519]") {
  const auto k = keypair(0x44);
  Ed25519CertBody b = body_of(CertType::IdentityVSigning, CertKeyType::Ed25519, 7);
  b.extensions.push_back({kCertExtSignedWithEd25519Key, 0,
                          std::vector<std::uint8_t>(k.public_key().begin(), k.public_key().end())});
  Ed25519Cert c = sign_ok(b, k, IncludeSigningKey::Yes);
  CHECK(c.body.extensions.size() == 1);
  auto other = sign_ed25519_cert(b, keypair(0x45), IncludeSigningKey::Yes);
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error() == CertError::SigningKeyMismatch);
}

TEST_CASE("a signature over the old spec's prefixed message is rejected", "[cert][ed25519]") {
  // An early cert-spec said to prefix "Tor node signing key certificate v1";
  // tor never did. A certificate signed that way must not verify.
  const auto k = keypair(0x55);
  Ed25519Cert c = sign_ok(body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 9), k);
  auto body = encode_ed25519_cert_body(c.body);
  REQUIRE(body.has_value());
  const std::string prefix = "Tor node signing key certificate v1";
  std::vector<std::uint8_t> msg(prefix.begin(), prefix.end());
  msg.insert(msg.end(), body->begin(), body->end());
  c.signature = k.sign(msg);
  CHECK(verify_ed25519_cert(c, k.public_key(), 0).error() == CertError::BadSignature);
}

TEST_CASE("a tampered certificate is rejected", "[cert][ed25519]") {
  const auto bytes = unhex(kChutneyType4);
  SECTION("signature bit") {
    auto b = bytes;
    b.back() ^= 0x01;
    auto c = decode_ed25519_cert(b);
    REQUIRE(c.has_value());  // still well formed
    CHECK(verify_ed25519_cert(*c, std::nullopt, kChutneyNow).error() == CertError::BadSignature);
  }
  SECTION("expiration pushed later") {
    auto b = bytes;
    b[5] ^= 0x01;
    auto c = decode_ed25519_cert(b);
    REQUIRE(c.has_value());
    CHECK(verify_ed25519_cert(*c, std::nullopt, kChutneyNow).error() == CertError::BadSignature);
  }
  SECTION("certified key") {
    auto b = bytes;
    b[7] ^= 0x80;
    auto c = decode_ed25519_cert(b);
    REQUIRE(c.has_value());
    CHECK(verify_ed25519_cert(*c, std::nullopt, kChutneyNow).error() == CertError::BadSignature);
  }
}

TEST_CASE("an expired signed certificate is rejected", "[cert][ed25519]") {
  const auto k = keypair(0x66);
  Ed25519Cert c = sign_ok(body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1, 10), k);
  CHECK(verify_ed25519_cert(c, k.public_key(), 36000).has_value());
  CHECK(verify_ed25519_cert(c, k.public_key(), 36001).error() == CertError::Expired);
}

TEST_CASE("a type-4 certificate without extension 4 is rejected", "[cert][ed25519]") {
  const auto identity = keypair(0x77);
  Ed25519Cert c = sign_ok(body_of(CertType::IdentityVSigning, CertKeyType::Ed25519, 2), identity);
  REQUIRE(c.body.extensions.empty());
  // Well formed, correctly signed, yet useless: the identity is unknown.
  REQUIRE(decode_ed25519_cert(encode_ok(c)).has_value());
  CHECK(check_ed25519_cert_profile(c) == CertError::MissingSigningKeyExtension);
  CHECK(verify_ed25519_cert(c, identity.public_key(), 0).error() == CertError::MissingSigningKeyExtension);
  CHECK(verify_ed25519_cert(c, std::nullopt, 0).error() == CertError::MissingSigningKeyExtension);
}

TEST_CASE("certified-key types must fit the certificate type", "[cert][ed25519]") {
  const auto k = keypair(0x78);
  struct Case {
    CertType type;
    CertKeyType key_type;
  };
  for (Case bad : {Case{CertType::IdentityVSigning, CertKeyType::Sha256OfX509},
                   Case{CertType::SigningVTlsCert, CertKeyType::Ed25519},
                   Case{CertType::SigningVTlsCert, CertKeyType::Sha256OfRsa},
                   Case{CertType::SigningVAuth, CertKeyType::Sha256OfX509}}) {
    Ed25519Cert c = sign_ok(body_of(bad.type, bad.key_type, 3), k, IncludeSigningKey::Yes);
    CHECK(check_ed25519_cert_profile(c) == CertError::WrongKeyType);
    CHECK(verify_ed25519_cert(c, std::nullopt, 0).error() == CertError::WrongKeyType);
  }
}

TEST_CASE("unknown extensions: kept without AFFECTS_VALIDATION, fatal with it", "[cert][ed25519]") {
  // Hand-written: a type-6 certificate with one unknown extension (type 0x99,
  // 3 bytes of data), then the signature.
  const auto k = keypair(0x79);
  const std::string head =
      "01" "06" "000186a0" "01"
      "0101010101010101010101010101010101010101010101010101010101010101"
      "01";
  SECTION("flags 0: accepted, kept, round-tripped, verified") {
    Ed25519CertBody b = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1, 100000);
    b.extensions.push_back({0x99, 0x00, {0xAA, 0xBB, 0xCC}});
    Ed25519Cert c = sign_ok(b, k);
    const auto e = encode_ok(c);
    CHECK(hex(std::span(e).first(e.size() - 64)) == head + "0003" "99" "00" "aabbcc");
    auto d = decode_ed25519_cert(e);
    REQUIRE(d.has_value());
    REQUIRE(d->body.extensions.size() == 1);
    CHECK(d->body.extensions[0] == CertExtension{0x99, 0x00, {0xAA, 0xBB, 0xCC}});
    CHECK(encode_ok(*d) == e);
    CHECK(verify_ed25519_cert(*d, k.public_key(), 0).has_value());
  }
  SECTION("other flag bits alone do not make it critical") {
    Ed25519CertBody b = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1, 100000);
    b.extensions.push_back({0x99, 0xFE, {}});
    Ed25519Cert c = sign_ok(b, k);
    auto d = decode_ed25519_cert(encode_ok(c));
    REQUIRE(d.has_value());
    CHECK(verify_ed25519_cert(*d, k.public_key(), 0).has_value());
  }
  SECTION("AFFECTS_VALIDATION: rejected by the decoder and by verify") {
    Ed25519CertBody b = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1, 100000);
    b.extensions.push_back({0x99, kCertExtFlagAffectsValidation, {0xAA, 0xBB, 0xCC}});
    Ed25519Cert c = sign_ok(b, k);  // correctly signed
    const auto e = encode_ok(c);
    CHECK(hex(std::span(e).first(e.size() - 64)) == head + "0003" "99" "01" "aabbcc");
    auto d = decode_ed25519_cert(e);
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::BadValue);
    CHECK(verify_ed25519_cert(c, k.public_key(), 0).error() == CertError::UnknownCriticalExtension);
  }
  SECTION("extension 4 with AFFECTS_VALIDATION is understood, so fine") {
    Ed25519CertBody b = body_of(CertType::IdentityVSigning, CertKeyType::Ed25519, 1, 100000);
    b.extensions.push_back({kCertExtSignedWithEd25519Key, kCertExtFlagAffectsValidation,
                            std::vector<std::uint8_t>(k.public_key().begin(), k.public_key().end())});
    Ed25519Cert c = sign_ok(b, k);
    auto d = decode_ed25519_cert(encode_ok(c));
    REQUIRE(d.has_value());
    CHECK(verify_ed25519_cert(*d, std::nullopt, 0).has_value());
  }
}

TEST_CASE("malformed extension 4 is rejected", "[cert][ed25519]") {
  const std::string head =
      "01" "04" "000186a0" "01"
      "0101010101010101010101010101010101010101010101010101010101010101";
  const std::string key = "0202020202020202020202020202020202020202020202020202020202020202";
  const std::string sig(128, '0');
  SECTION("31 bytes") {
    auto d = decode_ed25519_cert(unhex(head + "01" "001f" "04" "00" + key.substr(2) + sig));
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::BadLength);
  }
  SECTION("33 bytes") {
    auto d = decode_ed25519_cert(unhex(head + "01" "0021" "04" "00" + key + "02" + sig));
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::BadLength);
  }
  SECTION("twice") {
    auto d = decode_ed25519_cert(unhex(head + "02" "0020" "04" "00" + key + "0020" "04" "00" + key + sig));
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::BadValue);
  }
  SECTION("once and well formed (control)") {
    CHECK(decode_ed25519_cert(unhex(head + "01" "0020" "04" "00" + key + sig)).has_value());
  }
  SECTION("hand-built with a bad extension 4: verify refuses") {
    Ed25519Cert c;
    c.body = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1);
    c.body.extensions.push_back({kCertExtSignedWithEd25519Key, 0, {1, 2, 3}});
    CHECK(verify_ed25519_cert(c, std::nullopt, 0).error() == CertError::BadExtension);
  }
}

TEST_CASE("versions other than 1 are rejected", "[cert][ed25519]") {
  for (std::uint8_t v : {std::uint8_t{0}, std::uint8_t{2}, std::uint8_t{0xFF}}) {
    auto b = unhex(kChutneyType5);
    b[0] = v;
    auto d = decode_ed25519_cert(b);
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::BadVersion);
  }
}

TEST_CASE("truncated and overlong certificates are rejected", "[cert][ed25519]") {
  for (const char* h : {kChutneyType4, kChutneyType5}) {
    const auto bytes = unhex(h);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      auto d = decode_ed25519_cert(std::span(bytes).first(n));
      REQUIRE_FALSE(d.has_value());
      CHECK(d.error() == DecodeError::Truncated);
    }
    auto longer = bytes;
    longer.push_back(0x00);
    auto d = decode_ed25519_cert(longer);
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == DecodeError::TrailingBytes);
  }
  // An extension whose length runs past the end.
  auto d = decode_ed25519_cert(unhex(
      "01 05 000186a0 03 0101010101010101010101010101010101010101010101010101010101010101"
      "01 ffff 77 00" + std::string(128, '0')));
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error() == DecodeError::Truncated);
}

TEST_CASE("encoders refuse what the format cannot carry", "[cert][ed25519]") {
  Ed25519CertBody b = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1);
  b.extensions.push_back({0x99, 0, std::vector<std::uint8_t>(65536)});
  CHECK(encode_ed25519_cert_body(b).error() == CertError::TooLarge);
  CHECK(sign_ed25519_cert(b, keypair(1)).error() == CertError::TooLarge);
  b.extensions[0].data.resize(65535);
  CHECK(encode_ed25519_cert_body(b).has_value());

  Ed25519CertBody many = body_of(CertType::SigningVAuth, CertKeyType::Ed25519, 1);
  many.extensions.assign(255, CertExtension{0x99, 0, {}});
  auto ok = encode_ed25519_cert_body(many);
  REQUIRE(ok.has_value());
  CHECK(ok->size() == 40 + 255 * 4);
  CHECK((*ok)[39] == 255);
  many.extensions.push_back(CertExtension{0x99, 0, {}});
  CHECK(encode_ed25519_cert_body(many).error() == CertError::TooLarge);
}

TEST_CASE("expiration hours round up, as tor's CEIL_DIV", "[cert]") {
  CHECK(cert_expiration_hours(0) == 0);
  CHECK(cert_expiration_hours(1) == 1);
  CHECK(cert_expiration_hours(3600) == 1);
  CHECK(cert_expiration_hours(3601) == 2);
  CHECK(cert_expiration_hours(1601316000) == 0x0006C98Au);
  CHECK(cert_expiration_hours(~std::uint64_t{0}) == 0xFFFFFFFFu);
}

TEST_CASE("certificate errors have names", "[cert]") {
  CHECK(to_string(CertError::Expired) == "expired");
  CHECK(to_string(CertError::UnknownCriticalExtension) == "unknown extension affecting validation");
}
