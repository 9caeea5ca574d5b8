// Path constraints: no relay twice, no two hops in one /16 (or IPv6 /32),
// no two hops of one (mutually declared) family, the exit's policy allows
// the port, and the any-port choice prefers exits allowing 80 and 443.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "conflux/path/guard_set.hpp"
#include "conflux/path/path_builder.hpp"
#include "path_test_support.hpp"

using namespace conflux;
using namespace conflux::path;
using namespace conflux::path::test;

namespace {

Path build_ok(const NetView& net, GuardSet& guards, const PathOptions& o, const SelectionRules& rules, Rng& rng) {
  auto p = build_path(net, guards, o, rules, rng, kNow);
  if (!p) FAIL("build_path failed: " << p.error().message);
  return *p;
}

}  // namespace

TEST_CASE("compatible: identity, subnet and mutual family", "[path][constraints]") {
  const SelectionRules on{};
  const SelectionRules off{false, false};
  auto a = relay(1, kMiddleFlags, 1, kNoExit, dir::Ipv4{192, 0, 2, 1});
  auto b = relay(2, kMiddleFlags, 1, kNoExit, dir::Ipv4{192, 0, 200, 9});  // same /16
  auto c = relay(3, kMiddleFlags, 1, kNoExit, dir::Ipv4{192, 1, 2, 1});    // other /16
  CHECK_FALSE(compatible(a, a, on));
  CHECK_FALSE(compatible(a, a, off));  // the same relay never, whatever the rules
  CHECK_FALSE(compatible(a, b, on));
  CHECK(compatible(a, b, off));
  CHECK(compatible(a, c, on));

  SECTION("IPv6 /32") {
    dir::Ipv6 x{0x20, 0x01, 0x0d, 0xb8, 1}, y{0x20, 0x01, 0x0d, 0xb8, 2}, z{0x20, 0x01, 0x0d, 0xb9, 1};
    a.ipv6 = x;
    c.ipv6 = y;
    CHECK_FALSE(compatible(a, c, on));
    c.ipv6 = z;
    CHECK(compatible(a, c, on));
    c.ipv6.reset();
    CHECK(compatible(a, c, on));
  }
  SECTION("family counts only when both declare it") {
    a.family = {c.identity};
    CHECK(compatible(a, c, on));  // one-sided: ignored, as tor
    c.family = {a.identity};
    CHECK_FALSE(compatible(a, c, on));
    CHECK(compatible(a, c, SelectionRules{true, false}));
    a.family = {a.identity, c.identity};  // listing itself changes nothing
    CHECK_FALSE(compatible(a, c, on));
  }
}

TEST_CASE("exit eligibility follows the policy summary, the Exit flag only weighs", "[path][constraints]") {
  auto flagged = relay(1, kExitFlags, 10, kWebPolicy);
  auto unflagged = relay(2, kMiddleFlags, 10, "accept 22");
  auto reject_all = relay(3, kExitFlags, 10, kNoExit);
  auto not_fast = relay(4, "ERSV", 10, kWebPolicy);
  auto garbage = relay(5, kExitFlags, 10, "accept everything");
  CHECK(usable_as_exit(flagged, 443));
  CHECK_FALSE(usable_as_exit(flagged, 22));
  CHECK(usable_as_exit(unflagged, 22));
  CHECK(usable_as_exit(unflagged, std::nullopt));
  CHECK_FALSE(usable_as_exit(reject_all, std::nullopt));
  CHECK_FALSE(usable_as_exit(not_fast, 80));
  CHECK_FALSE(usable_as_exit(garbage, 80));
  CHECK(exit_policy_allows("reject 25,119", 80));
  CHECK_FALSE(exit_policy_allows("reject 25,119", 25));
  CHECK_FALSE(exit_policy_allows("accept 80", 0));
  CHECK(any_port_tier("accept 80,443") == 0);
  CHECK(any_port_tier("accept 443") == 1);
  CHECK(any_port_tier("accept 22") == 2);
  CHECK(any_port_tier("reject 80,443") == 2);
  CHECK(any_port_tier("reject 1-65535") == 3);
  CHECK(any_port_tier("nonsense") == 3);
}

