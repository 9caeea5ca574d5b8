// Our authorities writing tor's formats (tor_key_cert_make.hpp,
// tor_consensus_make.hpp): what they write, our own tor-format parsers
// accept and verify (key certificates, both consensus flavors with a
// majority of signatures, the microdescriptors), and it converts back to
// the body it was made from.
#include <catch2/catch.hpp>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_consensus_make.hpp"
#include "conflux/dir/tor_doc.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_key_cert_make.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dir/tor_signature_message.hpp"
#include "conflux/dir/tor_to_consensus.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

constexpr std::uint64_t kVa = 1'795'000'000;  // 2026-11-18 ...

struct Auth {
  crypto::RsaPrivateKey identity = crypto::RsaPrivateKey::generate(2048);
  crypto::RsaPrivateKey signing = crypto::RsaPrivateKey::generate(1024);
  std::string cert = make_key_cert(identity, signing, kVa - 3600, kVa + 365 * 86400, "127.0.0.1:7000");
  [[nodiscard]] const crypto::RsaFingerprint& v3ident() const { return identity.public_key().fingerprint(); }
};

std::vector<Auth>& auths() {
  static std::vector<Auth> a(3);
  return a;
}

std::vector<TorVoter> voters() {
  std::vector<TorVoter> v;
  for (std::size_t i = 0; i < auths().size(); ++i)
    v.push_back({"auth" + std::to_string(i), auths()[i].v3ident(), "127.0.0.1", static_cast<std::uint16_t>(7000 + i),
                 static_cast<std::uint16_t>(6000 + i), "auth" + std::to_string(i) + "@conflux.invalid"});
  return v;
}

RouterEntry router(std::uint8_t n, bool exit) {
  RouterEntry r;
  r.identity.fill(n);
  r.nickname = "relay" + std::to_string(n);
  r.ipv4 = {127, 0, 0, 1};
  r.or_port = static_cast<std::uint16_t>(9000 + n);
  r.flags = {exit, true, !exit, true, true, true};
  r.bandwidth = 100u * n;
  r.ntor_onion_key.fill(static_cast<std::uint8_t>(0x40 + n));
  r.exit_policy = exit ? "accept 80,443" : "reject 1-65535";
  r.protocols = "Relay=2-4 Link=4-5 FlowCtrl=1-2 Conflux=1";
  crypto::RsaFingerprint fp{};
  fp.fill(static_cast<std::uint8_t>(0xf0 - n));  // the reverse of the Ed25519 order
  r.rsa_identity = fp;
  r.published = kVa - 100;
  return r;
}

ConsensusBody body() {
  ConsensusBody b;
  b.valid_after = kVa;
  b.fresh_until = kVa + 60;
  b.valid_until = kVa + 180;
  b.params = {{"cfx_enabled", 1}, {"cc_alg", 2}};
  b.routers = {router(1, false), router(2, false), router(3, true)};
  b.routers[0].family = {b.routers[1].identity};
  b.routers[1].family = {b.routers[0].identity};
  b.routers[2].ipv6 = Ipv6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3};
  RouterEntry v1 = router(4, false);
  v1.rsa_identity.reset();  // a v1 descriptor's relay: not in tor's document
  b.routers.push_back(v1);
  b.bandwidth_weights = BandwidthWeights{};
  b.bandwidth_weights->wgg = 10000;
  return b;
}

std::vector<AuthorityKeyCert> certs() {
  std::string all;
  for (const auto& a : auths()) all += a.cert;
  auto c = parse_key_certs(all);
  REQUIRE(c);
  return *c;
}

std::vector<crypto::RsaFingerprint> trusted() {
  std::vector<crypto::RsaFingerprint> t;
  for (const auto& a : auths()) t.push_back(a.v3ident());
  return t;
}

std::string signed_by(const TorConsensusDraft& d, std::initializer_list<std::size_t> who) {
  std::vector<std::pair<crypto::RsaFingerprint, std::string>> items;
  for (std::size_t i : who) items.emplace_back(auths()[i].v3ident(), make_tor_signature_item(d, auths()[i].v3ident(), auths()[i].signing));
  return assemble_tor_consensus(d, std::move(items));
}

}  // namespace

