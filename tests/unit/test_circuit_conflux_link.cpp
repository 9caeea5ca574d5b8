// Conflux linking: LINK -> LINKED -> LINKED_ACK at the client and the exit,
// nonce checks, deadlines with injected time, launch budget, per-origin caps,
// one LINKED_ACK per leg.
#include <catch2/catch.hpp>

#include <chrono>

#include "conflux/proto/conflux_linking.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace std::chrono_literals;

namespace {

const ConfluxTime kT0{std::chrono::seconds(1000)};

ConfluxNonce nonce(std::uint8_t fill) {
  ConfluxNonce n;
  n.fill(fill);
  return n;
}

cell::ConfluxLinkMsg link_with(const ConfluxNonce& n) {
  cell::ConfluxLinkMsg m;
  m.nonce = n;
  m.desired_ux = cell::ConfluxUx::HighThroughput;
  return m;
}

}  // namespace

TEST_CASE("client and exit link two legs end to end", "[conflux]") {
  ClientLinker client(nonce(7));
  ExitLinkRegistry exit;
  const LegId c1{11}, c2{12};  // client-side legs
  const LegId e1{21}, e2{22};  // the same circuits at the exit

  REQUIRE(client.note_launch());
  REQUIRE(client.note_launch());
  auto link1 = client.start_leg(c1, {}, cell::ConfluxUx::HighThroughput, kT0);
  auto link2 = client.start_leg(c2, {}, cell::ConfluxUx::HighThroughput, kT0 + 5ms);
  REQUIRE(link1);
  REQUIRE(link2);
  CHECK(link1->nonce == nonce(7));
  CHECK(client.pending_legs() == 2);
  CHECK(client.next_deadline() == kT0 + 30s);

  auto x1 = exit.on_link(/*origin*/ 1, e1, *link1);
  REQUIRE(x1);
  CHECK(x1->new_set);
  CHECK(x1->peer_ux == cell::ConfluxUx::HighThroughput);
  auto x2 = exit.on_link(/*origin*/ 2, e2, *link2);
  REQUIRE(x2);
  CHECK_FALSE(x2->new_set);
  CHECK(x2->set == x1->set);
  CHECK(exit.set_count() == 1);

  auto linked1 = exit.make_linked(e1, {}, kT0 + 40ms);
  REQUIRE(linked1);
  CHECK(linked1->desired_ux == cell::ConfluxUx::MinLatency);
  auto got1 = client.on_linked(c1, *linked1, kT0 + 80ms);
  REQUIRE(got1);
  CHECK(got1->rtt == 80ms);
  CHECK_FALSE(client.all_linked());

  auto linked2 = exit.make_linked(e2, {}, kT0 + 100ms);
  REQUIRE(linked2);
  auto got2 = client.on_linked(c2, *linked2, kT0 + 205ms);
  REQUIRE(got2);
  CHECK(got2->rtt == 200ms);
  CHECK(client.all_linked());
  CHECK_FALSE(client.next_deadline());

  auto rtt1 = exit.on_linked_ack(e1, kT0 + 120ms);
  REQUIRE(rtt1);
  CHECK(*rtt1 == 80ms);
  CHECK(exit.on_linked_ack(e1, kT0 + 130ms).error() == ConfluxError::DuplicateLinkedAck);
  REQUIRE(exit.on_linked_ack(e2, kT0 + 300ms));
}

TEST_CASE("client: LINKED checks", "[conflux]") {
  ClientLinker client(nonce(7));
  const LegId leg{1};
  REQUIRE(client.start_leg(leg, {}, cell::ConfluxUx::NoOpinion, kT0));
  cell::ConfluxLinkedMsg linked;
  linked.nonce = nonce(7);

  SECTION("unknown leg") { CHECK(client.on_linked(LegId{2}, linked, kT0).error() == ConfluxError::UnexpectedLinked); }
  SECTION("nonce differing in its last byte only") {
    linked.nonce.back() ^= 1;
    CHECK(client.on_linked(leg, linked, kT0).error() == ConfluxError::NonceMismatch);
  }
  SECTION("a second LINKED") {
    REQUIRE(client.on_linked(leg, linked, kT0 + 1ms));
    CHECK(client.on_linked(leg, linked, kT0 + 2ms).error() == ConfluxError::UnexpectedLinked);
  }
  SECTION("late LINKED, and the deadline reported") {
    CHECK(client.expired(kT0 + 30s).empty());
    CHECK(client.on_linked(leg, linked, kT0 + 31s).error() == ConfluxError::LinkTimeout);
    const auto gone = client.expired(kT0 + 31s);
    REQUIRE(gone.size() == 1);
    CHECK(gone[0] == leg);
    CHECK(client.pending_legs() == 0);
  }
  SECTION("a second LINK on the same leg") {
    CHECK(client.start_leg(leg, {}, cell::ConfluxUx::NoOpinion, kT0).error() == ConfluxError::DuplicateLeg);
  }
}

TEST_CASE("client: the launch budget is legs + retries", "[conflux]") {
  ClientLinkConfig cfg;
  cfg.legs_per_set = 2;
  cfg.max_leg_retries = 3;
  ClientLinker client(nonce(1), cfg);
  for (int i = 0; i < 5; ++i) REQUIRE(client.note_launch());
  CHECK_FALSE(client.launch_budget_left());
  CHECK(client.note_launch().error() == ConfluxError::TooManyLegs);
}

