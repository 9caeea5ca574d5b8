// Relay descriptors (common/dir): base64, field syntax, canonical JSON,
// signing and strict parsing, verification (certificate chain, signature,
// time window).
#include <functional>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/bytes/base64.hpp"
#include "conflux/dir/descriptor.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/signing_cert.hpp"

using namespace conflux;
using namespace conflux::dir;
using Json = nlohmann::json;

namespace {

constexpr std::uint64_t kNow = 1'700'000'000;  // 2023-11-14

crypto::Ed25519Keypair key_from(std::uint8_t b) {
  std::array<std::uint8_t, 32> seed{};
  seed.fill(b);
  return crypto::Ed25519Keypair::from_seed(seed);
}

struct Relay {
  crypto::Ed25519Keypair identity = key_from(1);
  crypto::Ed25519Keypair signing = key_from(2);
  std::vector<std::uint8_t> cert = make_signing_cert(identity, signing.public_key(), kNow + 30 * 86400);

  Descriptor unsigned_descriptor() const {
    Descriptor d;
    d.nickname = "relay1";
    d.identity = identity.public_key();
    d.signing_cert = cert;
    d.ntor_onion_key.fill(0x33);
    d.ipv4 = {127, 0, 0, 1};
    d.ipv6 = Ipv6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    d.or_port = 9001;
    d.dir_port = 9030;
    d.bandwidth = {1'000'000, 2'000'000, 500'000};
    d.exit_policy = "accept 80,443";
    d.family = {key_from(9).public_key(), key_from(8).public_key()};
    d.platform = "Conflux 0.1.0 on Linux";
    d.protocols = "Link=4-5 Relay=2-4 FlowCtrl=1-2 Conflux=1";
    d.published = kNow - 60;
    return d;
  }
  Descriptor signed_descriptor() const { return sign_descriptor(unsigned_descriptor(), signing); }
};

std::string edit(const std::string& text, const std::function<void(Json&)>& f) {
  Json j = Json::parse(text);
  f(j);
  return j.dump();
}

DirErrc parse_error(const std::string& text) {
  auto d = parse_descriptor(text);
  REQUIRE_FALSE(d);
  return d.error().code;
}

}  // namespace

TEST_CASE("base64: RFC 4648 vectors without padding, strict decoding", "[dir][base64]") {
  const std::vector<std::pair<std::string, std::string>> v = {
      {"", ""}, {"f", "Zg"}, {"fo", "Zm8"}, {"foo", "Zm9v"},
      {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, enc] : v) {
    const std::vector<std::uint8_t> bytes(plain.begin(), plain.end());
    CHECK(bytes::base64_encode(bytes) == enc);
    auto dec = bytes::base64_decode(enc);
    REQUIRE(dec);
    CHECK(*dec == bytes);
  }
  CHECK_FALSE(bytes::base64_decode("Zg=="));   // padding
  CHECK_FALSE(bytes::base64_decode("Zh"));     // non-zero spare bits
  CHECK_FALSE(bytes::base64_decode("Z"));      // impossible length
  CHECK_FALSE(bytes::base64_decode("Zm9v\n")); // whitespace
  CHECK_FALSE(bytes::base64_decode("Zm-v"));   // URL alphabet
  CHECK(*bytes::base64_decode("+/8") == std::vector<std::uint8_t>{0xfb, 0xff});
}

TEST_CASE("fields: policy summaries, protocols, nicknames, addresses", "[dir][fields]") {
  auto p = parse_policy_summary("accept 20-23,80,443");
  REQUIRE(p);
  CHECK(p->accept);
  CHECK(p->allows_port(80));
  CHECK(p->allows_port(21));
  CHECK_FALSE(p->allows_port(24));
  CHECK(format_policy_summary(*p) == "accept 20-23,80,443");
  auto r = parse_policy_summary("reject 25,119");
  REQUIRE(r);
  CHECK(r->allows_port(80));
  CHECK_FALSE(r->allows_port(25));
  for (const char* bad : {"accept", "accept ", "allow 80", "accept 0", "accept 65536", "accept 80,80",
                          "accept 443,80", "accept 90-80", "accept 80-80", "accept 080", "accept 80,",
                          "accept  80", "reject 1-65535 "}) {
    INFO(bad);
    CHECK_FALSE(parse_policy_summary(bad));
  }
  CHECK(exit_flag("accept 80,443"));
  CHECK(exit_flag("reject 25"));
  CHECK_FALSE(exit_flag("accept 80"));
  CHECK_FALSE(exit_flag("reject 443"));
  CHECK_FALSE(exit_flag("reject 1-65535"));

  CHECK(valid_protocols("Link=4-5 Relay=2-4 FlowCtrl=1-2 Conflux=1"));
  CHECK(valid_protocols(""));
  for (const char* bad : {"Link", "Link=", "Link=4-5 Link=3", "Link=5-4", "Link=4,4", "Link=64",
                          "Link=4  Relay=2", "=4", "Li nk=4", "Link=04", "Link=4 "}) {
    INFO(bad);
    CHECK_FALSE(valid_protocols(bad));
  }
  CHECK(protocols_support("Link=4-5 Conflux=1", "Conflux", 1));
  CHECK(protocols_support("Link=1,4-5", "Link", 5));
  CHECK_FALSE(protocols_support("Link=4-5 Conflux=1", "Conflux", 2));
  CHECK_FALSE(protocols_support("Link=4-5", "Conflux", 1));

  CHECK(valid_nickname("relay1"));
  CHECK(valid_nickname("abcdefghijklmnopqrs"));
  CHECK_FALSE(valid_nickname("abcdefghijklmnopqrst"));
  CHECK_FALSE(valid_nickname(""));
  CHECK_FALSE(valid_nickname("re-lay"));

  CHECK(parse_ipv4("10.0.0.1") == Ipv4{10, 0, 0, 1});
  CHECK_FALSE(parse_ipv4("10.0.0.01"));
  CHECK_FALSE(parse_ipv4("10.0.0"));
  CHECK_FALSE(parse_ipv4("10.0.0.256"));
  CHECK(parse_ipv6("2001:db8::1"));
  CHECK_FALSE(parse_ipv6("2001:DB8::1"));            // not the canonical spelling
  CHECK_FALSE(parse_ipv6("2001:db8:0:0:0:0:0:1"));   // not compressed
  CHECK_FALSE(parse_ipv6("[2001:db8::1]"));
}

TEST_CASE("descriptor: canonical JSON, exactly what is signed", "[dir][descriptor]") {
  Relay relay;
  Descriptor d = relay.signed_descriptor();
  const std::string family0 = bytes::base64_encode(std::min(key_from(8).public_key(), key_from(9).public_key()));
  const std::string family1 = bytes::base64_encode(std::max(key_from(8).public_key(), key_from(9).public_key()));
  // Sorted keys, no whitespace outside strings, family sorted by key bytes.
  const std::string expected_unsigned =
      R"({"bandwidth":{"burst":2000000,"observed":500000,"rate":1000000},"bridge":false,)"
      R"("dir_port":9030,"exit_policy":"accept 80,443","family":[")" + family0 + R"(",")" + family1 +
      R"("],"identity":")" + bytes::base64_encode(relay.identity.public_key()) +
      R"(","ipv4":"127.0.0.1","ipv6":"2001:db8::1","nickname":"relay1","ntor_onion_key":")" +
      bytes::base64_encode(d.ntor_onion_key) + R"(","or_port":9001,"platform":"Conflux 0.1.0 on Linux",)"
      R"("protocols":"Link=4-5 Relay=2-4 FlowCtrl=1-2 Conflux=1","published":1699999940,)"
      R"("signing_cert":")" + bytes::base64_encode(relay.cert) + R"("})";
  const auto signed_bytes = descriptor_signed_bytes(d);
  CHECK(std::string(signed_bytes.begin(), signed_bytes.end()) ==
        "conflux-descriptor-v1\n" + expected_unsigned);
  const std::string expected_full = expected_unsigned.substr(0, expected_unsigned.size() - 1) +
                                    R"(,"signature":")" + bytes::base64_encode(d.signature) + R"("})";
  // "signature" sorts between "published" and "signing_cert".
  Json full = Json::parse(expected_full);
  CHECK(encode_descriptor(d) == full.dump());
  CHECK(crypto::ed25519_verify(relay.signing.public_key(), signed_bytes, d.signature));
  CHECK(descriptor_digest(d) == crypto::sha256({reinterpret_cast<const std::uint8_t*>(encode_descriptor(d).data()),
                                                encode_descriptor(d).size()}));
}

