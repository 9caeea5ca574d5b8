// ConfluxPool: prebuilt sets, acquire / claim / isolation / retire, how
// leg paths are asked for (and relaxed), shedding under memory pressure.
// Legs are FakeLegs, the exit the sans-I/O one (proxy_conflux_support.hpp).
#include <catch2/catch.hpp>

#include "conflux/client/conflux_pool.hpp"
#include "proxy_conflux_pool_rig.hpp"

using namespace conflux;
using namespace conflux::test;

TEST_CASE("conflux pool: one set is kept prebuilt, with legs to one exit", "[proxy][conflux]") {
  PoolRig rig;
  rig.pool->tick();
  REQUIRE(rig.legs.size() == 2);
  CHECK(rig.pool->linking_count() == 1);
  // Leg 2 asks for leg 1's exit and avoids its guard and middle.
  REQUIRE(rig.requests.size() == 2);
  CHECK_FALSE(rig.requests[0].exit);
  CHECK(rig.requests[1].exit == std::optional<client::RelayIdentity>(relay_id(200)));
  CHECK(rig.requests[1].exclude == std::set<client::RelayIdentity>{relay_id(1), relay_id(101)});
  rig.open_all();
  CHECK(rig.pool->open_count() == 1);
  CHECK(rig.pool->clean_count() == 1);
  rig.pool->tick();
  CHECK(rig.legs.size() == 2);  // still one clean set: nothing more
  const auto st = rig.pool->stats();
  CHECK(st.sets_launched == 1);
  CHECK(st.legs_linked == 2);
}

TEST_CASE("conflux pool: acquire waits for a set to link, and isolation keeps sets apart", "[proxy][conflux]") {
  PoolRig rig;
  client::StreamNeeds a;
  a.port = 443;
  a.isolation = "alice";
  auto* first = rig.acquire(a);
  REQUIRE(first != nullptr);
  CHECK(first->name().rfind("Conflux set ", 0) == 0);
  FakeStream& s1 = rig.stream();
  REQUIRE(first->attach(s1));
  rig.pool->claim(*first, a.isolation);
  // The same isolation shares the set; another gets its own.
  CHECK(rig.acquire(a) == first);
  client::StreamNeeds b = a;
  b.isolation = "bob";
  auto* second = rig.acquire(b);
  REQUIRE(second != nullptr);
  CHECK(second != first);
  // An exit that refused the stream is avoided: a new set, whose first leg
  // is asked to avoid it too (exit 200 is the only one here, so none in time).
  client::StreamNeeds c = a;
  c.avoid_exits.insert(relay_id(200));
  const auto launched = rig.pool->stats().sets_launched;
  CHECK(rig.acquire(c, nullptr, 300ms) == nullptr);
  CHECK(rig.pool->stats().sets_launched == launched);
  CHECK(rig.requests.back().avoid_exits == std::set<client::RelayIdentity>{relay_id(200)});
}

TEST_CASE("conflux pool: no exit for the port fails at once", "[proxy][conflux]") {
  PoolRig rig;
  rig.refuse = [](const client::PathRequest&) {
    client::PathProblem p;
    p.why = "no exit allows port 25";
    p.no_exit_for_port = true;
    return std::optional<client::PathProblem>(p);
  };
  client::StreamNeeds n;
  n.port = 25;
  bool no_exit = false;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(rig.acquire(n, &no_exit) == nullptr);
  CHECK(no_exit);
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);
}

