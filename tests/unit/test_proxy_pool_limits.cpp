// The limits that can make a stream wait, and how the Conflux pool gets past
// them (issue 13): idle sets closed to make room at max_sets, the fallback
// to a single circuit when no set can be had, the deadline, and the expiry of
// idle dirty sets once per NewCircuitPeriod. Legs are FakeLegs, the exit the
// sans-I/O one, the single-circuit pool a fake (proxy_conflux_pool_rig.hpp).
#include <catch2/catch.hpp>

#include "proxy_conflux_pool_rig.hpp"

using namespace conflux;
using namespace conflux::test;

namespace {

client::StreamNeeds group(const std::string& isolation) {
  client::StreamNeeds n;
  n.port = 443;
  n.isolation = isolation;
  return n;
}

// A set (or circuit) for the group, with one stream on it that stays.
client::StreamCarrier* busy(PoolRig& rig, const std::string& isolation) {
  auto* c = rig.acquire(group(isolation));
  REQUIRE(c != nullptr);
  REQUIRE(c->attach(rig.stream()));
  rig.pool->claim(*c, isolation);
  return c;
}

bool is_set(const client::StreamCarrier* c) { return c != nullptr && c->name().rfind("Conflux set ", 0) == 0; }

}  // namespace

TEST_CASE("pool limits: 500 isolation groups one after another are served by 4 set slots", "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.max_sets = 4;
  o.prebuilt = 0;
  PoolRig rig(o, /*with_fallback=*/true);
  for (int g = 0; g < 500; ++g) {
    const auto needs = group("group " + std::to_string(g));
    auto* c = rig.acquire(needs);
    REQUIRE(is_set(c));
    FakeStream& s = rig.stream();
    const auto id = c->attach(s);
    REQUIRE(id);
    rig.pool->claim(*c, needs.isolation);
    c->detach(*id);
    rig.pool->stream_done(*c);
    REQUIRE(rig.pool->open_count() + rig.pool->linking_count() <= 4);
    rig.exit_forgets_closed_sets();
  }
  const auto st = rig.pool->stats();
  CHECK(st.sets_launched == 500);
  // From the fifth group on, the least recently used idle set made room.
  CHECK(st.sets_evicted == 496);
  CHECK(st.sets_closed == 496);
  CHECK(st.streams_fell_back == 0);
  CHECK(rig.single.acquires == 0);
  CHECK(rig.pool->open_count() == 4);
  CHECK(rig.pool->waiting_count() == 0);
}

TEST_CASE("pool limits: the least recently used idle set is the one closed to make room", "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.max_sets = 2;
  o.prebuilt = 0;
  PoolRig rig(o, true);
  // One stream each, ended one second apart: "a" first, then "b".
  auto use = [&](client::StreamCarrier* c, const std::string& name) {
    FakeStream& s = rig.stream();
    const auto id = c->attach(s);
    REQUIRE(id);
    rig.pool->claim(*c, name);
    return [&rig, c, id = *id] {
      c->detach(id);
      rig.pool->stream_done(*c);
      rig.clock.advance(1s);
    };
  };
  auto* a = rig.acquire(group("a"));
  REQUIRE(is_set(a));
  auto end_a = use(a, "a");
  auto* b = rig.acquire(group("b"));
  REQUIRE(is_set(b));
  REQUIRE(b != a);
  const auto b_serial = b->serial();
  auto end_b = use(b, "b");
  end_a();
  end_b();
  // "a" is used again: "b" is now the least recently used.
  REQUIRE(rig.acquire(group("a")) == a);
  use(a, "a")();
  auto* c = rig.acquire(group("c"));
  REQUIRE(is_set(c));
  CHECK(rig.pool->stats().sets_evicted == 1);
  CHECK(rig.logged("Conflux set " + std::to_string(b_serial) + " closed: idle, closed to make room (2 sets at most)"));
  CHECK(rig.acquire(group("a")) == a);
}

TEST_CASE("pool limits: every set slot holds streams: a new group falls back to a single circuit at once",
          "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.max_sets = 2;
  o.prebuilt = 0;
  PoolRig rig(o, true);
  auto* a = busy(rig, "a");
  busy(rig, "b");
  REQUIRE(rig.pool->open_count() == 2);

  const auto t0 = rig.clock.now();
  auto* c = rig.acquire(group("c"));
  REQUIRE(c != nullptr);
  CHECK(c->name() == "circuit 1");
  CHECK(rig.clock.now() - t0 < 1s);  // no waiting for a slot that holds streams
  CHECK(rig.single.acquires == 1);
  auto st = rig.pool->stats();
  CHECK(st.streams_fell_back == 1);
  CHECK(st.sets_launched == 2);
  CHECK(st.sets_evicted == 0);
  CHECK(rig.logged("No Conflux set for a stream (all 2 set slots are taken: 2 with streams, 0 linking for other "
                   "streams): it uses a single circuit"));

  // The circuit is the single-circuit pool's, although its serial is set 1's.
  REQUIRE(a->serial() == c->serial());
  rig.pool->claim(*c, "c");
  rig.pool->stream_done(*c);
  rig.pool->retire(*c);
  CHECK(rig.single.claims == 1);
  CHECK(rig.single.done == 1);
  CHECK(rig.single.retired == 1);
  CHECK(rig.pool->open_count() == 2);

  // Once a set has no stream, the next new group gets a set in its place.
  a->detach(StreamId{1});
  rig.pool->stream_done(*a);
  CHECK(is_set(rig.acquire(group("d"))));
  st = rig.pool->stats();
  CHECK(st.sets_evicted == 1);
  CHECK(st.streams_fell_back == 1);
}