TEST_CASE("random paths never break a constraint", "[path][constraints]") {
  // Relays 20..23 share 10.20/16; 30 and 31 are one family; 32 claims 33
  // one-sidedly.
  auto relays = small_network();
  for (std::uint8_t n = 20; n < 24; ++n)
    relays.push_back(relay(n, n % 2 ? kExitFlags : kMiddleFlags, 5000, kWebPolicy,
                           dir::Ipv4{10, 20, n, 1}));
  relays.push_back(relay(30, kGuardFlags, 5000));
  relays.push_back(relay(31, kExitFlags, 5000, kWebPolicy));
  relays.back().family = {id_of(30)};
  relays[relays.size() - 2].family = {id_of(31)};
  relays.push_back(relay(32, kMiddleFlags, 5000));
  relays.back().family = {id_of(33)};
  relays.push_back(relay(33, kExitFlags, 5000, kWebPolicy));
  const NetView net = net_of(relays, distinct_weights());
  const SelectionRules rules{};
  Rng rng = seeded(42);
  bool saw_32_with_33 = false;
  for (int i = 0; i < 2000; ++i) {
    GuardSet guards(GuardParams{.num_entry_guards = 3});
    PathOptions o;
    o.port = 443;
    const Path p = build_ok(net, guards, o, rules, rng);
    REQUIRE(p.hops.size() == 3);
    CHECK(exit_policy_allows(p.last().exit_policy, 443));
    for (std::size_t a = 0; a < 3; ++a)
      for (std::size_t b = a + 1; b < 3; ++b) {
        CHECK(p.hops[a].identity != p.hops[b].identity);
        CHECK_FALSE(same_subnet(p.hops[a].ipv4, p.hops[a].ipv6, p.hops[b].ipv4, p.hops[b].ipv6));
        CHECK_FALSE(same_family(p.hops[a].identity, p.hops[a].family, p.hops[b].identity, p.hops[b].family));
      }
    std::set<crypto::Ed25519Public> ids;
    for (const Hop& h : p.hops) ids.insert(h.identity);
    if (ids.contains(id_of(32)) && ids.contains(id_of(33))) saw_32_with_33 = true;
  }
  CHECK(saw_32_with_33);  // the one-sided claim did not keep them apart
}

TEST_CASE("the exit allows the stream's port", "[path][constraints]") {
  const NetView net = net_of(small_network(), distinct_weights());
  Rng rng = seeded(5);
  GuardSet guards;
  PathOptions o;
  o.port = 22;  // only relay 9 accepts 22
  for (int i = 0; i < 50; ++i) CHECK(build_ok(net, guards, o, {}, rng).last().identity == id_of(9));
  o.port = 25;
  auto p = build_path(net, guards, o, {}, rng, kNow);
  REQUIRE_FALSE(p);
  CHECK(p.error().code == PathErrc::NoExit);
  CHECK(p.error().message.find("port 25") != std::string::npos);
}

TEST_CASE("a Conflux leg's exit is Stable and Fast and speaks Conflux=1 and FlowCtrl=2", "[path][constraints]") {
  auto relays = small_network();
  for (auto& r : relays) {
    if (r.identity == id_of(8) || r.identity == id_of(9)) r.protocols = "Conflux=1 FlowCtrl=1-2 Link=4-5 Relay=2-4";
    if (r.identity == id_of(10)) r.protocols = "FlowCtrl=1-2 Link=4-5 Relay=2-4";  // no Conflux
  }
  relays.at(8).flags.stable = false;  // relay 9
  const NetView net = net_of(relays, distinct_weights());
  Rng rng = seeded(6);
  GuardSet guards;
  PathOptions o;
  o.port = 80;
  o.conflux = true;
  // 7 lacks FlowCtrl=2, 9 is not Stable, 10 lacks Conflux=1: only 8.
  for (int i = 0; i < 50; ++i) CHECK(build_ok(net, guards, o, {}, rng).last().identity == id_of(8));
  o.exit = id_of(7);
  auto fixed = build_path(net, guards, o, {}, rng, kNow);
  REQUIRE_FALSE(fixed);
  CHECK(fixed.error().code == PathErrc::ExitUnusable);
  o.exit.reset();
  o.port = 22;  // only 9 takes 22, and it cannot take legs
  auto none = build_path(net, guards, o, {}, rng, kNow);
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("no Conflux exit") != std::string::npos);
}