TEST_CASE("descriptor: round trip and verification", "[dir][descriptor]") {
  Relay relay;
  const Descriptor d = relay.signed_descriptor();
  const std::string text = encode_descriptor(d);
  auto back = parse_descriptor(text);
  REQUIRE(back);
  CHECK(*back == d);
  CHECK(encode_descriptor(*back) == text);
  auto key = verify_descriptor(*back, kNow);
  REQUIRE(key);
  CHECK(*key == relay.signing.public_key());

  // No IPv6, no family, a bridge.
  Descriptor b = relay.unsigned_descriptor();
  b.ipv6.reset();
  b.family.clear();
  b.is_bridge = true;
  b = sign_descriptor(b, relay.signing);
  auto b2 = parse_and_verify_descriptor(encode_descriptor(b), kNow);
  REQUIRE(b2);
  CHECK(*b2 == b);
  CHECK(accept_upload(encode_descriptor(b), kNow).error().code == DirErrc::IsBridge);
  CHECK(accept_upload(text, kNow));
}

TEST_CASE("descriptor: tampering is detected", "[dir][descriptor]") {
  Relay relay;
  const Descriptor d = relay.signed_descriptor();
  const std::string text = encode_descriptor(d);

  SECTION("a field changed after signing") {
    auto t = parse_descriptor(edit(text, [](Json& j) { j["or_port"] = 9002; }));
    REQUIRE(t);
    CHECK(verify_descriptor(*t, kNow).error().code == DirErrc::BadSignature);
    auto n = parse_descriptor(edit(text, [](Json& j) { j["exit_policy"] = "accept 1-65535"; }));
    REQUIRE(n);
    CHECK(verify_descriptor(*n, kNow).error().code == DirErrc::BadSignature);
  }
  SECTION("the signature changed") {
    Descriptor t = d;
    t.signature[5] ^= 1;
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::BadSignature);
  }
  SECTION("signed by a key the certificate does not certify") {
    Descriptor t = sign_descriptor(relay.unsigned_descriptor(), key_from(7));
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::BadSignature);
  }
  SECTION("a certificate from another identity") {
    Descriptor t = relay.unsigned_descriptor();
    t.signing_cert = make_signing_cert(key_from(5), relay.signing.public_key(), kNow + 86400);
    t = sign_descriptor(t, relay.signing);
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::CertMismatch);
  }
  SECTION("another identity claims this certificate") {
    Descriptor t = relay.unsigned_descriptor();
    t.identity = key_from(5).public_key();
    t = sign_descriptor(t, relay.signing);
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::CertMismatch);
  }
  SECTION("a certificate with a flipped byte") {
    Descriptor t = relay.unsigned_descriptor();
    t.signing_cert[10] ^= 0x40;  // inside the certified key
    t = sign_descriptor(t, relay.signing);
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::BadCert);
  }
  SECTION("a certificate of the wrong type") {
    cell::Ed25519CertBody body;
    body.cert_type = cell::CertType::SigningVAuth;  // type 6
    body.expiration_hours = cell::cert_expiration_hours(kNow + 86400);
    body.certified_key = relay.signing.public_key();
    auto c = cell::sign_ed25519_cert(body, relay.identity, cell::IncludeSigningKey::Yes);
    REQUIRE(c);
    Descriptor t = relay.unsigned_descriptor();
    t.signing_cert = *cell::encode_ed25519_cert(*c);
    t = sign_descriptor(t, relay.signing);
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::BadCert);
  }
  SECTION("an expired certificate") {
    Descriptor t = relay.unsigned_descriptor();
    t.signing_cert = make_signing_cert(relay.identity, relay.signing.public_key(), kNow - 7200);
    t = sign_descriptor(t, relay.signing);
    CHECK(verify_descriptor(t, kNow).error().code == DirErrc::CertExpired);
  }
}