TEST_CASE("tor make: times format as tor writes them and parse back", "[dir][tor]") {
  CHECK(tordoc::format_time(0) == "1970-01-01 00:00:00");
  CHECK(tordoc::format_time(951782400) == "2000-02-29 00:00:00");
  CHECK(tordoc::format_time(2145916800) == "2038-01-01 00:00:00");
  for (std::uint64_t t : {0ull, 86399ull, 951782399ull, 1795000123ull, 4102444799ull}) {
    const auto s = tordoc::format_time(t);
    CHECK(tordoc::parse_time(s.substr(0, 10), s.substr(11)) == t);
  }
}

TEST_CASE("tor make: our key certificates verify, and changing one byte breaks them", "[dir][tor]") {
  const auto& a = auths()[0];
  auto c = parse_key_certs(a.cert);
  REQUIRE(c);
  REQUIRE(c->size() == 1);
  CHECK((*c)[0].v3ident() == a.v3ident());
  CHECK((*c)[0].signing_key_digest() == a.signing.public_key().fingerprint());
  CHECK((*c)[0].published == kVa - 3600);
  CHECK((*c)[0].expires == kVa + 365 * 86400);
  CHECK((*c)[0].dir_address == "127.0.0.1:7000");
  CHECK((*c)[0].text == a.cert);
  CHECK(key_cert_current((*c)[0], kVa));
  auto later = a.cert;
  later.replace(later.find("dir-key-expires ") + 16, 4, "2099");
  CHECK_FALSE(parse_key_certs(later));
  // Another signing key under the same certification fails the cross-certificate.
  const auto other = make_key_cert(a.identity, auths()[1].signing, kVa, kVa + 86400);
  CHECK(parse_key_certs(other));
  auto spliced = a.cert;
  const auto sk = spliced.find("dir-signing-key\n");
  const auto cross = spliced.find("dir-key-crosscert\n");
  const auto osk = other.find("dir-signing-key\n");
  const auto ocross = other.find("dir-key-crosscert\n");
  spliced.replace(sk, cross - sk, other.substr(osk, ocross - osk));
  CHECK_FALSE(parse_key_certs(spliced));
}

TEST_CASE("tor make: the microdesc consensus parses, verifies with a majority, and only then", "[dir][tor]") {
  const auto d = make_tor_microdesc_consensus(body(), voters());
  // Deterministic: every authority that agrees on the body writes these bytes.
  CHECK(make_tor_microdesc_consensus(body(), voters()).unsigned_text == d.unsigned_text);

  const std::string two = signed_by(d, {2, 0});
  auto c = parse_tor_consensus(two);
  REQUIRE(c);
  CHECK(c->flavor == ConsensusFlavor::Microdesc);
  CHECK(c->consensus_method == kTorConsensusMethod);
  CHECK(c->valid_after == kVa);
  CHECK(c->valid_until == kVa + 180);
  CHECK(c->params.at("cfx_enabled") == 1);
  CHECK(c->dir_sources.size() == 3);
  REQUIRE(c->routers.size() == 3);
  CHECK(c->routers[0].nickname == "relay3");  // ascending RSA identity
  CHECK(c->routers[0].has_flag("Exit"));
  CHECK_FALSE(c->routers[0].has_flag("Guard"));
  CHECK(c->routers[0].ipv6);
  CHECK(c->routers[0].protocols == "Conflux=1 FlowCtrl=1-2 Link=4-5 Relay=2-4");
  CHECK(c->routers[0].bandwidth == 300);
  CHECK(c->bandwidth_weights.at("Wgg") == 10000);
  CHECK(std::vector<std::uint8_t>(c->signed_sha256.begin(), c->signed_sha256.end()) == d.signed_digest);
  auto ok = verify_tor_consensus(*c, certs(), trusted(), kVa + 10);
  REQUIRE(ok);
  CHECK(*ok == 2);

  auto one = parse_tor_consensus(signed_by(d, {1}));
  REQUIRE(one);
  CHECK_FALSE(verify_tor_consensus(*one, certs(), trusted(), kVa + 10));
  // A signature made over another body does not count.
  auto other_body = body();
  other_body.routers.pop_back();
  other_body.routers[0].bandwidth += 1;
  const auto d2 = make_tor_microdesc_consensus(other_body, voters());
  std::string mixed = d.unsigned_text + make_tor_signature_item(d, auths()[0].v3ident(), auths()[0].signing) +
                      make_tor_signature_item(d2, auths()[1].v3ident(), auths()[1].signing);
  auto m = parse_tor_consensus(mixed);
  REQUIRE(m);
  CHECK_FALSE(verify_tor_consensus(*m, certs(), trusted(), kVa + 10));
}

