// Guards per client (PerClientGuards, client/path/client_guards.hpp): the
// client a SOCKS username names, independent draws per client, a client's
// guard kept across circuits, the bound on clients, and failures seen by
// every client that samples the guard.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "conflux/path/client_guards.hpp"
#include "path_test_support.hpp"

using namespace conflux;
using namespace conflux::path;
using namespace conflux::path::test;

namespace {

// Twenty guards of equal weight, each on its own /16, and an exit.
std::vector<dir::RouterEntry> twenty_guards() {
  std::vector<dir::RouterEntry> v;
  for (std::uint8_t n = 1; n <= 20; ++n) v.push_back(relay(n, kGuardFlags, 1000));
  v.push_back(relay(21, kExitFlags, 1000, kWebPolicy));
  return v;
}

crypto::Ed25519Public first_guard(GuardSet& g, const NetView& net, Rng& rng) {
  auto h = g.choose_guard(net, rng, kNow);
  if (!h) FAIL("choose_guard: " << h.error().message);
  return h->identity;
}

}  // namespace

TEST_CASE("a SOCKS username names its client up to the first slash", "[path][client-guards]") {
  CHECK(guard_client_name("web7") == "web7");
  CHECK(guard_client_name("web7/probe-12") == "web7");
  CHECK(guard_client_name("web7/a/b") == "web7");
  CHECK(guard_client_name("/x").empty());
  CHECK(guard_client_name("").empty());
}

TEST_CASE("two clients draw their guards independently", "[path][client-guards]") {
  // With 20 equal guards, two independent draws agree 1 time in 20; one
  // shared selection would agree every time.
  const NetView net = net_of(twenty_guards());
  Rng rng = seeded(21);
  constexpr int kPairs = 2000;
  int same = 0;
  std::set<crypto::Ed25519Public> seen;
  for (int i = 0; i < kPairs; ++i) {
    ClientGuards clients(GuardParams{}, 2);
    REQUIRE(clients.admit("a"));
    REQUIRE(clients.admit("b"));
    const auto a = first_guard(*clients.find("a"), net, rng);
    const auto b = first_guard(*clients.find("b"), net, rng);
    same += a == b ? 1 : 0;
    seen.insert(a);
  }
  CHECK(seen.size() == 20);
  const double share = static_cast<double>(same) / kPairs;
  INFO("share of pairs on the same guard: " << share);
  CHECK(share > 0.03);
  CHECK(share < 0.07);
}

TEST_CASE("a client keeps its guard across new circuits", "[path][client-guards]") {
  const NetView net = net_of(twenty_guards());
  Rng rng = seeded(5);
  ClientGuards clients(GuardParams{}, 8);
  std::map<std::string, crypto::Ed25519Public> first;
  for (const char* name : {"web1", "web2", "web3", "bulk1"}) {
    REQUIRE(clients.admit(name));
    first[name] = first_guard(*clients.find(name), net, rng);
  }
  for (int round = 0; round < 20; ++round)
    for (const auto& [name, id] : first) {
      INFO(name << " round " << round);
      // admit() again (the next stream of the client) keeps the same set.
      REQUIRE(clients.admit(name));
      CHECK(first_guard(*clients.find(name), net, rng) == id);
    }
  CHECK(clients.size() == 4);
}

TEST_CASE("clients past the bound are refused, the known ones keep their guards", "[path][client-guards]") {
  const NetView net = net_of(twenty_guards());
  Rng rng = seeded(9);
  ClientGuards clients(GuardParams{}, 2);
  REQUIRE(clients.admit("a"));
  const auto a = first_guard(*clients.find("a"), net, rng);
  REQUIRE(clients.admit("b"));
  CHECK_FALSE(clients.admit("c"));
  CHECK(clients.find("c") == nullptr);
  CHECK_FALSE(clients.admit(""));  // no client: the process's guards, never a set of its own
  CHECK(clients.size() == 2);
  REQUIRE(clients.admit("a"));
  CHECK(first_guard(*clients.find("a"), net, rng) == a);
  CHECK(clients.max_clients() == 2);
}

TEST_CASE("a failed guard is down for every client that samples it", "[path][client-guards]") {
  // Three guards: every client samples all three at once (num_primary).
  std::vector<dir::RouterEntry> three{relay(1, kGuardFlags, 1000), relay(2, kGuardFlags, 1000),
                                      relay(3, kGuardFlags, 1000), relay(21, kExitFlags, 1000, kWebPolicy)};
  const NetView net = net_of(three);
  Rng rng = seeded(3);
  ClientGuards clients(GuardParams{}, 4);
  REQUIRE(clients.admit("a"));
  REQUIRE(clients.admit("b"));
  const auto a = first_guard(*clients.find("a"), net, rng);
  (void)first_guard(*clients.find("b"), net, rng);
  REQUIRE(clients.find("b")->records().size() == 3);
  clients.mark_failed(a, kNow);
  for (const char* name : {"a", "b"}) {
    INFO(name);
    CHECK(first_guard(*clients.find(name), net, rng) != a);
    int seen = 0;
    for (const auto& st : clients.find(name)->status(net, kNow))
      if (st.identity == a) {
        ++seen;
        CHECK_FALSE(st.reachable);
      }
    CHECK(seen == 1);
  }
  // The consensus drops guard 1 and 2: both clients' sets follow.
  std::vector<dir::RouterEntry> one{relay(3, kGuardFlags, 1000), relay(21, kExitFlags, 1000, kWebPolicy)};
  const NetView smaller = net_of(one);
  clients.update(smaller, kNow + 60);
  for (const char* name : {"a", "b"}) {
    auto h = clients.find(name)->choose_guard(smaller, rng, kNow + 60);
    REQUIRE(h);
    CHECK(h->identity == id_of(3));
  }
}