TEST_CASE("pool limits: a set that does not link in time: the stream falls back after set_wait", "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.prebuilt = 0;
  o.set_wait = 1s;
  PoolRig rig(o, true);
  rig.exit.ignore_links = true;
  const auto t0 = rig.clock.now();
  auto* c = rig.acquire(group("a"));
  const auto waited = rig.clock.now() - t0;
  REQUIRE(c != nullptr);
  CHECK(c->name() == "circuit 1");
  CHECK(waited >= 1s);
  CHECK(waited < 2s);
  CHECK(rig.pool->stats().streams_fell_back == 1);
  CHECK(rig.pool->stats().sets_launched == 1);  // one set for the one stream, not one per second
  CHECK(rig.logged("No Conflux set for a stream (no set linked within 1 s): it uses a single circuit"));
}

TEST_CASE("pool limits: a stream that nothing can serve gets its answer at the deadline", "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.max_sets = 1;
  o.prebuilt = 0;
  PoolRig rig(o, true);
  busy(rig, "a");
  rig.single.serve = false;  // no circuit either (no path now, say)
  bool no_exit = false;
  const auto t0 = rig.clock.now();
  CHECK(rig.acquire(group("b"), &no_exit, 2s) == nullptr);
  const auto waited = rig.clock.now() - t0;
  CHECK(waited >= 2s);
  CHECK(waited < 2500ms);
  CHECK_FALSE(no_exit);
  CHECK(rig.single.acquires == 1);
  CHECK(rig.pool->stats().streams_fell_back == 1);
  CHECK(rig.pool->waiting_count() == 0);
}

TEST_CASE("pool limits: an idle dirty set expires at the first pass (NewCircuitPeriod) after MaxCircuitDirtiness",
          "[proxy][conflux]") {
  ConfluxPool::Options o;  // MaxCircuitDirtiness 600 s, NewCircuitPeriod 30 s: tor's defaults
  o.prebuilt = 0;
  PoolRig rig(o);
  rig.pool->tick();  // the first expiry pass
  auto* idle = rig.acquire(group("idle"));
  REQUIRE(is_set(idle));
  const auto idle_serial = idle->serial();  // the set is freed once closed and reaped
  FakeStream& s = rig.stream();
  const auto id = idle->attach(s);
  REQUIRE(id);
  rig.pool->claim(*idle, "idle");
  idle->detach(*id);  // no stream_done: only the expiry pass closes it
  busy(rig, "busy");
  REQUIRE(rig.pool->open_count() == 2);

  rig.clock.advance(599s);
  rig.pool->tick();  // a pass: dirty for 599 s, kept
  CHECK(rig.pool->open_count() == 2);
  rig.clock.advance(2s);
  rig.pool->tick();  // dirty past 600 s, but the next pass is 30 s after the last
  CHECK(rig.pool->open_count() == 2);
  CHECK(rig.pool->stats().sets_expired == 0);
  rig.clock.advance(28s);
  rig.pool->tick();
  CHECK(rig.pool->open_count() == 1);  // the set with a stream stays however dirty
  CHECK(rig.pool->stats().sets_expired == 1);
  CHECK(rig.logged("Conflux set " + std::to_string(idle_serial) + " closed: dirty and unused"));
}

TEST_CASE("pool limits: DisableNetwork 1 (refuse_waiting) gives a waiting stream null at once, without the fallback",
          "[proxy][conflux]") {
  ConfluxPool::Options o;
  o.prebuilt = 0;
  PoolRig rig(o, true);
  rig.refuse = [](const client::PathRequest&) {
    client::PathProblem p;
    p.why = "DisableNetwork is set";
    return std::optional<client::PathProblem>(p);
  };
  std::optional<client::StreamCarrier*> result;
  boost::asio::co_spawn(
      rig.io,
      [&]() -> net::awaitable<void> { result = co_await rig.pool->acquire(group("a"), rig.clock.now() + 60s); },
      boost::asio::detached);
  rig.io.run_for(100ms);
  REQUIRE_FALSE(result);
  CHECK(rig.pool->waiting_count() == 1);
  rig.pool->refuse_waiting();
  const auto refused = std::chrono::steady_clock::now();
  while (!result && std::chrono::steady_clock::now() - refused < 2s) rig.io.run_for(5ms);
  REQUIRE(result);
  CHECK(*result == nullptr);
  CHECK(std::chrono::steady_clock::now() - refused < 500ms);
  CHECK(rig.single.acquires == 0);  // the single-circuit pool is not asked: its own refusal is its pool's
  CHECK(rig.pool->waiting_count() == 0);
}