TEST_CASE("conflux pool: with no other first hop a leg shares one, a dead guard is replaced", "[proxy][conflux]") {
  PoolRig rig;
  // One bridge (guard 1): any request excluding it has no first hop.
  rig.refuse = [](const client::PathRequest& r) -> std::optional<client::PathProblem> {
    if (r.exclude.count(relay_id(1)) == 0 || r.first_hop) return std::nullopt;
    client::PathProblem p;
    p.why = "no compatible bridge";
    p.no_compatible_first_hop = true;
    return p;
  };
  rig.pool->tick();
  REQUIRE(rig.legs.size() == 2);
  CHECK(rig.legs[1]->info().path.front().target.identity[0] == 1);  // the same bridge
  CHECK(rig.legs[1]->info().path[1].target.identity[0] == 101);
  // The retried request kept the middle exclusion.
  CHECK(rig.requests.back().exclude.count(relay_id(101)) == 1);

  // A first hop that is down: the retry through it falls back to another.
  PoolRig down;
  down.refuse = [](const client::PathRequest& r) -> std::optional<client::PathProblem> {
    if (!r.first_hop) return std::nullopt;
    client::PathProblem p;
    p.first_hop_unusable = true;
    return p;
  };
  down.pool->tick();
  down.open_all();
  REQUIRE(down.pool->open_count() == 1);
  down.exit.kill(down.legs[0]->serial());
  REQUIRE(down.legs.size() == 3);
  CHECK(down.requests[down.requests.size() - 2].first_hop == std::optional<client::RelayIdentity>(relay_id(1)));
  CHECK_FALSE(down.requests.back().first_hop);
}

TEST_CASE("conflux pool: retired and dirty sets close when their last stream leaves", "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.max_dirtiness = std::chrono::seconds(10);
  o.new_circuit_period = std::chrono::seconds(1);  // the expiry pass at every tick
  PoolRig rig(o);
  client::StreamNeeds n;
  n.port = 80;
  auto* set = rig.acquire(n);
  REQUIRE(set != nullptr);
  FakeStream& s = rig.stream();
  auto id = set->attach(s);
  REQUIRE(id);
  rig.pool->claim(*set, n.isolation);
  rig.pool->retire(*set);  // the exit did not answer: no new streams
  client::StreamNeeds again = n;
  auto* other = rig.acquire(again);
  CHECK(other != set);
  set->detach(*id);
  rig.pool->stream_done(*set);
  CHECK(s.closed == std::nullopt);  // it was detached first
  const auto open_before = rig.pool->open_count();
  rig.pool->tick();  // reaps the closed set
  CHECK(rig.pool->open_count() <= open_before);
  CHECK(rig.pool->stats().sets_closed >= 1);

  // Dirty past MaxCircuitDirtiness and idle: closed by the next expiry pass.
  FakeStream& s2 = rig.stream();
  auto id2 = other->attach(s2);
  REQUIRE(id2);
  other->detach(*id2);
  rig.clock.advance(11s);
  rig.pool->tick();
  CHECK(rig.pool->stats().sets_closed >= 2);
}

TEST_CASE("conflux pool: under out-of-order memory pressure the oldest set is shed", "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.budget.cap_bytes = 64 * 1024;
  o.budget.pressure_bytes = 1;  // any out-of-order byte is pressure
  PoolRig rig(o);
  client::StreamNeeds n;
  n.port = 80;
  auto* set = rig.acquire(n);
  REQUIRE(set != nullptr);
  FakeStream& s = rig.stream();
  auto id = set->attach(s);
  REQUIRE(id);
  // The exit skips one number on a leg: the next cell waits out of order.
  auto& leg = *rig.legs[0];
  REQUIRE(leg.owner != nullptr);
  leg.owner->on_leg_msg(leg.serial(), HopNum{3}, StreamId{0}, cell::ConfluxSwitchMsg{SeqRel{1}});
  leg.owner->on_leg_msg(leg.serial(), HopNum{3}, *id, cell::DataMsg{{1, 2, 3}});
  CHECK(s.closed == std::optional<std::string>("out-of-order memory pressure"));
  CHECK(rig.pool->stats().sets_shed == 1);
  CHECK(rig.pool->budget().used_bytes() == 0);
}

TEST_CASE("conflux pool: shutdown closes every set", "[proxy][conflux]") {
  PoolRig rig;
  rig.pool->tick();
  rig.open_all();
  rig.pool->shutdown();
  for (auto& l : rig.legs) CHECK(l->closed);
  CHECK(rig.pool->open_count() == 0);
  rig.pool->tick();  // nothing launched after shutdown
  CHECK(rig.legs.size() == 2);
}