TEST_CASE("a preemptive exit prefers exits allowing 80 and 443", "[path][constraints]") {
  std::vector<dir::RouterEntry> relays{relay(1, kGuardFlags, 100), relay(2, kMiddleFlags, 100),
                                       relay(3, kExitFlags, 100, "accept 80,443"),
                                       relay(4, kExitFlags, 100000, "accept 22"),
                                       relay(5, kExitFlags, 100000, "accept 443")};
  Rng rng = seeded(8);
  PathOptions any;  // no port
  {
    const NetView net = net_of(relays);
    GuardSet guards;
    for (int i = 0; i < 100; ++i) CHECK(build_ok(net, guards, any, {}, rng).last().identity == id_of(3));
  }
  relays.erase(relays.begin() + 2);  // no exit allows both: one of them is next best
  {
    const NetView net = net_of(relays);
    GuardSet guards;
    for (int i = 0; i < 100; ++i) CHECK(build_ok(net, guards, any, {}, rng).last().identity == id_of(5));
  }
}

TEST_CASE("exclusions, fixed exit and fixed first hop", "[path][constraints]") {
  const NetView net = net_of(small_network(), distinct_weights());
  Rng rng = seeded(17);
  GuardSet guards(GuardParams{.num_entry_guards = 1});
  PathOptions o;
  o.port = 443;
  const Path first = build_ok(net, guards, o, {}, rng);

  SECTION("exclude keeps relays out of every position") {
    o.exclude = {id_of(5), id_of(6), id_of(8)};
    for (int i = 0; i < 200; ++i) {
      const Path p = build_ok(net, guards, o, {}, rng);
      for (const Hop& h : p.hops) CHECK_FALSE(o.exclude.contains(h.identity));
    }
  }
  SECTION("exclude_exits only affects the exit") {
    o.exclude_exits = {id_of(7), id_of(8), id_of(9)};
    for (int i = 0; i < 100; ++i) CHECK(build_ok(net, guards, o, {}, rng).last().identity == id_of(10));
    o.exclude_exits.insert(id_of(10));
    auto p = build_path(net, guards, o, {}, rng, kNow);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == PathErrc::NoExit);
  }
  SECTION("Conflux leg: same exit, another guard and middle") {
    o.exit = first.last().identity;
    o.exclude = {first.hops[0].identity, first.hops[1].identity};
    const std::size_t sampled = guards.records().size();
    for (int i = 0; i < 50; ++i) {
      const Path p = build_ok(net, guards, o, {}, rng);
      CHECK(p.last().identity == first.last().identity);
      CHECK(p.first().identity != first.first().identity);
      CHECK(p.hops[1].identity != first.hops[1].identity);
    }
    CHECK(guards.records().size() == sampled);  // no extra guards sampled for the leg
  }
  SECTION("a fixed exit that does not allow the port is refused") {
    o.exit = id_of(7);
    o.port = 22;
    auto p = build_path(net, guards, o, {}, rng, kNow);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == PathErrc::ExitUnusable);
  }
  SECTION("fixed first hop: our guard yes, another relay no") {
    o.first_hop = first.first().identity;
    CHECK(build_ok(net, guards, o, {}, rng).first().identity == first.first().identity);
    o.first_hop = id_of(5);
    auto p = build_path(net, guards, o, {}, rng, kNow);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == PathErrc::FirstHopUnusable);
  }
}

TEST_CASE("path lengths and bad options", "[path][constraints]") {
  const NetView net = net_of(small_network());
  Rng rng = seeded(2);
  GuardSet guards;
  for (std::size_t n : {1U, 2U, 3U, 4U, 5U}) {
    PathOptions o;
    o.num_hops = n;
    o.port = 80;
    const Path p = build_ok(net, guards, o, {}, rng);
    CHECK(p.hops.size() == n);
    if (n >= 2) CHECK(exit_policy_allows(p.last().exit_policy, 80));
  }
  PathOptions bad;
  bad.num_hops = 0;
  auto p = build_path(net, guards, bad, {}, rng, kNow);
  REQUIRE_FALSE(p);
  CHECK(p.error().code == PathErrc::BadOptions);
  bad.num_hops = kMaxHops + 1;
  CHECK(build_path(net, guards, bad, {}, rng, kNow).error().code == PathErrc::BadOptions);
  const NetView empty;
  CHECK(build_path(empty, guards, PathOptions{}, {}, rng, kNow).error().code == PathErrc::NoConsensus);
}

TEST_CASE("a loopback network needs EnforceDistinctSubnets off", "[path][constraints]") {
  const NetView net = net_of(loopback_network());
  Rng rng = seeded(4);
  PathOptions o;
  o.port = 80;
  {
    GuardSet guards;
    auto p = build_path(net, guards, o, SelectionRules{}, rng, kNow);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == PathErrc::NoExit);
  }
  GuardSet guards;
  const SelectionRules local{.enforce_distinct_subnets = false, .enforce_families = true};
  for (int i = 0; i < 20; ++i) {
    const Path p = build_ok(net, guards, o, local, rng);
    CHECK(p.last().identity == id_of(4));
    CHECK(p.hops[1].identity != p.first().identity);
  }
}

