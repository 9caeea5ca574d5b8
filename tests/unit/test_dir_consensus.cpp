// The consensus document (common/dir): canonical body, strict parsing, and
// the majority rule of verify_consensus.
#include <functional>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "conflux/dir/authority.hpp"
#include "conflux/bytes/base64.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/signing_cert.hpp"

using namespace conflux;
using namespace conflux::dir;
using Json = nlohmann::json;

namespace {

constexpr std::uint64_t kVa = 1'700'000'000 - 1'700'000'000 % 3600;

crypto::Ed25519Keypair key_from(std::uint8_t b) {
  std::array<std::uint8_t, 32> seed{};
  seed.fill(b);
  return crypto::Ed25519Keypair::from_seed(seed);
}

struct Authority {
  explicit Authority(std::uint8_t n)
      : identity(key_from(n)), signing(key_from(static_cast<std::uint8_t>(n + 100))),
        cert(make_signing_cert(identity, signing.public_key(), kVa + 30 * 86400)) {}
  crypto::Ed25519Keypair identity;
  crypto::Ed25519Keypair signing;
  std::vector<std::uint8_t> cert;
  DetachedSignature sign(const ConsensusBody& b) const {
    return sign_body(b, identity.public_key(), cert, signing);
  }
  crypto::Ed25519Public id() const { return identity.public_key(); }
};

RouterEntry router(std::uint8_t n, bool exit) {
  RouterEntry r;
  r.identity = key_from(n).public_key();
  r.nickname = "r" + std::to_string(n);
  r.ipv4 = {127, 0, 0, n};
  r.or_port = static_cast<std::uint16_t>(9000 + n);
  r.flags = Flags{exit, true, !exit, true, true, true};
  r.bandwidth = 1000u * n;
  r.ntor_onion_key.fill(n);
  r.exit_policy = exit ? "accept 80,443" : "reject 1-65535";
  r.protocols = "Link=4-5 Relay=2-4";
  r.descriptor_digest.fill(static_cast<std::uint8_t>(n + 1));
  r.published = kVa - 100;
  return r;
}

ConsensusBody sample_body() {
  ConsensusBody b;
  b.valid_after = kVa;
  b.fresh_until = kVa + 3600;
  b.valid_until = kVa + 3 * 3600;
  b.params = {{"cfx_enabled", 1}, {"circwindow", 1000}, {"neg", -5}};
  for (std::uint8_t n : {std::uint8_t{3}, std::uint8_t{4}, std::uint8_t{5}}) b.routers.push_back(router(n, n == 5));
  b.routers[1].ipv6 = Ipv6{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  b.routers[1].family = {key_from(3).public_key()};
  std::sort(b.routers.begin(), b.routers.end(),
            [](const RouterEntry& x, const RouterEntry& y) { return x.identity < y.identity; });
  b.bandwidth_weights = weights_for(b.routers);
  return b;
}

Consensus signed_by(const ConsensusBody& body, std::initializer_list<const Authority*> auths) {
  Consensus c{body, {}};
  for (const Authority* a : auths) c.signatures.push_back(a->sign(body).signature);
  return c;
}

std::string edit(const std::string& text, const std::function<void(Json&)>& f) {
  Json j = Json::parse(text);
  f(j);
  return j.dump();
}

DirErrc parse_error(const std::string& text) {
  auto c = parse_consensus(text);
  REQUIRE_FALSE(c);
  return c.error().code;
}

}  // namespace

TEST_CASE("consensus: round trip, canonical body", "[dir][consensus]") {
  Authority a(1);
  const ConsensusBody body = sample_body();
  REQUIRE(body.bandwidth_weights);
  const Consensus c = signed_by(body, {&a});
  const std::string text = encode_consensus(c);
  auto back = parse_consensus(text);
  REQUIRE(back);
  CHECK(*back == c);
  CHECK(encode_consensus(*back) == text);

  const std::string b = encode_consensus_body(body);
  CHECK(b.rfind(R"({"bandwidth_weights":{"Wbd":)", 0) == 0);
  CHECK(b.find(R"("fresh_until":)" + std::to_string(kVa + 3600) + R"(,"params":{"cfx_enabled":1,"circwindow":1000,"neg":-5},"routers":[{"bandwidth":)") != std::string::npos);
  CHECK(b.find(R"("flags":["Exit","Fast","Running","Stable","Valid"])") != std::string::npos);
  CHECK(b.find(R"("flags":["Fast","Guard","Running","Stable","Valid"])") != std::string::npos);
  CHECK(Json::parse(b).dump() == b);  // compact, keys sorted: already in nlohmann's canonical form
  const auto bytes = consensus_signed_bytes(body);
  CHECK(std::string(bytes.begin(), bytes.end()) == "conflux-consensus-v1\n" + b);

  // Without weights, and with no routers at all.
  ConsensusBody empty;
  empty.valid_after = 1;
  empty.fresh_until = 2;
  empty.valid_until = 3;
  Consensus e{empty, {}};
  auto e2 = parse_consensus(encode_consensus(e));
  REQUIRE(e2);
  CHECK(*e2 == e);
  CHECK(encode_consensus(e) ==
        R"({"body":{"fresh_until":2,"params":{},"routers":[],"valid_after":1,"valid_until":3},"signatures":[]})");
}

TEST_CASE("consensus: majority of configured authorities", "[dir][consensus]") {
  Authority a(1), b(2), c(3), stranger(4);
  const ConsensusBody body = sample_body();
  const std::vector<crypto::Ed25519Public> one{a.id()};
  const std::vector<crypto::Ed25519Public> three{a.id(), b.id(), c.id()};
  const std::uint64_t now = kVa + 10;

  SECTION("1 of 1") {
    auto n = verify_consensus(signed_by(body, {&a}), one, now);
    REQUIRE(n);
    CHECK(*n == 1);
  }
  SECTION("0 of 1") {
    CHECK(verify_consensus(signed_by(body, {}), one, now).error().code == DirErrc::NotEnoughSignatures);
  }
  SECTION("2 of 3 and 3 of 3 count, 1 of 3 does not") {
    CHECK(*verify_consensus(signed_by(body, {&a, &c}), three, now) == 2);
    CHECK(*verify_consensus(signed_by(body, {&c, &b, &a}), three, now) == 3);
    CHECK(verify_consensus(signed_by(body, {&b}), three, now).error().code == DirErrc::NotEnoughSignatures);
  }
  SECTION("2 of 4 is not a strict majority") {
    const std::vector<crypto::Ed25519Public> four{a.id(), b.id(), c.id(), stranger.id()};
    CHECK(verify_consensus(signed_by(body, {&a, &b}), four, now).error().code == DirErrc::NotEnoughSignatures);
    CHECK(*verify_consensus(signed_by(body, {&a, &b, &c}), four, now) == 3);
  }
  SECTION("duplicate signatures from one authority count once") {
    CHECK(verify_consensus(signed_by(body, {&a, &a}), three, now).error().code ==
          DirErrc::NotEnoughSignatures);
    CHECK(*verify_consensus(signed_by(body, {&a, &a, &b, &b}), three, now) == 2);
  }
  SECTION("a configured authority listed twice is one authority") {
    const std::vector<crypto::Ed25519Public> dup{a.id(), a.id(), b.id(), c.id()};
    CHECK(*verify_consensus(signed_by(body, {&a, &b}), dup, now) == 2);
  }
  SECTION("a signature over a different body is not counted") {
    ConsensusBody other = body;
    other.routers[0].bandwidth += 1;
    Consensus doc = signed_by(body, {&a});
    doc.signatures.push_back(b.sign(other).signature);
    CHECK(verify_consensus(doc, three, now).error().code == DirErrc::NotEnoughSignatures);
    // The same signatures on a tampered body: none counts.
    Consensus tampered = signed_by(body, {&a, &b, &c});
    tampered.body.routers[2].flags.guard = !tampered.body.routers[2].flags.guard;
    CHECK(verify_consensus(tampered, three, now).error().code == DirErrc::NotEnoughSignatures);
  }
  SECTION("an unknown authority is ignored") {
    CHECK(verify_consensus(signed_by(body, {&a, &stranger}), three, now).error().code ==
          DirErrc::NotEnoughSignatures);
    CHECK(*verify_consensus(signed_by(body, {&stranger, &a, &b}), three, now) == 2);
  }
  SECTION("a signature whose certificate is for another identity is not counted") {
    Consensus doc = signed_by(body, {&a});
    ConsensusSignature forged = c.sign(body).signature;
    forged.identity = b.id();  // claims to be b, certificate is c's
    doc.signatures.push_back(forged);
    CHECK(verify_consensus(doc, three, now).error().code == DirErrc::NotEnoughSignatures);
  }
  SECTION("no authorities configured") {
    CHECK(verify_consensus(signed_by(body, {&a}), {}, now).error().code == DirErrc::NoAuthorities);
  }
}

TEST_CASE("consensus: time window", "[dir][consensus]") {
  Authority a(1);
  const std::vector<crypto::Ed25519Public> one{a.id()};
  const Consensus c = signed_by(sample_body(), {&a});
  CHECK(verify_consensus(c, one, kVa));
  CHECK(verify_consensus(c, one, kVa + 3 * 3600));
  CHECK(verify_consensus(c, one, kVa - 1).error().code == DirErrc::FromFuture);
  CHECK(verify_consensus(c, one, kVa + 3 * 3600 + 1).error().code == DirErrc::Expired);
  CHECK(verify_consensus(c, one, kVa - 60, ConsensusCheck{60}));
  CHECK(verify_consensus(c, one, kVa + 3 * 3600 + 60, ConsensusCheck{60}));
  CHECK(verify_consensus(c, one, kVa - 61, ConsensusCheck{60}).error().code == DirErrc::FromFuture);
}

TEST_CASE("consensus: detached signatures and add_signature", "[dir][consensus]") {
  Authority a(1), b(2), c(3), stranger(4);
  const std::vector<crypto::Ed25519Public> three{a.id(), b.id(), c.id()};
  const ConsensusBody body = sample_body();
  const std::uint64_t now = kVa + 5;

  const DetachedSignature sb = b.sign(body);
  CHECK(sb.digest == consensus_body_digest(body));
  auto back = parse_detached_signature(encode_detached_signature(sb));
  REQUIRE(back);
  CHECK(*back == sb);
  CHECK_FALSE(parse_detached_signature(edit(encode_detached_signature(sb), [](Json& j) { j["x"] = 1; })));

  Consensus doc{body, {}};
  CHECK(*add_signature(doc, c.sign(body), three, now));
  CHECK(*add_signature(doc, sb, three, now));
  CHECK_FALSE(*add_signature(doc, sb, three, now));  // already there: kept once
  CHECK(doc.signatures.size() == 2);
  CHECK(doc.signatures[0].identity < doc.signatures[1].identity);
  CHECK(*verify_consensus(doc, three, now) == 2);

  ConsensusBody other = body;
  other.valid_until += 1;
  CHECK(add_signature(doc, a.sign(other), three, now).error().code == DirErrc::DigestMismatch);
  CHECK(add_signature(doc, stranger.sign(body), three, now).error().code == DirErrc::UnknownAuthority);
  DetachedSignature bad = a.sign(body);
  bad.signature.signature[0] ^= 1;
  CHECK(add_signature(doc, bad, three, now).error().code == DirErrc::BadSignature);
  DetachedSignature lying = a.sign(other);
  lying.digest = consensus_body_digest(body);  // right digest, signature over another body
  CHECK(add_signature(doc, lying, three, now).error().code == DirErrc::BadSignature);
  CHECK(add_signature(doc, a.sign(body), three, kVa + 31 * 86400).error().code == DirErrc::CertExpired);
  CHECK(doc.signatures.size() == 2);
}

TEST_CASE("consensus: strict parsing", "[dir][consensus]") {
  Authority a(1);
  const std::string text = encode_consensus(signed_by(sample_body(), {&a}));
  using E = DirErrc;
  CHECK(parse_error(edit(text, [](Json& j) { j["x"] = 1; })) == E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["x"] = 1; })) == E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["routers"][0]["x"] = 1; })) == E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j["signatures"][0]["x"] = 1; })) == E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["bandwidth_weights"]["Wxx"] = 1; })) ==
        E::UnknownField);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"].erase("routers"); })) == E::MissingField);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["bandwidth_weights"].erase("Wgg"); })) ==
        E::MissingField);
  CHECK(parse_error(edit(text, [](Json& j) {
          auto& r = j["body"]["routers"];
          std::swap(r[0], r[1]);
        })) == E::NotSorted);
  CHECK(parse_error(edit(text, [](Json& j) {
          auto& r = j["body"]["routers"];
          r[1] = r[0];
        })) == E::NotSorted);
  CHECK(parse_error(edit(text, [](Json& j) {
          j["body"]["routers"][0]["flags"] = Json::array({"Running", "Fast"});
        })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) {
          j["body"]["routers"][0]["flags"] = Json::array({"Fast", "Fast"});
        })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) {
          j["body"]["routers"][0]["flags"] = Json::array({"BadExit"});
        })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["fresh_until"] = j["body"]["valid_after"]; })) ==
        E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["valid_until"] = j["body"]["fresh_until"]; })) ==
        E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["params"]["x"] = 2147483648LL; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["params"]["x"] = -2147483649LL; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["params"]["x"] = 1.5; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["params"]["a.b"] = 1; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["params"][std::string(65, 'x')] = 1; })) == E::BadValue);
  CHECK(parse_consensus(edit(text, [](Json& j) { j["body"]["params"]["guard-n-primary-guards-to-use"] = 2; })));
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["routers"][0]["rsa_identity"] = std::string(40, 'a'); })) ==
        E::BadValue);  // tor writes fingerprints in upper case
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["bandwidth_weights"]["Wgg"] = 10001; })) ==
        E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) { j["body"]["routers"][0]["nickname"] = ""; })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) {
          j["body"]["routers"][0]["descriptor_digest"] = "AAAA";
        })) == E::BadValue);
  CHECK(parse_error(edit(text, [](Json& j) {
          auto s = j["signatures"][0];
          j["signatures"] = Json::array();
          for (int i = 0; i < 65; ++i) j["signatures"].push_back(s);
        })) == E::TooManyEntries);
  CHECK(parse_error(edit(text, [](Json& j) {
          auto r = j["body"]["routers"][0];
          j["body"]["routers"] = Json::array();
          for (int i = 0; i < 10001; ++i) j["body"]["routers"].push_back(r);
        })) == E::TooManyEntries);
  CHECK(parse_error(std::string(5 * 1024 * 1024 + 1, ' ')) == E::TooLarge);
  CHECK(parse_error("{}") == E::MissingField);
  CHECK(parse_error("null") == E::BadType);
}
