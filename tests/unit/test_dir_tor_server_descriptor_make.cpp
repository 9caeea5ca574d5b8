// tor's server descriptor as our relays write it: our parser verifies both
// signatures, the identity certificate and the ntor crosscert (signed by
// the Ed25519 form of the X25519 onion key, for either sign bit), and every
// fact comes back as written. A stock tor authority accepting it is
// test_net_processes_stocktor_relay's.
#include <catch2/catch.hpp>

#include "conflux/bytes/hex.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/ed25519_from_x25519_secret.hpp"
#include "conflux/crypto/x25519_to_ed25519.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dir/tor_server_descriptor_make.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

constexpr std::uint64_t kNow = 1795654010;  // 2026-11-26 00:46:50 UTC

const crypto::RsaPrivateKey& rsa_identity() {
  static const auto k = crypto::RsaPrivateKey::generate(1024);
  return k;
}
const crypto::RsaPrivateKey& tap_key() {
  static const auto k = crypto::RsaPrivateKey::generate(1024);
  return k;
}

struct Keys {
  crypto::Ed25519Keypair identity = crypto::Ed25519Keypair::generate();
  crypto::Ed25519Keypair signing = crypto::Ed25519Keypair::generate();
  crypto::X25519Secret onion = crypto::X25519Secret::generate();
  std::vector<std::uint8_t> cert;

  Keys() {
    cell::Ed25519CertBody body;
    body.cert_type = cell::CertType::IdentityVSigning;
    body.expiration_hours = cell::cert_expiration_hours(kNow + 30 * 24 * 3600);
    body.certified_key = signing.public_key();
    auto c = cell::sign_ed25519_cert(std::move(body), identity, cell::IncludeSigningKey::Yes);
    REQUIRE(c);
    cert = cell::encode_ed25519_cert(*c).value();
  }
  [[nodiscard]] TorDescriptorKeys view() const {
    return {rsa_identity(), identity.public_key(), signing, cert, onion, tap_key(), kNow + 7 * 24 * 3600};
  }
};