TEST_CASE("exit: one LINK per leg, LINKED_ACK only after LINKED and before its deadline", "[conflux]") {
  ExitLinkRegistry exit;
  const LegId leg{1};
  CHECK(exit.on_linked_ack(leg, kT0).error() == ConfluxError::UnexpectedLinkedAck);
  REQUIRE(exit.on_link(1, leg, link_with(nonce(3))));
  CHECK(exit.on_link(1, leg, link_with(nonce(3))).error() == ConfluxError::UnexpectedLink);
  CHECK(exit.on_linked_ack(leg, kT0).error() == ConfluxError::UnexpectedLinkedAck);  // no LINKED yet
  REQUIRE(exit.make_linked(leg, {}, kT0));
  CHECK(exit.make_linked(leg, {}, kT0).error() == ConfluxError::UnexpectedLink);
  CHECK(exit.expired(kT0 + 30s).empty());
  const auto overdue = exit.expired(kT0 + 31s);
  REQUIRE(overdue.size() == 1);
  CHECK(overdue[0] == leg);
  CHECK(exit.on_linked_ack(leg, kT0 + 31s).error() == ConfluxError::LinkTimeout);
}

TEST_CASE("exit: caps on sets and legs per origin, sets overall and legs per set", "[conflux]") {
  ExitLinkConfig cfg;
  cfg.max_sets = 3;
  cfg.max_sets_per_origin = 2;
  cfg.max_legs_per_origin = 4;
  cfg.max_legs_per_set = 2;
  ExitLinkRegistry exit(cfg);

  REQUIRE(exit.on_link(1, LegId{1}, link_with(nonce(1))));
  REQUIRE(exit.on_link(1, LegId{2}, link_with(nonce(2))));
  CHECK(exit.on_link(1, LegId{3}, link_with(nonce(3))).error() == ConfluxError::TooManySets);
  CHECK(exit.origin_sets(1) == 2);
  // Joining existing sets is not a new set; the per-set leg cap still holds.
  REQUIRE(exit.on_link(1, LegId{4}, link_with(nonce(1))));
  CHECK(exit.on_link(2, LegId{5}, link_with(nonce(1))).error() == ConfluxError::TooManyLegs);
  REQUIRE(exit.on_link(1, LegId{6}, link_with(nonce(2))));
  CHECK(exit.origin_legs(1) == 4);
  CHECK(exit.on_link(1, LegId{7}, link_with(nonce(9))).error() == ConfluxError::TooManyOriginLegs);
  // Another origin may create a set, up to the global cap.
  REQUIRE(exit.on_link(2, LegId{8}, link_with(nonce(4))));
  CHECK(exit.on_link(3, LegId{9}, link_with(nonce(5))).error() == ConfluxError::TooManySets);

  // Removing legs gives the capacity back; the last leg removes the set.
  auto r = exit.remove_leg(LegId{1});
  REQUIRE(r);
  CHECK_FALSE(r->set_empty);
  r = exit.remove_leg(LegId{4});
  REQUIRE(r);
  CHECK(r->set_empty);
  CHECK(exit.origin_sets(1) == 1);
  CHECK(exit.origin_legs(1) == 2);
  CHECK_FALSE(exit.set_of(LegId{1}));
  REQUIRE(exit.on_link(3, LegId{9}, link_with(nonce(5))));
  CHECK_FALSE(exit.remove_leg(LegId{42}));
}

TEST_CASE("exit: nonces that differ in one byte are different sets", "[conflux]") {
  ExitLinkRegistry exit;
  ConfluxNonce a = nonce(0x55);
  ConfluxNonce b = a;
  b[31] ^= 0x80;
  auto x = exit.on_link(1, LegId{1}, link_with(a));
  auto y = exit.on_link(1, LegId{2}, link_with(b));
  REQUIRE(x);
  REQUIRE(y);
  CHECK(y->new_set);
  CHECK(x->set != y->set);
}

TEST_CASE("exit: a held set outlives its last leg until forgotten", "[conflux]") {
  ExitLinkConfig cfg;
  cfg.max_sets_per_origin = 1;
  ExitLinkRegistry exit(cfg);
  auto x = exit.on_link(1, LegId{1}, link_with(nonce(3)));
  REQUIRE(x);
  exit.hold(x->set);
  auto r = exit.remove_leg(LegId{1});
  REQUIRE(r);
  CHECK_FALSE(r->set_empty);
  CHECK(exit.set_count() == 1);
  CHECK(exit.origin_legs(1) == 0);
  // Still counted against its creator, and still found by its nonce.
  CHECK(exit.on_link(1, LegId{2}, link_with(nonce(4))).error() == ConfluxError::TooManySets);
  auto again = exit.on_link(1, LegId{3}, link_with(nonce(3)));
  REQUIRE(again);
  CHECK_FALSE(again->new_set);
  CHECK(again->set == x->set);
  // Forgetting drops the set and the legs still registered to it.
  exit.forget_set(x->set);
  CHECK(exit.set_count() == 0);
  CHECK(exit.origin_sets(1) == 0);
  CHECK(exit.origin_legs(1) == 0);
  CHECK_FALSE(exit.set_of(LegId{3}));
  auto fresh = exit.on_link(1, LegId{4}, link_with(nonce(3)));
  REQUIRE(fresh);
  CHECK(fresh->new_set);
}
