// Tor's own directory documents, as a stock tor 0.4.9 network served them
// (tests/data/tor/README.md): the meta-format tokenizer, authority key
// certificates and both consensus flavors, verified against the network's
// authorities; and every way a change to them must fail.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_doc.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dir/tor_to_consensus.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(CONFLUX_TEST_DATA_DIR) + "/tor/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

crypto::RsaFingerprint fp(std::string_view hex) {
  auto b = bytes::from_hex(hex);
  REQUIRE(b);
  REQUIRE(b->size() == 20);
  crypto::RsaFingerprint f{};
  std::copy(b->begin(), b->end(), f.begin());
  return f;
}

const std::vector<crypto::RsaFingerprint>& trusted() {
  static const std::vector<crypto::RsaFingerprint> t = {fp("DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5"),
                                                        fp("7AF6249EA0F2AA3F059B541F5ACAF7148B77BA83"),
                                                        fp("AEFA54DAC3D02F2EEE8617F12D7F283D80703D62")};
  return t;
}

// 2026-11-26 00:46:50 UTC: inside both consensuses' validity.
constexpr std::uint64_t kNow = 1795654010;

std::vector<AuthorityKeyCert> certs() {
  auto c = parse_key_certs(fixture("keys-all.txt"));
  REQUIRE(c);
  return std::move(*c);
}

std::size_t ok_count(const DirResult<std::size_t>& r) {
  if (!r) FAIL("verification failed: " << to_string(r.error().code));
  return *r;
}

// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("tor documents: times, base64 and the meta format", "[dir][tor]") {
  CHECK(tordoc::parse_time("1970-01-01", "00:00:00") == 0u);
  CHECK(tordoc::parse_time("2026-11-26", "00:46:40") == 1795654000u);
  CHECK(tordoc::parse_time("2024-02-29", "23:59:59") == 1709251199u);
  CHECK_FALSE(tordoc::parse_time("2025-02-29", "00:00:00"));
  CHECK_FALSE(tordoc::parse_time("2026-13-01", "00:00:00"));
  CHECK_FALSE(tordoc::parse_time("2026-1-01", "00:00:00"));
  CHECK_FALSE(tordoc::parse_time("2026-11-26", "24:00:00"));

  std::pair<std::array<std::uint8_t, 16>, std::uint16_t> a6{};
  CHECK(tordoc::ipv6_orport("[2001:db8::1]:9001", a6));
  CHECK(a6.first[0] == 0x20);
  CHECK(a6.first[15] == 1);
  CHECK(a6.second == 9001);
  for (const char* bad : {"[::1]:0", "::1:9001", "[zz]:1", "[::1]", "[::1]:65536", "[127.0.0.1]:1"}) {
    INFO(bad);
    CHECK_FALSE(tordoc::ipv6_orport(bad, a6));
  }

  CHECK(tordoc::decode_base64_padded("AAE=") == std::vector<std::uint8_t>{0, 1});
  CHECK(tordoc::decode_base64_padded("AAE") == std::vector<std::uint8_t>{0, 1});
  CHECK_FALSE(tordoc::decode_base64_padded("AA=E"));
  CHECK_FALSE(tordoc::decode_base64_padded("AAF="));  // spare bits set

  auto ok = tordoc::tokenize("a 1  2\tthree\nopt b\nobj\n-----BEGIN X Y-----\nAAE=\n-----END X Y-----\n");
  REQUIRE(ok);
  REQUIRE(ok->size() == 3);
  CHECK((*ok)[0].args == std::vector<std::string_view>{"1", "2", "three"});
  CHECK((*ok)[1].keyword == "b");
  CHECK((*ok)[2].object->type == "X Y");
  CHECK((*ok)[2].object->data == std::vector<std::uint8_t>{0, 1});
  CHECK((*ok)[2].offset == 19);

  for (const char* bad : {"a\nb",                                                    // no final newline
                          "a_b 1\n",                                                  // keyword character
                          "a \x01\n",                                                 // control character
                          "a\n-----BEGIN X-----\nAAE=\n-----END Y-----\n",            // mismatched END
                          "a\n-----BEGIN X-----\nAAE=\n",                             // unterminated
                          "a\n-----BEGIN  X-----\nAAE=\n-----END  X-----\n",          // double space
                          "a\n-----BEGIN X-----\n\n-----END X-----\n"}) {            // empty line
    INFO(bad);
    CHECK_FALSE(tordoc::tokenize(bad));
  }
}