TorDescriptorFacts facts() {
  TorDescriptorFacts f;
  f.nickname = "ours1";
  f.ipv4 = {127, 0, 0, 1};
  f.or_port = 9001;
  f.dir_port = 9030;
  f.platform = "conflux 0.1 on Linux";
  f.protocols = "Link=4-5 LinkAuth=3 Relay=2-4 FlowCtrl=1-2 Conflux=1";
  f.published = kNow - 60;
  f.uptime = 60;
  f.bandwidth_rate = 1 << 30;
  f.bandwidth_burst = 1 << 30;
  f.bandwidth_observed = 10'000'000;
  f.contact = "ops@example.invalid";
  f.family = {"$" + std::string(40, 'A')};
  f.exit_policy = {"accept *:80", "accept *:443", "reject *:*"};
  f.tunnelled_dir_server = true;
  return f;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("tor server descriptor writer: our parser verifies what it writes", "[dir][tor]") {
  const Keys k;
  const auto f = facts();
  const auto text = make_tor_server_descriptor(f, k.view());
  auto d = parse_tor_server_descriptor(text, kNow);
  if (!d) FAIL(to_string(d.error().code) << " at " << d.error().field << "\n" << text);
  CHECK(d->nickname == "ours1");
  CHECK(d->ipv4 == std::array<std::uint8_t, 4>{127, 0, 0, 1});
  CHECK(d->or_port == 9001);
  CHECK(d->dir_port == 9030);
  CHECK(d->rsa_identity == rsa_identity().public_key().fingerprint());
  CHECK(d->ed25519_identity == k.identity.public_key());
  CHECK(d->ntor_onion_key == k.onion.public_key());
  CHECK(d->published == f.published);
  CHECK(d->platform == f.platform);
  CHECK(d->protocols == f.protocols);
  CHECK(d->tunnelled_dir_server);
  CHECK(d->text == text);
  // The lines tor wants and the parser does not read, in tor's form.
  const std::string fp = bytes::to_hex(rsa_identity().public_key().fingerprint(), true);
  CHECK(text.find("\nfingerprint " + fp.substr(0, 4) + " " + fp.substr(4, 4) + " ") != std::string::npos);
  CHECK(text.find("\nbandwidth 1073741824 1073741824 10000000\n") != std::string::npos);
  CHECK(text.find("\nuptime 60\n") != std::string::npos);
  CHECK(text.find("\ncontact ops@example.invalid\n") != std::string::npos);
  CHECK(text.find("\nfamily $" + std::string(40, 'A') + "\n") != std::string::npos);
  CHECK(text.find("\naccept *:80\naccept *:443\nreject *:*\ntunnelled-dir-server\nrouter-sig-ed25519 ") !=
        std::string::npos);
  CHECK(text.find("\nonion-key\n-----BEGIN RSA PUBLIC KEY-----\n") != std::string::npos);
  CHECK(text.find("\nonion-key-crosscert\n-----BEGIN CROSSCERT-----\n") != std::string::npos);
}

TEST_CASE("tor server descriptor writer: both sign bits of the onion key's Ed25519 form verify", "[dir][tor]") {
  int seen[2] = {0, 0};
  for (int i = 0; i < 24 && (seen[0] == 0 || seen[1] == 0); ++i) {
    const Keys k;
    const crypto::Ed25519FromX25519 onion(k.onion);
    // The derived public key is the X25519 key's Ed25519 form with its sign bit.
    CHECK(crypto::ed25519_from_x25519(k.onion.public_key(), onion.sign_bit()) == onion.public_key());
    const std::array<std::uint8_t, 3> msg{1, 2, 3};
    CHECK(crypto::ed25519_verify(onion.public_key(), msg, onion.sign(msg)));
    ++seen[onion.sign_bit()];
    const auto text = make_tor_server_descriptor(facts(), k.view());
    auto d = parse_tor_server_descriptor(text, kNow);
    if (!d) FAIL(to_string(d.error().code) << " at " << d.error().field);
    CHECK(text.find("ntor-onion-key-crosscert " + std::to_string(onion.sign_bit()) + "\n") != std::string::npos);
  }
  CHECK(seen[0] > 0);
  CHECK(seen[1] > 0);
}

TEST_CASE("tor server descriptor writer: a changed byte or the wrong sign bit is refused", "[dir][tor]") {
  const Keys k;
  const auto text = make_tor_server_descriptor(facts(), k.view());
  CHECK_FALSE(parse_tor_server_descriptor(replaced(text, "uptime 60", "uptime 61"), kNow));
  CHECK_FALSE(parse_tor_server_descriptor(replaced(text, "accept *:80\n", "accept *:81\n"), kNow));
  const crypto::Ed25519FromX25519 onion(k.onion);
  const std::string bit = std::to_string(onion.sign_bit());
  const std::string other = std::to_string(1 - onion.sign_bit());
  CHECK_FALSE(parse_tor_server_descriptor(
      replaced(text, "ntor-onion-key-crosscert " + bit, "ntor-onion-key-crosscert " + other), kNow));
  // Past the crosscert's end it no longer verifies.
  CHECK_FALSE(parse_tor_server_descriptor(text, kNow + 8 * 24 * 3600));
}

TEST_CASE("tor server descriptor writer: facts tor could not parse are refused", "[dir][tor]") {
  const Keys k;
  auto f = facts();
  f.nickname = "not a nickname";
  CHECK_THROWS_AS(make_tor_server_descriptor(f, k.view()), std::invalid_argument);
  f = facts();
  f.contact = "a\nreject *:*";
  CHECK_THROWS_AS(make_tor_server_descriptor(f, k.view()), std::invalid_argument);
  f = facts();
  f.exit_policy = {"allow *:80"};
  CHECK_THROWS_AS(make_tor_server_descriptor(f, k.view()), std::invalid_argument);
}
