// The tor-format side of an authority without sockets: its keys in the
// DataDirectory, three authorities building tor's consensus from one body
// and exchanging signatures (early ones too) until a majority publishes,
// and what the DirPort serves at tor's paths.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "conflux/keys/key_file.hpp"

using namespace conflux;
using namespace conflux::dirnet;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kVa = 1'795'000'020;
constexpr std::uint64_t kNow = kVa + 2;

struct TempDir {
  fs::path root;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "conflux-torauth-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

// Three authorities' keys, made once (RSA-3072 generation is slow under ASan).
std::vector<TorAuthorityKeys>& all_keys() {
  static std::vector<TorAuthorityKeys> keys = [] {
    TempDir t;
    std::vector<TorAuthorityKeys> out;
    for (int i = 0; i < 3; ++i) {
      auto k = load_or_create_tor_authority_keys(t.root / ("a" + std::to_string(i)), kVa - 100);
      if (!k) FAIL(k.error().message());
      out.push_back(std::move(*k));
    }
    return out;
  }();
  return keys;
}

std::vector<dir::TorVoter> voters() {
  std::vector<dir::TorVoter> v;
  for (std::size_t i = 0; i < 3; ++i)
    v.push_back({"auth" + std::to_string(i), all_keys()[i].v3ident(), "127.0.0.1", static_cast<std::uint16_t>(7000 + i),
                 static_cast<std::uint16_t>(6000 + i), "x@conflux.invalid"});
  return v;
}

dir::ConsensusBody body(std::uint64_t bw = 50) {
  dir::ConsensusBody b;
  b.valid_after = kVa;
  b.fresh_until = kVa + 20;
  b.valid_until = kVa + 60;
  for (std::uint8_t n = 1; n <= 3; ++n) {
    dir::RouterEntry r;
    r.identity.fill(n);
    r.nickname = "r" + std::to_string(n);
    r.ipv4 = {127, 0, 0, 1};
    r.or_port = static_cast<std::uint16_t>(9000 + n);
    r.flags = {false, true, true, true, true, true};
    r.bandwidth = bw;
    r.ntor_onion_key.fill(n);
    r.exit_policy = "reject 1-65535";
    r.protocols = "Link=4-5 Relay=2-4";
    r.rsa_identity = crypto::RsaFingerprint{};
    r.rsa_identity->fill(n);
    b.routers.push_back(r);
  }
  return b;
}

std::vector<crypto::RsaFingerprint> trusted() {
  std::vector<crypto::RsaFingerprint> t;
  for (const auto& k : all_keys()) t.push_back(k.v3ident());
  return t;
}

}  // namespace

TEST_CASE("tor authority keys: made once under tor's names, the certificate renewed when it ages", "[dirnet][tor]") {
  TempDir t;
  auto first = load_or_create_tor_authority_keys(t.root / "data", kVa);
  REQUIRE(first);
  for (auto name : {kAuthorityIdentityFile, kAuthoritySigningFile, kAuthorityCertFile})
    CHECK(fs::exists(t.root / "data" / "keys" / name));
  CHECK(first->identity.bits() == 3072);
  CHECK(first->signing.bits() == 2048);
  auto certs = dir::parse_key_certs(first->certificate);
  REQUIRE(certs);
  CHECK((*certs)[0].v3ident() == first->v3ident());

  auto again = load_or_create_tor_authority_keys(t.root / "data", kVa + 86400);
  REQUIRE(again);
  CHECK(again->certificate == first->certificate);
  // Within the renewal margin of expiry: same identity, new signing key and certificate.
  auto later = load_or_create_tor_authority_keys(t.root / "data", kVa + 340 * 86400);
  REQUIRE(later);
  CHECK(later->v3ident() == first->v3ident());
  CHECK(later->signing.public_key().fingerprint() != first->signing.public_key().fingerprint());
  CHECK(later->certificate != first->certificate);
  // A damaged identity is an error, never replaced.
  const std::string junk = "junk\n";
  REQUIRE(!keys::write_raw_key_file(t.root / "data" / "keys" / kAuthorityIdentityFile,
                                    {reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()}));
  CHECK_FALSE(load_or_create_tor_authority_keys(t.root / "data", kVa));
}