namespace {

// First hops in a fixed order of preference: the first one that fits wins
// (the guard set with NumEntryGuards 1 behaves so with its primaries).
class OrderedFirstHops final : public FirstHopSource {
 public:
  explicit OrderedFirstHops(std::vector<crypto::Ed25519Public> order) : order_(std::move(order)) {}
  Result<Hop, PathError> choose_first_hop(const NetView& net, const HopFilter& fits, const Rng&,
                                          std::uint64_t) override {
    for (const auto& id : order_) {
      const dir::RouterEntry* r = net.find(id);
      if (r == nullptr) continue;
      Hop h = hop_from(*r);
      if (!fits || fits(h)) return h;
    }
    PathError e;
    e.code = PathErrc::NoCompatibleGuard;
    e.message = "no first hop fits";
    return Unexpected{e};
  }
  std::optional<Hop> find_first_hop(const NetView&, const crypto::Ed25519Public&, std::uint64_t) override {
    return std::nullopt;
  }

 private:
  std::vector<crypto::Ed25519Public> order_;
};

}  // namespace

TEST_CASE("relays to avoid: not chosen while others fit, and an exit-first path when only our guard is left",
          "[path][constraints]") {
  // Two exits, one of them (10) our preferred guard: guard first, 7 is the
  // only exit. When 7 could not be reached lately, the exit is chosen first
  // (10) and the first hop that fits it is our next guard (1).
  const NetView net = net_of({relay(1, kGuardFlags, 1000), relay(4, kMiddleFlags, 1000), relay(5, kMiddleFlags, 1000),
                              relay(7, kExitFlags, 1000, kWebPolicy), relay(10, kGuardExitFlags, 1000, kWebPolicy)});
  Rng rng = seeded(29);
  PathOptions o;
  o.port = 443;

  SECTION("nothing to avoid: our guard, and the one exit that fits it") {
    OrderedFirstHops hops({id_of(10), id_of(1)});
    for (int i = 0; i < 50; ++i) {
      auto p = build_path(net, hops, o, {}, rng, kNow);
      REQUIRE(p);
      CHECK(p->first().identity == id_of(10));
      CHECK(p->last().identity == id_of(7));
    }
  }
  SECTION("the other exit unreachable: the exit first, with our next guard") {
    OrderedFirstHops hops({id_of(10), id_of(1)});
    o.avoid = {id_of(7)};
    for (int i = 0; i < 50; ++i) {
      auto p = build_path(net, hops, o, {}, rng, kNow);
      REQUIRE(p);
      CHECK(p->first().identity == id_of(1));
      CHECK(p->last().identity == id_of(10));
    }
  }
  SECTION("no other first hop: the avoided exit rather than no path") {
    OrderedFirstHops hops({id_of(10)});
    o.avoid = {id_of(7)};
    auto p = build_path(net, hops, o, {}, rng, kNow);
    REQUIRE(p);
    CHECK(p->first().identity == id_of(10));
    CHECK(p->last().identity == id_of(7));
  }
  SECTION("our guard is the only exit: the exit first, with our next guard") {
    const NetView one_exit = net_of({relay(1, kGuardFlags, 1000), relay(4, kMiddleFlags, 1000),
                                     relay(10, kGuardExitFlags, 1000, kWebPolicy)});
    OrderedFirstHops hops({id_of(10), id_of(1)});
    for (int i = 0; i < 20; ++i) {
      auto p = build_path(one_exit, hops, o, {}, rng, kNow);
      REQUIRE(p);
      CHECK(p->first().identity == id_of(1));
      CHECK(p->hops[1].identity == id_of(4));
      CHECK(p->last().identity == id_of(10));
    }
  }
  SECTION("an avoided middle is skipped while another fits, used when none does") {
    OrderedFirstHops hops({id_of(1)});
    o.avoid = {id_of(4)};
    for (int i = 0; i < 50; ++i) {
      auto p = build_path(net, hops, o, {}, rng, kNow);
      REQUIRE(p);
      CHECK(p->hops[1].identity != id_of(4));
    }
    o.avoid = {id_of(4), id_of(5), id_of(7), id_of(10)};
    auto p = build_path(net, hops, o, {}, rng, kNow);
    REQUIRE(p);
    CHECK(p->hops.size() == 3);
  }
}