TEST_CASE("tor make: microdescriptors are what m names and convert back to the body", "[dir][tor]") {
  const auto d = make_tor_microdesc_consensus(body(), voters());
  REQUIRE(d.microdescs.size() == 3);
  std::string all;
  for (const auto& md : d.microdescs) all += md;
  auto mds = parse_tor_microdescs(all);
  REQUIRE(mds);
  REQUIRE(mds->size() == 3);
  auto c = parse_tor_consensus(signed_by(d, {0, 1, 2}));
  REQUIRE(c);
  for (std::size_t i = 0; i < 3; ++i) CHECK((*mds)[i].digest == c->routers[i].microdesc_digest);

  const auto conv = consensus_from_tor(*c, *mds);
  CHECK(conv.missing_microdesc == 0);
  CHECK(conv.missing_ed25519 == 0);
  const auto original = body();
  REQUIRE(conv.body.routers.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& want = original.routers[i];
    const auto& got = conv.body.routers[i];
    CHECK(got.identity == want.identity);
    CHECK(got.rsa_identity == want.rsa_identity);
    CHECK(got.ntor_onion_key == want.ntor_onion_key);
    CHECK(got.exit_policy == want.exit_policy);
    CHECK(got.flags == want.flags);
    CHECK(got.bandwidth == want.bandwidth);
    CHECK(got.ipv6 == want.ipv6);
    CHECK(got.family == want.family);
  }
}

TEST_CASE("tor make: the authorities' signature message carries the certificate that checks it", "[dir][tor]") {
  const auto d = make_tor_microdesc_consensus(body(), voters());
  const auto& a = auths()[1];
  const std::string item = make_tor_signature_item(d, a.v3ident(), a.signing);
  const std::string text = encode_tor_signature_message(d.signed_digest, a.cert, item);
  auto m = parse_tor_signature_message(text);
  REQUIRE(m);
  CHECK(m->digest == d.signed_digest);
  CHECK(m->cert.v3ident() == a.v3ident());
  CHECK(m->item == item);
  CHECK(m->signature_valid());
  // Claiming another digest: parses, but the signature does not match it.
  auto other = d.signed_digest;
  other[0] ^= 1;
  auto lie = parse_tor_signature_message(encode_tor_signature_message(other, a.cert, item));
  REQUIRE(lie);
  CHECK_FALSE(lie->signature_valid());
  // An item by another authority than the certificate's, or a damaged certificate: refused.
  const std::string foreign = make_tor_signature_item(d, auths()[2].v3ident(), auths()[2].signing);
  CHECK_FALSE(parse_tor_signature_message(encode_tor_signature_message(d.signed_digest, a.cert, foreign)));
  auto broken = a.cert;
  broken[broken.find("fingerprint ") + 12] = broken[broken.find("fingerprint ") + 12] == 'A' ? 'B' : 'A';
  CHECK_FALSE(parse_tor_signature_message(encode_tor_signature_message(d.signed_digest, broken, item)));
  CHECK_FALSE(parse_tor_signature_message(text.substr(0, text.size() - 30)));
  CHECK_FALSE(parse_tor_signature_message("conflux-tor-signature 1 00\n"));
}