TEST_CASE("tor documents: the authorities' key certificates verify", "[dir][tor]") {
  const auto c = certs();
  REQUIRE(c.size() == 3);
  std::vector<crypto::RsaFingerprint> ids;
  for (const auto& k : c) {
    ids.push_back(k.v3ident());
    CHECK(k.identity.bits() == 3072);  // tor-gencert's authority identity
    CHECK(k.signing.bits() == 2048);
    CHECK(key_cert_current(k, kNow));
    CHECK_FALSE(key_cert_current(k, k.expires));
    CHECK(k.dir_address.has_value());
  }
  std::sort(ids.begin(), ids.end());
  auto want = trusted();
  std::sort(want.begin(), want.end());
  CHECK(ids == want);

  const auto text = fixture("keys-all.txt");
  SECTION("a changed byte in the signed part breaks the certification") {
    auto r = parse_key_certs(replaced(text, "dir-address 127.0.0.1:19100", "dir-address 127.0.0.1:19109"));
    REQUIRE_FALSE(r);
    CHECK(r.error() == DirError{DirErrc::BadSignature, "dir-key-certification"});
  }
  SECTION("a fingerprint that is not the identity key's") {
    auto r = parse_key_certs(replaced(text, "fingerprint DB8E", "fingerprint DB8F"));
    REQUIRE_FALSE(r);
    CHECK(r.error().code == DirErrc::CertMismatch);
  }
  SECTION("another certificate's cross-certificate") {
    // The second certificate's crosscert object pasted into the first.
    const auto first = text.find("-----BEGIN ID SIGNATURE-----");
    const auto second = text.find("-----BEGIN ID SIGNATURE-----", first + 1);
    const auto len = text.find("-----END ID SIGNATURE-----", first) - first;
    auto swapped = text;
    swapped.replace(first, len, text.substr(second, len));
    auto r = parse_key_certs(swapped);
    REQUIRE_FALSE(r);
    CHECK(r.error() == DirError{DirErrc::BadSignature, "dir-key-crosscert"});
  }
  SECTION("a missing or repeated item") {
    CHECK(parse_key_certs(replaced(text, "dir-key-expires", "dir-key-expirez")).error() ==
          DirError{DirErrc::MissingField, "dir-key-expires"});
    CHECK(parse_key_certs(replaced(text, "dir-key-expires", "dir-key-published")).error() ==
          DirError{DirErrc::DuplicateKey, "dir-key-published"});
    CHECK_FALSE(parse_key_certs(""));
    CHECK_FALSE(parse_key_certs(text.substr(0, text.size() / 2)));
  }
}

