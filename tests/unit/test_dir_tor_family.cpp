// Families from tor descriptors: an authority of ours lists the members of
// a relay's "family" line ("$FINGERPRINT") that it lists too, by Ed25519
// identity, in the agreed body; the microdescriptor it writes from that body
// names them by fingerprint again, which is what a client's path rules read.
#include <catch2/catch.hpp>

#include <algorithm>

#include "conflux/bytes/hex.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/dir/tor_consensus_make.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dir/tor_server_descriptor_make.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

constexpr std::uint64_t kNow = 1795654010;  // 2026-11-26 00:46:50 UTC

const crypto::RsaPrivateKey& tap_key() {
  static const auto k = crypto::RsaPrivateKey::generate(1024);
  return k;
}

// One relay's keys and the tor descriptor it writes with `family`.
struct Relay {
  std::string nickname;
  crypto::RsaPrivateKey rsa = crypto::RsaPrivateKey::generate(1024);
  crypto::Ed25519Keypair identity = crypto::Ed25519Keypair::generate();
  crypto::Ed25519Keypair signing = crypto::Ed25519Keypair::generate();
  crypto::X25519Secret onion = crypto::X25519Secret::generate();
  std::vector<std::uint8_t> cert;

  explicit Relay(std::string nick) : nickname(std::move(nick)) {
    cell::Ed25519CertBody body;
    body.cert_type = cell::CertType::IdentityVSigning;
    body.expiration_hours = cell::cert_expiration_hours(kNow + 30 * 24 * 3600);
    body.certified_key = signing.public_key();
    auto c = cell::sign_ed25519_cert(std::move(body), identity, cell::IncludeSigningKey::Yes);
    REQUIRE(c);
    cert = cell::encode_ed25519_cert(*c).value();
  }
  [[nodiscard]] std::string fingerprint() const { return bytes::to_hex(rsa.public_key().fingerprint(), true); }
  [[nodiscard]] TorRelayRecord record(std::vector<std::string> family, std::uint16_t or_port) const {
    TorDescriptorFacts f;
    f.nickname = nickname;
    f.ipv4 = {127, 0, 0, 1};
    f.or_port = or_port;
    f.platform = "conflux 0.1 on Linux";
    f.protocols = "Link=4-5 LinkAuth=3 Relay=2-4 FlowCtrl=1-2 Conflux=1";
    f.published = kNow - 60;
    f.bandwidth_rate = f.bandwidth_burst = f.bandwidth_observed = 1'000'000;
    f.family = std::move(family);
    const crypto::Ed25519Public id = identity.public_key();
    const TorDescriptorKeys k{rsa, id, signing, cert, onion, tap_key(), kNow + 7 * 24 * 3600};
    auto d = parse_tor_server_descriptor(make_tor_server_descriptor(f, k), kNow);
    REQUIRE(d);
    TorRelayRecord r{*d, {}};
    r.history = observe(r.history, kNow, true);
    return r;
  }
};

const RouterEntry& entry_of(const ConsensusBody& b, const Relay& r) {
  auto it = std::find_if(b.routers.begin(), b.routers.end(), [&](const RouterEntry& e) { return e.nickname == r.nickname; });
  REQUIRE(it != b.routers.end());
  return *it;
}

}  // namespace

TEST_CASE("tor descriptors' families: listed members by Ed25519 identity, unlisted ones left out", "[dir][tor]") {
  const Relay a("famA"), b("famB"), c("famC"), gone("famGone");
  // A names B, C and a relay no authority lists (and itself, which tor allows);
  // B names A with a nickname after the fingerprint; C names no one.
  const std::vector<TorRelayRecord> records{
      a.record({"$" + b.fingerprint(), "$" + c.fingerprint() + "~famC", "$" + gone.fingerprint(), "$" + a.fingerprint(),
                "someNick"},
               9001),
      b.record({"$" + a.fingerprint() + "=famA"}, 9002), c.record({}, 9003)};
  AuthorityParams params;
  params.thresholds = FlagThresholds::testing_network();
  const ConsensusBody body = make_body(records, kNow, params);
  REQUIRE(body.routers.size() == 3);

  std::vector<crypto::Ed25519Public> want_a{b.identity.public_key(), c.identity.public_key()};
  std::sort(want_a.begin(), want_a.end());
  CHECK(entry_of(body, a).family == want_a);
  CHECK(entry_of(body, b).family == std::vector<crypto::Ed25519Public>{a.identity.public_key()});
  CHECK(entry_of(body, c).family.empty());

  // tor's microdescriptors of that body name the members by fingerprint.
  const TorConsensusDraft draft = make_tor_microdesc_consensus(body, {});
  REQUIRE(draft.microdescs.size() == 3);
  std::vector<std::string> families;
  for (const auto& text : draft.microdescs) {
    auto mds = parse_tor_microdescs(text);
    REQUIRE(mds);
    REQUIRE(mds->size() == 1);
    std::string joined;
    for (const auto& m : (*mds)[0].family) joined += m + " ";
    families.push_back(joined);
  }
  std::sort(families.begin(), families.end());
  std::vector<std::string> want{"", "$" + a.fingerprint() + " ",
                                "$" + std::min(b.fingerprint(), c.fingerprint()) + " $" +
                                    std::max(b.fingerprint(), c.fingerprint()) + " "};
  std::sort(want.begin(), want.end());
  CHECK(families == want);
}