namespace {

// Descriptor digests for relay1 and relay3 only: relay2 then has no tor
// descriptor (ours in JSON form), and is left out of the ns flavor.
TorRouterDigests ns_digests(const ConsensusBody& b) {
  TorRouterDigests m;
  for (std::size_t i : {0u, 2u}) {
    std::array<std::uint8_t, 20> d{};
    d.fill(static_cast<std::uint8_t>(0x10 + i));
    m.emplace(b.routers[i].descriptor_digest, d);
  }
  return m;
}

ConsensusBody body_with_digests() {
  auto b = body();
  for (std::size_t i = 0; i < b.routers.size(); ++i) b.routers[i].descriptor_digest.fill(static_cast<std::uint8_t>(i + 1));
  return b;
}

}  // namespace

TEST_CASE("tor make: the ns consensus lists descriptor digests and verifies with SHA-1 signatures", "[dir][tor]") {
  const auto b = body_with_digests();
  const auto d = make_tor_ns_consensus(b, voters(), ns_digests(b));
  CHECK(d.flavor == ConsensusFlavor::Ns);
  CHECK(d.signed_digest.size() == 20);
  CHECK(d.microdescs.empty());
  CHECK(make_tor_ns_consensus(b, voters(), ns_digests(b)).unsigned_text == d.unsigned_text);
  CHECK(d.unsigned_text.starts_with("network-status-version 3\nvote-status consensus\n"));
  CHECK(d.unsigned_text.find("\nm ") == std::string::npos);
  const std::string item = make_tor_signature_item(d, auths()[0].v3ident(), auths()[0].signing);
  CHECK(item.starts_with("directory-signature " + bytes::to_hex(auths()[0].v3ident(), true) + " "));

  auto c = parse_tor_consensus(signed_by(d, {0, 2}));
  REQUIRE(c);
  CHECK(c->flavor == ConsensusFlavor::Ns);
  REQUIRE(c->routers.size() == 2);
  CHECK(c->routers[0].nickname == "relay3");  // ascending RSA identity
  CHECK(c->routers[0].descriptor_digest == ns_digests(b).at(b.routers[2].descriptor_digest));
  CHECK(c->routers[0].published == kVa - 100);  // the descriptor's, not the microdesc flavor's fixed time
  CHECK(c->routers[0].ipv6);
  CHECK(c->routers[0].has_flag("Exit"));
  CHECK(c->routers[1].nickname == "relay1");
  CHECK(std::vector<std::uint8_t>(c->signed_sha1.begin(), c->signed_sha1.end()) == d.signed_digest);
  CHECK(c->signatures.size() == 2);
  CHECK_FALSE(c->signatures[0].sha256);
  auto ok = verify_tor_consensus(*c, certs(), trusted(), kVa + 10);
  REQUIRE(ok);
  CHECK(*ok == 2);
  auto one = parse_tor_consensus(signed_by(d, {1}));
  REQUIRE(one);
  CHECK_FALSE(verify_tor_consensus(*one, certs(), trusted(), kVa + 10));
  // The exit policy summary, reject-all included, as tor writes "p".
  CHECK(d.unsigned_text.find("w Bandwidth=300 Unmeasured=1\np accept 80,443\n") != std::string::npos);
  CHECK(d.unsigned_text.find("w Bandwidth=100 Unmeasured=1\np reject 1-65535\n") != std::string::npos);
}

TEST_CASE("tor make: the signature message carries an ns signature, named by its SHA-1 digest", "[dir][tor]") {
  const auto b = body_with_digests();
  const auto d = make_tor_ns_consensus(b, voters(), ns_digests(b));
  const auto& a = auths()[1];
  const std::string item = make_tor_signature_item(d, a.v3ident(), a.signing);
  auto m = parse_tor_signature_message(encode_tor_signature_message(d.signed_digest, a.cert, item));
  REQUIRE(m);
  CHECK(m->digest == d.signed_digest);
  CHECK(m->signature_valid());
  // A SHA-256 claim with the ns item, or a SHA-1 claim with a microdesc item: refused.
  const auto md = make_tor_microdesc_consensus(b, voters());
  const std::string md_item = make_tor_signature_item(md, a.v3ident(), a.signing);
  CHECK_FALSE(parse_tor_signature_message(encode_tor_signature_message(md.signed_digest, a.cert, item)));
  CHECK_FALSE(parse_tor_signature_message(encode_tor_signature_message(d.signed_digest, a.cert, md_item)));
}