TEST_CASE("tor documents: the microdesc consensus parses and verifies", "[dir][tor]") {
  const auto text = fixture("consensus-microdesc.txt");
  auto c = parse_tor_consensus(text);
  REQUIRE(c);
  CHECK(c->flavor == ConsensusFlavor::Microdesc);
  CHECK(c->consensus_method == 35);
  CHECK(c->valid_after == *tordoc::parse_time("2026-11-26", "00:46:40"));
  CHECK(c->valid_until - c->valid_after == 40);
  CHECK(c->params.at("cc_alg") == 2);
  CHECK(c->params.at("cc_vegas_alpha_exit") == 186);
  CHECK(c->bandwidth_weights.at("Wgg") == 10000);
  CHECK(c->dir_sources.size() == 3);
  REQUIRE(c->routers.size() == 9);
  const auto exit1 = std::find_if(c->routers.begin(), c->routers.end(), [](const auto& r) { return r.nickname == "exit1"; });
  REQUIRE(exit1 != c->routers.end());
  CHECK(exit1->has_flag("Exit"));
  CHECK_FALSE(exit1->has_flag("Guard"));
  CHECK(exit1->ipv4 == std::array<std::uint8_t, 4>{127, 0, 0, 1});
  CHECK(exit1->or_port == 19008);
  CHECK(exit1->version == "Tor 0.4.9.11");
  CHECK(exit1->protocols.find("Conflux=1") != std::string::npos);

  CHECK(ok_count(verify_tor_consensus(*c, certs(), trusted(), kNow)) == 3u);

  SECTION("every m line is the SHA-256 of one of the served microdescriptors") {
    const auto mds = fixture("microdescs.txt");
    std::vector<std::array<std::uint8_t, 32>> digests;
    for (std::size_t at = 0; at < mds.size();) {
      auto next = mds.find("\nonion-key\n", at);
      next = next == std::string::npos ? mds.size() : next + 1;
      digests.push_back(crypto::sha256({reinterpret_cast<const std::uint8_t*>(mds.data()) + at, next - at}));
      at = next;
    }
    for (const auto& r : c->routers)
      CHECK(std::find(digests.begin(), digests.end(), r.microdesc_digest) != digests.end());
  }
  SECTION("a changed relay, time or signature fails") {
    auto changed = parse_tor_consensus(replaced(text, "127.0.0.1 19008", "127.0.0.1 19009"));
    REQUIRE(changed);
    CHECK(verify_tor_consensus(*changed, certs(), trusted(), kNow).error().code == DirErrc::NotEnoughSignatures);
    CHECK(verify_tor_consensus(*c, certs(), trusted(), c->valid_until + 1).error().code == DirErrc::Expired);
    CHECK(verify_tor_consensus(*c, certs(), trusted(), c->valid_after - 1).error().code == DirErrc::FromFuture);
    CHECK(ok_count(verify_tor_consensus(*c, certs(), trusted(), c->valid_after - 1, 60)) == 3u);
  }
  SECTION("signatures count only for trusted authorities with a current certificate") {
    auto seven = trusted();  // three of seven trusted authorities signed: not a majority
    for (const char* other : {"00", "01", "02", "03"}) seven.push_back(fp(std::string(38, '0') + other));
    CHECK(verify_tor_consensus(*c, certs(), seven, kNow).error().code == DirErrc::NotEnoughSignatures);
    seven.pop_back();  // three of six: still not
    CHECK(verify_tor_consensus(*c, certs(), seven, kNow).error().code == DirErrc::NotEnoughSignatures);
    seven.pop_back();  // three of five
    CHECK(ok_count(verify_tor_consensus(*c, certs(), seven, kNow)) == 3u);
    auto repeated = trusted();
    repeated.push_back(repeated[1]);
    CHECK(ok_count(verify_tor_consensus(*c, certs(), repeated, kNow)) == 3u);
    auto forged = *c;
    forged.signatures[0].signature[100] ^= 1;
    forged.signatures.push_back(forged.signatures[0]);  // the same authority twice counts once
    CHECK(ok_count(verify_tor_consensus(forged, certs(), trusted(), kNow)) == 2u);
    auto one_cert = certs();
    one_cert.erase(one_cert.begin() + 1, one_cert.end());
    CHECK(verify_tor_consensus(*c, one_cert, trusted(), kNow).error().code == DirErrc::NotEnoughSignatures);
    CHECK(verify_tor_consensus(*c, {}, trusted(), kNow).error().code == DirErrc::NotEnoughSignatures);
    CHECK(verify_tor_consensus(*c, certs(), {}, kNow).error().code == DirErrc::NoAuthorities);
  }
  SECTION("structure") {
    CHECK(parse_tor_consensus(replaced(text, "vote-status consensus", "vote-status vote")).error() ==
          DirError{DirErrc::BadValue, "vote-status"});
    CHECK(parse_tor_consensus(replaced(text, "directory-footer\n", "")).error() ==
          DirError{DirErrc::MissingField, "directory-footer"});
    CHECK(parse_tor_consensus(replaced(text, "params ", "params x=1 ")).has_value());
    CHECK(parse_tor_consensus(replaced(text, "params ", "params cc_alg=1 ")).error() ==
          DirError{DirErrc::BadValue, "params"});  // repeated key
    CHECK_FALSE(parse_tor_consensus(text.substr(0, text.find("directory-signature"))));
  }
}

TEST_CASE("tor documents: the ns consensus (SHA-1 signatures) verifies", "[dir][tor]") {
  auto c = parse_tor_consensus(fixture("consensus-ns.txt"));
  REQUIRE(c);
  CHECK(c->flavor == ConsensusFlavor::Ns);
  CHECK(c->routers.size() == 9);
  CHECK(c->signatures.size() == 3);
  CHECK_FALSE(c->signatures[0].sha256);
  CHECK(ok_count(verify_tor_consensus(*c, certs(), trusted(), kNow)) == 3u);
}