TEST_CASE("descriptor: published time window", "[dir][descriptor]") {
  Relay relay;
  auto at = [&](std::uint64_t published) {
    Descriptor d = relay.unsigned_descriptor();
    d.published = published;
    return verify_descriptor(sign_descriptor(d, relay.signing), kNow);
  };
  CHECK(at(kNow));
  CHECK(at(kNow - 48 * 3600));
  CHECK(at(kNow - 48 * 3600 - 1).error().code == DirErrc::Expired);
  CHECK(at(kNow + 3600));
  CHECK(at(kNow + 3601).error().code == DirErrc::FromFuture);
  Descriptor d = relay.signed_descriptor();
  CHECK(verify_descriptor(d, kNow, DescriptorCheck{59, 0}).error().code == DirErrc::Expired);
  CHECK(verify_descriptor(d, kNow - 120, DescriptorCheck{48 * 3600, 30}).error().code == DirErrc::FromFuture);
}

TEST_CASE("descriptor: strict parsing", "[dir][descriptor]") {
  Relay relay;
  const std::string text = encode_descriptor(relay.signed_descriptor());
  using E = DirErrc;
  CHECK(parse_error(edit(text, [](Json& j) { j["extra"] = 1; })) == E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j["bandwidth"]["extra"] = 1; })) == E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j.erase("published"); })) == E::MissingField);
  CHECK(parse_error(edit(text, [](Json& j) { j["bandwidth"].erase("rate"); })) == E::MissingField);
  CHECK(parse_error(edit(text, [](Json& j) { j["or_port"] = "9001"; })) == E::BadType);
  CHECK(parse_error(edit(text, [](Json& j) { j["or_port"] = -1; })) == E::BadType);
  CHECK(parse_error(edit(text, [](Json& j) { j["or_port"] = 9001.5; })) == E::BadType);
  CHECK(parse_error(edit(text, [](Json& j) { j["or_port"] = 0; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["or_port"] = 65536; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["bridge"] = 0; })) == E::BadType);
  CHECK(parse_error(edit(text, [](Json& j) { j["bandwidth"]["rate"] = (1ULL << 40) + 1; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["nickname"] = "a-b"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["ipv4"] = "127.0.0.01"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["ipv6"] = "::g"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["exit_policy"] = "accept 80 443"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["protocols"] = "Link=4-5 Link=4"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["platform"] = "tab\there"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["identity"] = "AAAA"; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) {
          j["identity"] = j["identity"].get<std::string>() + "=";
        })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["signing_cert"] = "AAAAAAAA"; })) == E::BadCert);
  CHECK(parse_error(edit(text, [](Json& j) {
          auto f = j["family"];
          j["family"] = Json::array({f[1], f[0]});
        })) == E::NotSorted);
  CHECK(parse_error(edit(text, [](Json& j) {
          j["family"] = Json::array({j["family"][0], j["family"][0]});
        })) == E::NotSorted);
  CHECK(parse_error(edit(text, [](Json& j) { j["family"] = Json::array({1}); })) == E::BadValue);
  CHECK(parse_error("[]") == E::BadType);
  CHECK(parse_error("{") == E::BadJson);
  CHECK(parse_error("") == E::BadJson);
  CHECK(parse_error(text + "x") == E::BadJson);
  CHECK(parse_error(R"({"nickname":"a","nickname":"b"})") == E::DuplicateKey);
  CHECK(parse_error(std::string(30, '[') + std::string(30, ']')) == E::BadJson);
  CHECK(parse_error(std::string(20001, ' ')) == E::TooLarge);
  // Whitespace is allowed on input; the signature covers the canonical form.
  const std::string spaced = Json::parse(text).dump(2);
  auto d = parse_and_verify_descriptor(spaced, kNow);
  REQUIRE(d);
  CHECK(encode_descriptor(*d) == text);
}

