// Bridges: with UseBridges the first hop is always a configured bridge with
// a descriptor, never a consensus relay; the bridge is kept out of the rest
// of the path; and when none works, each one says why.
#include <algorithm>
#include <map>

#include <catch2/catch.hpp>

#include "conflux/path/bridge_set.hpp"
#include "conflux/path/path_builder.hpp"
#include "path_test_support.hpp"

using namespace conflux;
using namespace conflux::path;
using namespace conflux::path::test;

namespace {

// Bridge n's RSA fingerprint, as its Bridge line names it.
crypto::RsaFingerprint fp_of(std::uint8_t n) {
  crypto::RsaFingerprint fp{};
  fp.fill(n);
  return fp;
}

// What the runtime hands over once a bridge's descriptor verified (the
// fields the path reads; the runtime fetches and verifies real ones).
dir::TorServerDescriptor bridge_descriptor(std::uint8_t n, dir::Ipv4 ip) {
  dir::TorServerDescriptor d;
  d.nickname = "bridge" + std::to_string(n);
  d.ed25519_identity = id_of(n);
  d.rsa_identity = fp_of(n);
  d.ntor_onion_key.fill(static_cast<std::uint8_t>(n + 1));
  d.ipv4 = ip;
  d.or_port = 443;
  d.protocols = "Conflux=1 Link=4-5 Relay=2-4";
  return d;
}

BridgeInfo bridge(std::uint8_t n, dir::Ipv4 ip, bool with_descriptor = true) {
  BridgeInfo b;
  b.rsa_identity = fp_of(n);
  b.address = BridgeAddress{ip, std::nullopt, 443};
  if (with_descriptor) b.descriptor = bridge_descriptor(n, ip);
  return b;
}

}  // namespace

TEST_CASE("bridges are only ever the first hop", "[path][bridges]") {
  const NetView net = net_of(small_network(), distinct_weights());
  BridgeSet bridges;
  bridges.set_bridges({bridge(100, {198, 51, 100, 1}), bridge(101, {203, 0, 113, 7})});
  Rng rng = seeded(21);
  std::map<crypto::Ed25519Public, int> firsts;
  for (int i = 0; i < 500; ++i) {
    PathOptions o;
    o.port = 443;
    auto p = build_path(net, bridges, o, SelectionRules{}, rng, kNow);
    REQUIRE(p);
    REQUIRE(p->hops.size() == 3);
    CHECK(p->first().is_bridge);
    CHECK(p->first().or_port == 443);
    ++firsts[p->first().identity];
    for (std::size_t k = 1; k < 3; ++k) {
      CHECK_FALSE(p->hops[k].is_bridge);
      CHECK(net.find(p->hops[k].identity) != nullptr);
    }
  }
  CHECK(firsts.size() == 2);
  CHECK(firsts.contains(id_of(100)));
  CHECK(firsts.contains(id_of(101)));
}

TEST_CASE("the bridge's address is the Bridge line's", "[path][bridges]") {
  BridgeInfo b = bridge(100, {198, 51, 100, 1});
  b.descriptor->ipv4 = {10, 99, 0, 1};  // what the bridge believes, behind NAT
  b.descriptor->or_port = 9001;
  BridgeSet bridges;
  bridges.set_bridges({b});
  Rng rng = seeded(1);
  auto h = bridges.choose_first_hop(net_of(small_network()), {}, rng, kNow);
  REQUIRE(h);
  CHECK(h->ipv4 == dir::Ipv4{198, 51, 100, 1});
  CHECK(h->or_port == 443);
  CHECK(h->ntor_onion_key == b.descriptor->ntor_onion_key);
  CHECK(h->rsa_identity == fp_of(100));  // EXTEND2 and the link name it by both identities
  CHECK(h->identity == id_of(100));
}

TEST_CASE("the bridge is excluded from the rest of the path by identity and /16", "[path][bridges]") {
  auto relays = small_network();
  // A consensus relay with the bridge's identity, and relays in its /16.
  relays.push_back(relay(100, kMiddleFlags, 100000));
  relays.push_back(relay(50, kExitFlags, 100000, kWebPolicy, dir::Ipv4{198, 51, 7, 7}));
  relays.push_back(relay(51, kMiddleFlags, 100000, kNoExit, dir::Ipv4{198, 51, 8, 8}));
  const NetView net = net_of(relays);
  BridgeSet bridges;
  bridges.set_bridges({bridge(100, {198, 51, 100, 1})});
  Rng rng = seeded(22);
  for (int i = 0; i < 300; ++i) {
    PathOptions o;
    o.port = 80;
    auto p = build_path(net, bridges, o, SelectionRules{}, rng, kNow);
    REQUIRE(p);
    for (std::size_t k = 1; k < p->hops.size(); ++k) {
      CHECK(p->hops[k].identity != id_of(100));
      CHECK(p->hops[k].identity != id_of(50));
      CHECK(p->hops[k].identity != id_of(51));
    }
  }
  SECTION("with subnets off (conflux-net) the /16 neighbours come back, the bridge itself never") {
    std::map<crypto::Ed25519Public, int> seen;
    for (int i = 0; i < 300; ++i) {
      PathOptions o;
      o.port = 80;
      auto p = build_path(net, bridges, o, SelectionRules{false, true}, rng, kNow);
      REQUIRE(p);
      for (std::size_t k = 1; k < p->hops.size(); ++k) ++seen[p->hops[k].identity];
    }
    CHECK_FALSE(seen.contains(id_of(100)));
    CHECK(seen.contains(id_of(50)));
    CHECK(seen.contains(id_of(51)));
  }
}