TEST_CASE("tor authority state: three authorities sign one document, a majority publishes", "[dirnet][tor]") {
  std::vector<std::unique_ptr<TorAuthorityState>> s;
  for (auto& k : all_keys()) s.push_back(std::make_unique<TorAuthorityState>(k, voters()));

  // auth2's signature arrives at auth0 before auth0 built: kept, applied at build.
  const std::string m2 = s[2]->build(body(), kNow);
  CHECK(s[0]->add_signature(m2, kNow) == TorSignatureStatus::OtherBody);
  CHECK_FALSE(s[0]->consensus(kNow));
  const std::string m0 = s[0]->build(body(), kNow);
  REQUIRE(s[0]->consensus(kNow));  // 2 of 3
  CHECK(s[0]->signature_count() == 2);
  const std::string m1 = s[1]->build(body(), kNow);
  CHECK_FALSE(s[1]->consensus(kNow));
  CHECK(s[1]->add_signature(m0, kNow) == TorSignatureStatus::Added);
  REQUIRE(s[1]->consensus(kNow));
  CHECK(s[0]->add_signature(m1, kNow) == TorSignatureStatus::Added);
  CHECK(s[0]->signature_count() == 3);

  auto c = dir::parse_tor_consensus(*s[0]->consensus(kNow));
  REQUIRE(c);
  auto certs = dir::parse_key_certs(s[0]->key_certs());
  REQUIRE(certs);
  CHECK(certs->size() == 3);
  auto ok = dir::verify_tor_consensus(*c, *certs, trusted(), kNow);
  REQUIRE(ok);
  CHECK(*ok == 3);
  CHECK_FALSE(s[0]->consensus(kVa + 61));  // past valid-until

  // Refused: our own, a replay onto another body, a damaged signature, a stranger.
  CHECK(s[0]->add_signature(m0, kNow) == TorSignatureStatus::Invalid);
  auto bad = m1;
  bad[bad.size() - 40] = bad[bad.size() - 40] == 'A' ? 'B' : 'A';
  CHECK(s[0]->add_signature(bad, kNow) == TorSignatureStatus::Invalid);
  CHECK(s[0]->add_signature("conflux-tor-signature 1 00\n", kNow) == TorSignatureStatus::Invalid);
  const auto everyone = voters();
  std::vector<dir::TorVoter> two(everyone.begin(), everyone.begin() + 2);
  TorAuthorityState narrow(all_keys()[0], two);
  (void)narrow.build(body(), kNow);
  CHECK(narrow.add_signature(m2, kNow) == TorSignatureStatus::Invalid);
  // A signature on another body waits (409) rather than counting.
  TorAuthorityState other(all_keys()[2], voters());
  const std::string m_other = other.build(body(51), kNow);
  CHECK(s[1]->add_signature(m_other, kNow) == TorSignatureStatus::OtherBody);
}

TEST_CASE("tor authority routes: tor's paths serve certificates, the consensus and microdescriptors", "[dirnet][tor]") {
  TorAuthorityState a(all_keys()[0], voters());
  TorAuthorityState b(all_keys()[1], voters());
  DirRoutes routes;
  CHECK(routes.handle(HttpMethod::Get, dir::kTorKeysAll, "", kNow).status == 404);  // not a tor authority
  routes.set_tor_authority(&a);
  CHECK(routes.handle(HttpMethod::Get, dir::kTorConsensusMicrodesc, "", kNow).status == 404);  // nothing yet
  (void)a.build(body(), kNow);
  const auto post = routes.handle(HttpMethod::Post, dir::kTorConsensusSignature, b.build(body(), kNow), kNow);
  CHECK(post.status == 200);
  CHECK(routes.handle(HttpMethod::Get, dir::kTorConsensusSignature, "", kNow).status == 405);

  const auto cons = routes.handle(HttpMethod::Get, std::string(dir::kTorConsensusMicrodesc) + "/ABCD+EF01", "", kNow);
  REQUIRE(cons.status == 200);
  auto c = dir::parse_tor_consensus(cons.body);
  REQUIRE(c);
  std::string path(dir::kTorMicrodescPrefix);
  for (std::size_t i = 0; i < c->routers.size(); ++i)
    path += (i ? "-" : "") + bytes::base64_encode(c->routers[i].microdesc_digest);
  const auto mds = routes.handle(HttpMethod::Get, path, "", kNow);
  REQUIRE(mds.status == 200);
  auto parsed = dir::parse_tor_microdescs(mds.body);
  REQUIRE(parsed);
  CHECK(parsed->size() == 3);
  CHECK(routes.handle(HttpMethod::Get, std::string(dir::kTorMicrodescPrefix) + "AAAA", "", kNow).status == 404);

  CHECK(routes.handle(HttpMethod::Get, dir::kTorKeysAuthority, "", kNow).body == all_keys()[0].certificate);
  auto all = dir::parse_key_certs(routes.handle(HttpMethod::Get, dir::kTorKeysAll, "", kNow).body);
  REQUIRE(all);
  CHECK(all->size() == 2);  // ours and the one a signature brought
  const auto fp = routes.handle(HttpMethod::Get,
                                std::string(dir::kTorKeysFpPrefix) + bytes::to_hex(all_keys()[1].v3ident(), true), "", kNow);
  REQUIRE(fp.status == 200);
  CHECK(fp.body == all_keys()[1].certificate);
  CHECK(routes.handle(HttpMethod::Get, std::string(dir::kTorKeysFpPrefix) + "XYZ", "", kNow).status == 400);
  CHECK(routes.handle(HttpMethod::Get, std::string(dir::kTorKeysFpPrefix) + bytes::to_hex(all_keys()[2].v3ident(), true), "", kNow).status == 404);
}

