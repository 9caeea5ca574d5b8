// tor's server descriptors as a stock tor 0.4.9 network served them
// (tests/data/tor/server-descriptors.txt, /tor/server/all): both signatures,
// the Ed25519 identity certificate and the ntor key's cross-certificate
// verify; each change a forger could make is refused.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/x25519_to_ed25519.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_relay_facts.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

std::string fixture() {
  std::ifstream in(std::string(CONFLUX_TEST_DATA_DIR) + "/tor/server-descriptors.txt", std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// 2026-11-26 00:46:50 UTC, when the network served them.
constexpr std::uint64_t kNow = 1795654010;

// The descriptor of `nick` alone.
std::string one(const std::string& nick) {
  const auto all = fixture();
  const auto at = all.find("router " + nick + " ");
  REQUIRE(at != std::string::npos);
  const auto end = all.find("-----END SIGNATURE-----\n", at);
  REQUIRE(end != std::string::npos);
  return all.substr(at, end + 24 - at);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// "RATE BURST OBSERVED IPV6|- POLICY", or the error's name.
std::string summarize_tor_descriptor_facts(const std::string& text, std::uint16_t or_port) {
  auto f = parse_tor_relay_facts(text, or_port);
  if (!f) return std::string(to_string(f.error().code));
  std::string v6 = "-";
  if (f->ipv6) v6 = "[" + format_ipv6(*f->ipv6) + "]";
  return std::to_string(f->bandwidth_rate) + " " + std::to_string(f->bandwidth_burst) + " " +
         std::to_string(f->bandwidth_observed) + " " + v6 + " " + f->exit_policy;
}

DirError error_of(const DirResult<TorServerDescriptor>& r) {
  REQUIRE_FALSE(r);
  return r.error();
}

}  // namespace

TEST_CASE("tor server descriptors: all nine of a stock network verify", "[dir][tor]") {
  auto all = parse_tor_server_descriptors(fixture(), kNow);
  if (!all) FAIL(to_string(all.error().code) << " at " << all.error().field);
  REQUIRE(all->size() == 9);
  for (const auto& d : *all) {
    INFO(d.nickname);
    // The fingerprint line (not used by the parser) agrees with the key.
    const auto fp_at = d.text.find("\nfingerprint ");
    REQUIRE(fp_at != std::string::npos);
    std::string hex = d.text.substr(fp_at + 13, 49);
    std::erase(hex, ' ');
    CHECK(bytes::to_hex(d.rsa_identity) == bytes::to_hex(*bytes::from_hex(hex)));
    CHECK(d.tunnelled_dir_server);
    CHECK(d.platform == "Tor 0.4.9.11 on Linux");
  }
}

TEST_CASE("tor server descriptors: one relay's fields", "[dir][tor]") {
  auto d = parse_tor_server_descriptor(one("middle1"), kNow);
  if (!d) FAIL(to_string(d.error().code) << " at " << d.error().field);
  CHECK(d->nickname == "middle1");
  CHECK(d->ipv4 == std::array<std::uint8_t, 4>{127, 0, 0, 1});
  CHECK(d->or_port == 19006);
  CHECK(d->dir_port == 0);
  CHECK(bytes::to_hex(d->rsa_identity) == "7f4fe299feb00f601f14ff646c594f3c207e3aae");
  CHECK(bytes::base64_encode(d->ed25519_identity) == "Nsn9FXa6R25NrdAoAKNiGJeJOPXMAF0s4rsAQYFB6T8");
  CHECK(bytes::base64_encode(d->ntor_onion_key) == "P8Ylu7qEW3R2ZdPZv9UL3PEcLQsSKKFO7NpfxrpD5j4");
  CHECK(d->published == 1795653982);  // 2026-11-26 00:46:22
  CHECK(d->protocols.find("Conflux=1") == 0);
  auto auth = parse_tor_server_descriptor(one("auth0"), kNow);
  REQUIRE(auth);
  CHECK(auth->dir_port == 19100);
}

TEST_CASE("tor server descriptors: what an authority lists (bandwidth, exit policy summary)", "[dir][tor]") {
  auto middle = parse_tor_server_descriptor(one("middle1"), kNow);
  REQUIRE(middle);
  CHECK(middle->facts.bandwidth_rate == 1073741824);
  CHECK(middle->facts.bandwidth_burst == 1073741824);
  CHECK(middle->facts.bandwidth_observed == 950);
  CHECK(middle->facts.exit_policy == "reject 1-65535");  // "reject *:*"
  CHECK_FALSE(middle->facts.ipv6);
  auto exit = parse_tor_server_descriptor(one("exit0"), kNow);
  REQUIRE(exit);
  CHECK(exit->facts.bandwidth_observed == 1863);
  CHECK(exit->facts.exit_policy == "accept 1-65535");  // "accept *:*"
}

TEST_CASE("tor server descriptors: the exit policy summary is tor's policy_summarize", "[dir][tor]") {
  // The lines are inside the signed text: a changed policy fails the
  // signatures, so the facts are read from made-up lines instead.
  const std::string text =
      "bandwidth 100 200 300 400\n"
      "or-address 127.0.0.2:9001\n"
      "or-address [2001:db8::1]:9002\n"
      "or-address [2001:db8::2]:9001\n"
      "reject 10.0.0.0/8:*\n"
      "reject 0.0.0.0/0:25\n"
      "accept *:80\n"
      "accept *:443\n"
      "accept 1.2.3.4:22\n"
      "reject *:*\n";
  CHECK(summarize_tor_descriptor_facts(text, 9001) == "100 200 300 [2001:db8::2] accept 80,443");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2 3\n", 9001) == "1 2 3 - reject 1-65535");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2 3\naccept *:*\nreject *:25\n", 9001) ==
        "1 2 3 - accept 1-65535");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2 3\nreject 127.0.0.1:*\naccept *:*\n", 9001) ==
        "1 2 3 - accept 1-65535");  // a reject of one address does not count (tor's cut-off)
  CHECK(summarize_tor_descriptor_facts("bandwidth 99999999999999999 2 3\n", 9001) ==
        "1099511627776 2 3 - reject 1-65535");  // capped at 2^40
  CHECK(summarize_tor_descriptor_facts("accept *:80\n", 9001) == "missing field");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2\n", 9001) == "field value out of range or syntax");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2 3\naccept *:0\n", 9001) == "field value out of range or syntax");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2 3\naccept *:80 x\n", 9001) == "field value out of range or syntax");
  CHECK(summarize_tor_descriptor_facts("bandwidth 1 2 3\nor-address [::1:9001\n", 9001) == "field value out of range or syntax");
}