TEST_CASE("when no bridge is usable, each says why", "[path][bridges]") {
  const NetView net = net_of(small_network());
  BridgeInfo no_desc = bridge(100, {198, 51, 100, 1}, false);
  no_desc.fetch_error = "connection refused";
  BridgeInfo wrong = bridge(101, {198, 52, 0, 1});
  wrong.descriptor->rsa_identity = fp_of(77);
  BridgeInfo down = bridge(103, {198, 54, 0, 1});
  BridgeSet bridges;
  bridges.set_bridges({no_desc, wrong, down});
  REQUIRE(bridges.mark_failed(id_of(103), kNow));
  CHECK(bridges.usable(kNow) == 0);

  Rng rng = seeded(23);
  auto p = build_path(net, bridges, PathOptions{}, SelectionRules{}, rng, kNow + 60);
  REQUIRE_FALSE(p);
  const PathError& e = p.error();
  CHECK(e.code == PathErrc::AllBridgesUnusable);
  CHECK(e.message == "none of the 3 bridges is usable");
  REQUIRE(e.bridge_reports.size() == 3);
  CHECK(e.bridge_reports[0] == "bridge ($64646464) at 198.51.100.1:443: no descriptor (connection refused)");
  CHECK(e.bridge_reports[1] == "bridge bridge101 ($65656565) at 198.52.0.1:443: descriptor is for another bridge");
  CHECK(e.bridge_reports[2] == "bridge bridge103 ($67676767) at 198.54.0.1:443: unreachable, next try in 540 s");
  REQUIRE(e.retry_at);
  CHECK(*e.retry_at == kNow + 600);
  // Never falls back to a consensus guard.
  CHECK(bridges.unusable_reasons(kNow).size() == 3);

  SECTION("after the retry delay the bridge is back") {
    auto q = build_path(net, bridges, PathOptions{}, SelectionRules{}, rng, kNow + 600);
    REQUIRE(q);
    CHECK(q->first().identity == id_of(103));
    CHECK(bridges.unusable_reasons(kNow + 600).size() == 2);
  }
  SECTION("no bridges configured at all") {
    bridges.set_bridges({});
    auto q = build_path(net, bridges, PathOptions{}, SelectionRules{}, rng, kNow);
    REQUIRE_FALSE(q);
    CHECK(q.error().code == PathErrc::AllBridgesUnusable);
  }
}

TEST_CASE("a failed bridge gives way to another, state survives set_bridges", "[path][bridges]") {
  const NetView net = net_of(small_network());
  BridgeSet bridges;
  bridges.set_bridges({bridge(100, {198, 51, 100, 1}), bridge(101, {203, 0, 113, 7})});
  REQUIRE(bridges.mark_failed(id_of(100), kNow));
  // A refreshed descriptor list keeps the failure.
  bridges.set_bridges({bridge(100, {198, 51, 100, 1}), bridge(101, {203, 0, 113, 7})});
  Rng rng = seeded(24);
  for (int i = 0; i < 50; ++i) {
    auto p = build_path(net, bridges, PathOptions{}, SelectionRules{}, rng, kNow + 1);
    REQUIRE(p);
    CHECK(p->first().identity == id_of(101));
  }
  REQUIRE(bridges.mark_succeeded(id_of(100), kNow + 2));
  CHECK(bridges.usable(kNow + 2) == 2);
  CHECK_FALSE(bridges.mark_failed(id_of(5), kNow));
}

TEST_CASE("Conflux legs over bridges: a second bridge, or a clear error with one", "[path][bridges]") {
  const NetView net = net_of(small_network());
  BridgeSet bridges;
  bridges.set_bridges({bridge(100, {198, 51, 100, 1}), bridge(101, {203, 0, 113, 7})});
  Rng rng = seeded(25);
  PathOptions o;
  o.port = 443;
  auto leg1 = build_path(net, bridges, o, SelectionRules{}, rng, kNow);
  REQUIRE(leg1);
  o.exit = leg1->last().identity;
  o.exclude = {leg1->first().identity, leg1->hops[1].identity};
  auto leg2 = build_path(net, bridges, o, SelectionRules{}, rng, kNow);
  REQUIRE(leg2);
  CHECK(leg2->first().identity != leg1->first().identity);
  CHECK(leg2->last().identity == leg1->last().identity);

  bridges.set_bridges({bridge(100, {198, 51, 100, 1})});
  o.exclude = {id_of(100)};
  auto none = build_path(net, bridges, o, SelectionRules{}, rng, kNow);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == PathErrc::NoCompatibleBridge);
  o.exclude.clear();
  o.first_hop = id_of(100);
  CHECK(build_path(net, bridges, o, SelectionRules{}, rng, kNow));
}