TEST_CASE("tor documents: microdescriptors parse, and their digests are the consensus's m lines", "[dir][tor]") {
  const auto text = fixture("microdescs.txt");
  auto mds = parse_tor_microdescs(text);
  REQUIRE(mds);
  REQUIRE(mds->size() == 9);
  auto c = parse_tor_consensus(fixture("consensus-microdesc.txt"));
  REQUIRE(c);
  for (const auto& r : c->routers) {
    INFO(r.nickname);
    const auto md = std::find_if(mds->begin(), mds->end(), [&](const auto& m) { return m.digest == r.microdesc_digest; });
    REQUIRE(md != mds->end());
    CHECK(md->ed25519_id.has_value());
    CHECK(md->ipv4_policy.allows_port(80) == r.has_flag("Exit"));
  }
  SECTION("one without its RSA onion key starts at ntor-onion-key") {
    const auto first_end = text.find("onion-key\n", 1);
    const std::string lone = text.substr(text.find("ntor-onion-key"), first_end - text.find("ntor-onion-key"));
    auto two = parse_tor_microdescs(lone + lone);
    REQUIRE(two);
    CHECK(two->size() == 2);
    CHECK((*two)[0].ntor_onion_key == (*mds)[0].ntor_onion_key);
  }
  SECTION("an onion-key item without its key (proposal 350) still starts one") {
    const auto first_end = text.find("onion-key\n", 1);
    const std::string bare = "onion-key\n" + text.substr(text.find("ntor-onion-key"), first_end - text.find("ntor-onion-key"));
    auto two = parse_tor_microdescs(bare + bare);
    REQUIRE(two);
    CHECK(two->size() == 2);
    CHECK((*two)[1].text == bare);
  }
  SECTION("malformed ones fail") {
    CHECK(parse_tor_microdescs(replaced(text, "ntor-onion-key ", "ntor-onion-key A")).error().field == "ntor-onion-key");
    CHECK(parse_tor_microdescs("onion-key x\nntor-onion-key " + std::string(43, 'A') + "\n").error().field == "onion-key");
    CHECK(parse_tor_microdescs(replaced(text, "p accept 1-65535", "p accept 1-65536")).error().field == "p");
    CHECK(parse_tor_microdescs("id ed25519 AAAA\n").error().code == DirErrc::MissingField);
    CHECK_FALSE(parse_tor_microdescs(""));
  }
}

TEST_CASE("tor documents: a tor consensus becomes the one our path selection reads", "[dir][tor]") {
  auto c = parse_tor_consensus(fixture("consensus-microdesc.txt"));
  auto mds = parse_tor_microdescs(fixture("microdescs.txt"));
  REQUIRE(c);
  REQUIRE(mds);
  auto conv = consensus_from_tor(*c, *mds);
  CHECK(conv.missing_microdesc == 0);
  CHECK(conv.missing_ed25519 == 0);
  const auto& routers = conv.body.routers;
  REQUIRE(routers.size() == 9);
  CHECK(std::is_sorted(routers.begin(), routers.end(), [](const auto& a, const auto& b) { return a.identity < b.identity; }));
  CHECK(conv.body.params.at("cc_alg") == 2);
  REQUIRE(conv.body.bandwidth_weights.has_value());
  CHECK(conv.body.bandwidth_weights->wgg == 10000);
  std::size_t exits = 0, guards = 0;
  for (const auto& r : routers) {
    INFO(r.nickname);
    REQUIRE(r.rsa_identity.has_value());
    const auto st = std::find_if(c->routers.begin(), c->routers.end(), [&](const auto& s) { return s.identity == *r.rsa_identity; });
    REQUIRE(st != c->routers.end());
    CHECK(st->nickname == r.nickname);
    CHECK(r.flags.exit == st->has_flag("Exit"));
    CHECK(r.flags.running);
    CHECK(parse_policy_summary(r.exit_policy).has_value());
    exits += r.flags.exit;
    guards += r.flags.guard;
  }
  CHECK(exits == 2);
  CHECK(guards >= 2);

  SECTION("relays without their microdescriptor are left out and counted") {
    std::vector<TorMicrodesc> some(mds->begin(), mds->begin() + 4);
    auto part = consensus_from_tor(*c, some);
    CHECK(part.body.routers.size() == 4);
    CHECK(part.missing_microdesc == 5);
  }
}
