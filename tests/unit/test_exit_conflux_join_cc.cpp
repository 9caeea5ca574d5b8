// The exit's Conflux join point on legs with congestion control: the set
// follows each leg's Vegas cwnd and sendme_inc (31) as the switch reports
// them, instead of assuming fixed windows of 1000 cells acknowledged by 100.
// The client asks for no particular UX: LowRTT at the exit, which fills the
// one leg's window (the throughput schedulers hold back before RTT samples).
#include "test_exit_conflux_join_support.hpp"

using namespace conflux;
using namespace conflux::test::join;

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