TEST_CASE("descriptor v2: the RSA identity signs too and names the relay's tor fingerprint", "[dir][descriptor]") {
  Relay r;
  const auto rsa = crypto::RsaPrivateKey::generate(1024);
  const Descriptor d = sign_descriptor(r.unsigned_descriptor(), r.signing, rsa);
  const auto bytes = descriptor_signed_bytes(d);
  const std::string prefix(kDescriptorPrefixV2);
  CHECK(std::string(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(prefix.size())) == prefix);
  REQUIRE(descriptor_rsa_fingerprint(d));
  CHECK(*descriptor_rsa_fingerprint(d) == rsa.public_key().fingerprint());
  CHECK_FALSE(descriptor_rsa_fingerprint(r.signed_descriptor()));

  const std::string text = encode_descriptor(d);
  auto back = parse_and_verify_descriptor(text, kNow);
  REQUIRE(back);
  CHECK(*back == d);

  // Both or neither; a v2 document stripped to v1 no longer verifies (other prefix).
  CHECK(parse_error(edit(text, [](Json& j) { j.erase("rsa_signature"); })) == DirErrc::MissingField);
  CHECK(parse_error(edit(text, [](Json& j) { j.erase("rsa_identity"); })) == DirErrc::MissingField);
  auto stripped = parse_descriptor(edit(text, [](Json& j) {
    j.erase("rsa_signature");
    j.erase("rsa_identity");
  }));
  REQUIRE(stripped);
  CHECK_FALSE(verify_descriptor(*stripped, kNow));

  // Another RSA key, or a damaged RSA signature, fails.
  const auto other = crypto::RsaPrivateKey::generate(1024);
  auto swapped = parse_descriptor(edit(text, [&](Json& j) { j["rsa_identity"] = bytes::base64_encode(other.public_key().der()); }));
  REQUIRE(swapped);
  CHECK_FALSE(verify_descriptor(*swapped, kNow));
  auto bad_sig = d;
  bad_sig.rsa_signature[3] ^= 1;
  CHECK(verify_descriptor(bad_sig, kNow).error().code == DirErrc::BadSignature);
  // Only 1024-bit identities (tor's).
  const auto big = crypto::RsaPrivateKey::generate(2048);
  auto big_d = sign_descriptor(r.unsigned_descriptor(), r.signing, big);
  CHECK_FALSE(parse_descriptor(encode_descriptor(big_d)));
}
