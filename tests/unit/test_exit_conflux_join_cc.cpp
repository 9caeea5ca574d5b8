// The exit's Conflux join point on legs with congestion control: the set
// follows each leg's Vegas cwnd and sendme_inc (31) as the switch reports
// them, instead of assuming fixed windows of 1000 cells acknowledged by 100.
// The client asks for no particular UX: LowRTT at the exit, which fills the
// one leg's window (the throughput schedulers hold back before RTT samples).
#include "test_exit_conflux_join_support.hpp"

using namespace conflux;
using namespace conflux::test::join;

namespace {
// The DATA cells sent on a leg since the last call.
std::size_t data_taken(Fixture& f, CircuitHandle leg) {
  std::size_t n = 0;
  for (const auto& s : f.rt.take(leg))
    if (is<cell::DataMsg>(s.msg)) ++n;
  return n;
}
// Legs 1 and 2 on congestion-controlled circuits linked into one set (the
// throughput UX), whose stream 3 is connected; returns the set's handle.
CircuitHandle two_cc_legs(Fixture& f) {
  f.rt.cc_circuits = true;
  const proto::SetId id = f.link_raw(1, kChanA, 7);
  REQUIRE(f.link_raw(2, kChanB, 7) == id);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  REQUIRE(f.join->send_to_client(h, StreamId{3}, cell::ConnectedMsg{}));
  return h;
}
}  // namespace

TEST_CASE("a Conflux set on a congestion-controlled leg sends up to the leg's cwnd and follows its SENDMEs",
          "[exit][conflux][cc]") {
  Fixture f;
  f.rt.cc_circuits = true;
  const proto::SetId id = f.link_raw(1, kChanA, 7, cell::ConfluxUx::NoOpinion);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  CHECK(f.join->uses_congestion_control(h));
  REQUIRE(f.join->send_to_client(h, StreamId{3}, cell::ConnectedMsg{}));

  std::uint32_t sent = 0;
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent == 124);  // cc_cwnd_init, not the fixed window of 1000
  CHECK(f.rt.alive(1));

  // The SENDME for cell 31: Vegas grew cwnd to 155 and 93 cells are in flight.
  f.rt.client_sendme_cc(1, 155);
  CHECK(f.inner.writable == std::vector<CircuitHandle>{h});
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent == 124 + 62);
  CHECK(f.rt.alive(1));
  CHECK(f.rt.closed.empty());
  REQUIRE(f.join->set(id) != nullptr);
  const auto legs = f.join->set(id)->legs();
  REQUIRE(legs.size() == 1);
  CHECK(legs[0].cwnd == 155);
  CHECK(legs[0].inflight == 155);
}

TEST_CASE("a Conflux set on fixed-window legs keeps windows of 1000", "[exit][conflux][cc]") {
  Fixture f;
  const proto::SetId id = f.link_raw(1, kChanA, 7, cell::ConfluxUx::NoOpinion);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  CHECK_FALSE(f.join->uses_congestion_control(h));
  std::uint32_t sent = 0;
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent == 1000);
}

TEST_CASE("a Conflux set on two congestion-controlled legs fills one leg's cwnd, then the other's",
          "[exit][conflux][cc]") {
  // The throughput UX (ECF) with both legs on CC (LINKED_ACK after 10 ms
  // each, Vegas's cwnd 124): a full leg's next cell would wait for a SENDME,
  // the other leg's goes now, so DATA goes there (issue 14: before, the set
  // kept to one leg).
  Fixture f;
  const CircuitHandle h = two_cc_legs(f);
  std::uint32_t sent = 0;
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  auto data_on = [&f](CircuitHandle leg) { return data_taken(f, leg); };
  CHECK(sent == 248);
  CHECK(data_on(1) == 124);
  CHECK(data_on(2) == 124);
  // A SENDME on leg 2: Vegas grew its cwnd to 155, 93 in flight: 62 more go there.
  f.rt.client_sendme_cc(2, 155);
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent == 248 + 62);
  CHECK(data_on(1) == 0);
  CHECK(data_on(2) == 62);
  CHECK(f.rt.closed.empty());
}

TEST_CASE("a Conflux leg blocked on its channel takes no new DATA, and the set resumes when it drains",
          "[exit][conflux][cc]") {
  // tor's circuit_ready_to_send: a leg whose circuit is blocked on the
  // client's channel is no candidate; the set's streams wait when every leg
  // with window is blocked, and hear on_circuit_writable once one drains.
  Fixture f;
  const CircuitHandle h = two_cc_legs(f);
  auto data_on = [&f](CircuitHandle leg) { return data_taken(f, leg); };
  (void)data_on(1);
  (void)data_on(2);
  f.rt.circs.at(1).blocked = true;
  std::uint32_t sent = 0;
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent == 124);
  CHECK(data_on(1) == 0);
  CHECK(data_on(2) == 124);
  CHECK(f.inner.writable.empty());

  f.rt.unblock(1);
  CHECK(f.inner.writable == std::vector<CircuitHandle>{h});
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent == 248);
  CHECK(data_on(1) == 124);
  CHECK(f.rt.closed.empty());
}