TEST_CASE("a bridge named by RSA fingerprint: the hop carries it, reports name it, state follows it", "[path][bridges]") {
  const NetView net = net_of(small_network());
  // Before its descriptor: no Ed25519 identity yet (all zero), like a second such line.
  BridgeInfo waiting = bridge(100, {198, 51, 100, 9}, false);
  waiting.rsa_identity = crypto::RsaFingerprint{0xAB, 0xCD, 0x01, 0x02};
  waiting.fetch_error = "timed out";
  BridgeInfo other = waiting;
  other.rsa_identity = crypto::RsaFingerprint{0x12, 0x34};
  CHECK(waiting.identity() == crypto::Ed25519Public{});
  BridgeSet bridges;
  bridges.set_bridges({waiting, other});
  auto reasons = bridges.unusable_reasons(kNow);
  REQUIRE(reasons.size() == 2);
  CHECK(reasons[0].find("($ABCD0102)") != std::string::npos);
  CHECK(reasons[1].find("($12340000)") != std::string::npos);
  // A zero identity names no bridge.
  CHECK_FALSE(bridges.mark_failed(crypto::Ed25519Public{}, kNow));

  // Its descriptor arrives: the Ed25519 identity is known, and the path's
  // first hop carries the fingerprint as well.
  BridgeInfo fetched = waiting;
  fetched.descriptor = bridge_descriptor(100, {198, 51, 100, 9});
  fetched.descriptor->rsa_identity = waiting.rsa_identity;
  fetched.fetch_error.clear();
  bridges.set_bridges({fetched, other});
  Rng rng = seeded(5);
  auto p = build_path(net, bridges, PathOptions{}, SelectionRules{}, rng, kNow);
  REQUIRE(p);
  CHECK(p->first().identity == id_of(100));
  CHECK(p->first().rsa_identity == waiting.rsa_identity);

  // Failure state is kept across a refresh by the fingerprint, not mixed up
  // with the other line's.
  REQUIRE(bridges.mark_failed(id_of(100), kNow));
  bridges.set_bridges({fetched, other});
  CHECK(bridges.usable(kNow + 1) == 0);
}

TEST_CASE("bridges as a controller sees them: confirmed once a circuit was built, down while failing", "[path][bridges]") {
  BridgeSet bridges;
  bridges.set_bridges({bridge(100, {198, 51, 100, 1}), bridge(101, {203, 0, 113, 7}, false)});
  auto s = bridges.status(kNow);
  REQUIRE(s.size() == 2);
  CHECK(s[0].info->identity() == id_of(100));
  CHECK_FALSE(s[0].confirmed);
  CHECK(s[0].usable);
  CHECK(s[0].reachable);
  CHECK_FALSE(s[1].usable);  // no descriptor yet
  CHECK_FALSE(bridges.mark_failed(id_of(101), kNow));  // nor an Ed25519 identity to name it by
  REQUIRE(bridges.mark_succeeded(id_of(100), kNow));
  bridges.set_bridges({bridge(100, {198, 51, 100, 1}), bridge(101, {203, 0, 113, 7})});  // its descriptor came
  REQUIRE(bridges.mark_failed(id_of(101), kNow));
  s = bridges.status(kNow + 1);
  CHECK(s[0].confirmed);
  CHECK_FALSE(s[1].confirmed);
  CHECK_FALSE(s[1].reachable);
  REQUIRE(bridges.mark_failed(id_of(100), kNow + 1));
  s = bridges.status(kNow + 2);
  CHECK(s[0].confirmed);  // tor: once confirmed, a failing bridge is "down", not "never-connected"
  CHECK_FALSE(s[0].reachable);
}

TEST_CASE("a bridge's controller name: $FINGERPRINT~nickname as tor, $FINGERPRINT before its descriptor", "[path][bridges]") {
  BridgeInfo b = bridge(100, {198, 51, 100, 1});
  crypto::RsaFingerprint fp{};
  fp.fill(0xAB);
  b.rsa_identity = fp;
  b.descriptor->rsa_identity = fp;
  CHECK(controller_name(b) == "$ABABABABABABABABABABABABABABABABABABABAB~bridge100");
  b.descriptor.reset();  // before its descriptor: the fingerprint alone
  CHECK(controller_name(b) == "$ABABABABABABABABABABABABABABABABABABABAB");
}