TEST_CASE("tor authority state: the ns flavor is signed with SHA-1, combined and served beside the microdesc one",
          "[dirnet][tor]") {
  dir::TorRouterDigests digests;
  auto b = body();
  for (std::size_t i = 0; i < b.routers.size(); ++i) {
    b.routers[i].descriptor_digest.fill(static_cast<std::uint8_t>(i + 1));
    std::array<std::uint8_t, 20> d{};
    d.fill(static_cast<std::uint8_t>(0xa0 + i));
    digests.emplace(b.routers[i].descriptor_digest, d);
  }
  TorAuthorityState a(all_keys()[0], voters());
  TorAuthorityState c(all_keys()[2], voters());
  DirRoutes routes;
  routes.set_tor_authority(&a);
  CHECK(routes.handle(HttpMethod::Get, dir::kTorConsensusNs, "", kNow).status == 404);  // nothing yet
  (void)a.build(b, kNow);
  const std::string a_ns_msg = a.build_ns(b, digests, kNow);
  CHECK_FALSE(a.ns_consensus(kNow));  // 1 of 3
  // c's ns signature names a 20-byte digest: it goes to the ns document, not the microdesc one.
  const std::string ns_msg = c.build_ns(b, digests, kNow);
  CHECK(routes.handle(HttpMethod::Post, dir::kTorConsensusSignature, ns_msg, kNow).status == 200);
  CHECK(a.ns_signature_count() == 2);
  CHECK(a.signature_count() == 1);
  CHECK_FALSE(a.consensus(kNow));
  CHECK(routes.handle(HttpMethod::Get, dir::kTorConsensusMicrodesc, "", kNow).status == 404);

  const auto served = routes.handle(HttpMethod::Get, std::string(dir::kTorConsensusNs) + "/ABCD+EF01", "", kNow);
  REQUIRE(served.status == 200);
  CHECK(served.body == *a.ns_consensus(kNow));
  auto ns = dir::parse_tor_consensus(served.body);
  REQUIRE(ns);
  CHECK(ns->flavor == dir::ConsensusFlavor::Ns);
  REQUIRE(ns->routers.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(ns->routers[i].descriptor_digest == digests.at(b.routers[i].descriptor_digest));
  auto certs = dir::parse_key_certs(a.key_certs());
  REQUIRE(certs);
  auto ok = dir::verify_tor_consensus(*ns, *certs, trusted(), kNow);
  REQUIRE(ok);
  CHECK(*ok == 2);

  // Another authority that adopted the microdesc one takes this ns one as fetched.
  TorAuthorityState late(all_keys()[1], voters());
  CHECK_FALSE(late.adopt_ns(served.body, kNow));  // it holds no certificate of the signers yet
  (void)late.add_signature(ns_msg, kNow);        // (any message brings its signer's certificate)
  (void)late.add_signature(a_ns_msg, kNow);
  CHECK(late.adopt_ns(served.body, kNow));
  CHECK(late.ns_consensus(kNow) == served.body);
  CHECK_FALSE(late.adopt_ns(served.body, kNow));  // not newer
  // A microdesc document is not an ns one.
  (void)a.add_signature(c.build(b, kNow), kNow);
  REQUIRE(a.consensus(kNow));
  TorAuthorityState fresh(all_keys()[1], voters());
  (void)fresh.add_signature(ns_msg, kNow);
  CHECK_FALSE(fresh.adopt_ns(*a.consensus(kNow), kNow));
}