TEST_CASE("tor server descriptors: the declared family, by fingerprint only", "[dir][tor]") {
  const std::string a = "4352E58420E68F5E40BF7C74FADDCCD9D1349413", b = "0011223344556677889900AABBCCDDEEFF001122";
  auto f = parse_tor_relay_facts("bandwidth 1 2 3\nfamily $" + a + " someNick $" + b + "~other $" + a +
                                     "=again $" + b.substr(0, 39) + " $" + b + "x\n",
                                 9001);
  REQUIRE(f);
  // Ascending, each once; nicknames and malformed members skipped.
  REQUIRE(f->family.size() == 2);
  CHECK(conflux::bytes::to_hex(f->family[0], true) == b);
  CHECK(conflux::bytes::to_hex(f->family[1], true) == a);
  auto none = parse_tor_relay_facts("bandwidth 1 2 3\n", 9001);
  REQUIRE(none);
  CHECK(none->family.empty());
  auto twice = parse_tor_relay_facts("bandwidth 1 2 3\nfamily $" + a + "\nfamily $" + b + "\n", 9001);
  REQUIRE_FALSE(twice);
  CHECK(twice.error().code == DirErrc::DuplicateKey);
  CHECK(family_member_fingerprint("$" + a) == f->family[1]);
  CHECK_FALSE(family_member_fingerprint(a));  // tor writes the '$'
  CHECK_FALSE(family_member_fingerprint("$" + a + "-x"));
  // The middle of the stock network declares none.
  auto middle = parse_tor_server_descriptor(one("middle1"), kNow);
  REQUIRE(middle);
  CHECK(middle->facts.family.empty());
}

TEST_CASE("tor server descriptors: a changed text fails the Ed25519 signature", "[dir][tor]") {
  const auto text = one("middle1");
  auto e = error_of(parse_tor_server_descriptor(replaced(text, "contact middle1@", "contact middle2@"), kNow));
  CHECK(e == DirError{DirErrc::BadSignature, "router-sig-ed25519"});
  e = error_of(parse_tor_server_descriptor(replaced(text, "router middle1 127.0.0.1 19006", "router middle1 127.0.0.1 19007"), kNow));
  CHECK(e == DirError{DirErrc::BadSignature, "router-sig-ed25519"});
  // Another relay's ntor key, with this one's cross-certificate.
  auto other = parse_tor_server_descriptor(one("guard0"), kNow);
  REQUIRE(other);
  e = error_of(parse_tor_server_descriptor(
      replaced(text, "P8Ylu7qEW3R2ZdPZv9UL3PEcLQsSKKFO7NpfxrpD5j4", bytes::base64_encode(other->ntor_onion_key)), kNow));
  CHECK(e.code == DirErrc::BadSignature);
}

TEST_CASE("tor server descriptors: the RSA signature, which the Ed25519 one does not cover", "[dir][tor]") {
  const auto text = one("middle1");
  const auto sig_at = text.find("-----BEGIN SIGNATURE-----\n") + 26;
  std::string forged = text;
  forged[sig_at] = forged[sig_at] == 'A' ? 'B' : 'A';
  CHECK(error_of(parse_tor_server_descriptor(forged, kNow)) == DirError{DirErrc::BadSignature, "router-signature"});
}

TEST_CASE("tor server descriptors: expiry, shape and size", "[dir][tor]") {
  const auto text = one("middle1");
  // Ten years on, the identity certificate has expired.
  CHECK(error_of(parse_tor_server_descriptor(text, kNow + 10ULL * 365 * 86400)).code == DirErrc::CertExpired);
  CHECK(error_of(parse_tor_server_descriptor(text + one("guard0"), kNow)).code == DirErrc::TooManyEntries);
  CHECK(error_of(parse_tor_server_descriptor(replaced(text, "router-sig-ed25519", "router-sig-ed25520"), kNow)) ==
        DirError{DirErrc::MissingField, "router-sig-ed25519"});
  CHECK(error_of(parse_tor_server_descriptor(replaced(text, "ntor-onion-key P8", "ntor-onion-kez P8"), kNow)) ==
        DirError{DirErrc::MissingField, "ntor-onion-key"});
  CHECK(error_of(parse_tor_server_descriptor(std::string(kMaxTorServerDescriptorSize + 1, 'a'), kNow)).code ==
        DirErrc::TooLarge);
  CHECK(error_of(parse_tor_server_descriptor("", kNow)).code == DirErrc::MissingField);
}

TEST_CASE("x25519 to ed25519: the sign bit is the top bit, u = -1 has no image", "[dir][tor][crypto]") {
  crypto::X25519Public u{};
  u[0] = 9;  // the base point: its Ed25519 form is the Ed25519 base point (y = 4/5)
  auto zero = crypto::ed25519_from_x25519(u, 0);
  auto one_bit = crypto::ed25519_from_x25519(u, 1);
  REQUIRE(zero);
  REQUIRE(one_bit);
  CHECK(bytes::to_hex(*zero) == "5866666666666666666666666666666666666666666666666666666666666666");
  CHECK((*one_bit)[31] == ((*zero)[31] | 0x80));
  crypto::X25519Public minus_one{};
  minus_one.fill(0xff);
  minus_one[0] = 0xec;  // p - 1 = 2^255 - 20
  minus_one[31] = 0x7f;
  CHECK_FALSE(crypto::ed25519_from_x25519(minus_one, 0));
  CHECK_FALSE(crypto::ed25519_from_x25519(u, 2));
}

TEST_CASE("tor server descriptors: the digest is the one the stock ns consensus names them by", "[dir][tor]") {
  auto all = parse_tor_server_descriptors(fixture(), kNow);
  REQUIRE(all);
  std::ifstream in(std::string(CONFLUX_TEST_DATA_DIR) + "/tor/consensus-ns.txt", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  auto ns = parse_tor_consensus(s.str());
  REQUIRE(ns);
  REQUIRE(ns->flavor == ConsensusFlavor::Ns);
  std::size_t matched = 0;
  for (const auto& r : ns->routers) {
    INFO(r.nickname);
    for (const auto& d : *all) {
      if (d.rsa_identity != r.identity) continue;
      CHECK(d.router_digest == r.descriptor_digest);
      CHECK(d.published == r.published);
      ++matched;
    }
  }
  CHECK(matched == 9);
}
