// Congestion control (prop 324) at the relay that is a circuit's edge: the
// ntor-v3 negotiation in CREATE2/CREATED2, the SENDME cadence of sendme_inc
// in both directions, Vegas on the DATA the edge originates, and the
// fixed-window behaviour kept for every circuit that did not agree to it.
#include <memory>

#include "relay_cc_test_support.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace conflux::test;

namespace {

const std::vector<std::uint8_t> kSmSendmeInc31{0x01, 0x02, 0x01, 31};
const std::vector<std::uint8_t> kSmEmpty{0x00};

// A fake monotonic clock the switch reads through CircuitSwitchConfig::now.
struct FakeTime {
  std::shared_ptr<CcClock::time_point> t = std::make_shared<CcClock::time_point>(std::chrono::seconds(1000));
  void advance(std::chrono::microseconds d) const { *t += d; }
  [[nodiscard]] std::function<CcClock::time_point()> fn() const {
    return [t = t] { return *t; };
  }
};

}  // namespace

TEST_CASE("a client asking for congestion control gets cc_sendme_inc 31 in CREATED2", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  CHECK(client.server_message == kSmSendmeInc31);
  const CircuitHandle h = edge_circuit(net);
  CHECK(net.relays[0]->sw->uses_congestion_control(h));
  auto info = net.relays[0]->sw->flow_info(h);
  REQUIRE(info);
  CHECK(info->congestion_control);
  CHECK(info->sendme_inc == 31);
  CHECK(info->window == 124);  // cc_cwnd_init
  CHECK(info->inflight == 0);
  CHECK(net.relays[0]->sw->stats().circuits_cc == 1);
}

TEST_CASE("with congestion control the edge acknowledges the client's DATA every 31 cells", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  crypto::SendmeDigest thirty_first{};
  for (int i = 1; i <= 30; ++i) client.send_data();
  client.drain();
  CHECK(client.sendmes.empty());
  thirty_first = client.send_data();
  for (int i = 32; i <= 62; ++i) (void)client.send_data();
  client.drain();
  CHECK(of_type<DeliverStreamMessage>(net.relays[0]->exit_inbox).size() == 62);
  REQUIRE(client.sendmes.size() == 2);
  // The v1 tag is the running digest of the 31st DATA cell.
  REQUIRE(client.sendmes[0].tag);
  CHECK(client.sendmes[0].tag->len == 20);
  CHECK(std::equal(thirty_first.begin(), thirty_first.end(), client.sendmes[0].tag->bytes.begin()));
}

TEST_CASE("with congestion control the edge's DATA stops at cwnd and needs a SENDME every 31 cells",
          "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  CHECK(fill_window(net, h) == 124);  // cc_cwnd_init, not the fixed window of 1000
  client.drain();
  CHECK(client.data_received == 124);
  CHECK(client.tags_due.size() == 4);  // cells 31, 62, 93, 124

  net.relays[0]->exit_inbox.clear();
  client.send_sendme();
  auto& inbox = net.relays[0]->exit_inbox;
  CHECK(of_type<CircuitSendme>(inbox).size() == 1);
  CHECK(of_type<CircuitWritable>(inbox).size() == 1);  // it was blocked, and is open again
  auto info = net.relays[0]->sw->flow_info(h);
  REQUIRE(info);
  CHECK(info->inflight == 93);
  // Without a clock every RTT sample is a stall: Vegas skips it and cwnd stays.
  CHECK(info->window == 124);
  CHECK(fill_window(net, h) == 31);
}

TEST_CASE("with congestion control a SENDME with the wrong tag closes the circuit", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  REQUIRE(fill_window(net, h) == 124);
  client.drain();
  client.send_sendme(false);
  client.drain();
  CHECK(client.destroyed == cell::DestroyReason::Protocol);
  auto closed = of_type<CircuitClosed>(net.relays[0]->exit_inbox);
  REQUIRE(closed.size() == 1);
  CHECK(closed[0].reason == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->stats().protocol_violations == 1);
}

TEST_CASE("with congestion control a SENDME nothing was sent for closes the circuit", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  client.send(StreamId{0}, v1(digest_for(1)));
  client.drain();
  CHECK(client.destroyed == cell::DestroyReason::Protocol);
}

TEST_CASE("with congestion control a stream SENDME is a protocol violation", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  client.send(StreamId{5}, cell::SendmeMsg{});
  client.drain();
  CHECK(client.destroyed == cell::DestroyReason::Protocol);
  CHECK(of_type<DeliverStreamMessage>(net.relays[0]->exit_inbox).empty());
  CHECK(of_type<CircuitClosed>(net.relays[0]->exit_inbox).size() == 1);
}

TEST_CASE("without congestion control a stream SENDME still goes to the exit module", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskNothing));
  client.send(StreamId{5}, cell::SendmeMsg{});
  client.drain();
  CHECK_FALSE(client.destroyed);
  auto delivered = of_type<DeliverStreamMessage>(net.relays[0]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  CHECK(std::holds_alternative<cell::SendmeMsg>(delivered[0].msg));
}

TEST_CASE("a malformed extension list refuses the handshake with DESTROY PROTOCOL", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  const std::array<std::uint8_t, 2> truncated{0x01, 0x01};  // one entry announced, its body missing
  CHECK_FALSE(client.create(truncated));
  CHECK(client.destroyed == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->stats().handshake_failures == 1);
}

namespace {

// Both directions of a circuit that did not agree to congestion control:
// the edge may originate exactly 1000 DATA cells, and acknowledges the
// client's every 100 (not 31).
void check_fixed_windows(Net& net, CcTestClient& client) {
  const CircuitHandle h = edge_circuit(net);
  CHECK_FALSE(net.relays[0]->sw->uses_congestion_control(h));
  for (int i = 0; i < 99; ++i) (void)client.send_data();
  client.drain();
  CHECK(client.sendmes.empty());
  (void)client.send_data();
  client.drain();
  CHECK(client.sendmes.size() == 1);

  CHECK(fill_window(net, h) == 1000);
  client.drain();
  CHECK(client.tags_due.size() == 10);
  net.relays[0]->exit_inbox.clear();
  client.send_sendme();
  CHECK(of_type<CircuitSendme>(net.relays[0]->exit_inbox).size() == 1);
  CHECK(of_type<CircuitWritable>(net.relays[0]->exit_inbox).size() == 1);
  CHECK(fill_window(net, h) == 100);
}

}  // namespace

TEST_CASE("a client that does not ask for congestion control keeps fixed windows", "[switch][cc]") {
  Net net(1);
  CcTestClient client(net);
  REQUIRE(client.create(kAskNothing));
  CHECK(client.server_message == kSmEmpty);
  check_fixed_windows(net, client);
  CHECK(net.relays[0]->sw->stats().circuits_cc == 0);
}

TEST_CASE("a relay with cc_alg 0 declines congestion control and keeps fixed windows", "[switch][cc]") {
  CircuitSwitchConfig cfg;
  cfg.cc.alg = CcAlg::FixedWindow;
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  CHECK(client.server_message == kSmEmpty);
  check_fixed_windows(net, client);
}

TEST_CASE("a CREATE2 ntor (v1) circuit keeps fixed windows", "[switch][cc]") {
  Net net(1);
  Client client(net);
  client.create_first_hop();  // the proxy's machine; ntor-v3 with no extensions
  CHECK_FALSE(net.relays[0]->sw->uses_congestion_control(1));
}

TEST_CASE("with congestion control and a clock, Vegas grows the edge's window past 1000 cells in flight",
          "[switch][cc]") {
  FakeTime time;
  CircuitSwitchConfig cfg;
  cfg.now = time.fn();
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  auto& sw = *net.relays[0]->sw;

  // Round trips of 50 ms: the edge fills its window, the client acknowledges
  // everything it owes 50 ms later. The RTT never grows, so the queue
  // estimate stays 0 and slow start keeps growing cwnd.
  std::size_t in_flight = fill_window(net, h);
  CHECK(in_flight == 124);
  std::size_t rounds = 0;
  while (in_flight <= 1000 && rounds < 40) {
    client.drain();
    time.advance(std::chrono::milliseconds(50));
    const bool first = rounds == 0;
    while (!client.tags_due.empty()) {
      client.send_sendme();
      if (first && client.tags_due.size() == 3) CHECK(sw.flow_info(h)->window == 155);  // 124 + sendme_inc
    }
    CHECK_FALSE(client.destroyed);
    (void)fill_window(net, h);
    in_flight = sw.flow_info(h)->inflight;
    ++rounds;
  }
  auto info = sw.flow_info(h);
  REQUIRE(info);
  CHECK(info->inflight > 1000);
  CHECK(info->window == info->inflight);  // the edge sent until cwnd was full
  CHECK(info->ewma_rtt_usec == 50000);
  CHECK_FALSE(sw.can_send_data(h));
}

TEST_CASE("cc_circuits shows the Vegas state of the edge's circuits and counts slow-start exits by reason",
          "[switch][cc]") {
  FakeTime time;
  CircuitSwitchConfig cfg;
  cfg.now = time.fn();
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  auto& sw = *net.relays[0]->sw;
  CcCircuitsView view = sw.cc_circuits(8);
  CHECK(view.circuits == 1);
  CHECK(view.in_slow_start == 1);
  REQUIRE(view.largest.size() == 1);
  CHECK(view.largest[0].circuit == h);
  CHECK(view.largest[0].info.window == 124);
  CHECK(view.largest[0].info.min_rtt_usec == 0);

  // Two rounds of 50 ms grow cwnd in slow start; then round trips of
  // 200 ms: the EWMA (N = 2 in slow start) rises above the 50 ms minimum,
  // the queue estimate passes gamma (186) and slow start ends on congestion.
  (void)fill_window(net, h);
  for (const auto rtt : {50, 50, 200, 200}) {
    client.drain();
    time.advance(std::chrono::milliseconds(rtt));
    while (!client.tags_due.empty()) client.send_sendme();
    REQUIRE_FALSE(client.destroyed);
    (void)fill_window(net, h);
  }
  const auto& exits = sw.stats().cc_slow_start_exits;
  CHECK(exits.at(static_cast<std::size_t>(SlowStartExit::Congestion)) == 1);
  CHECK(exits.at(static_cast<std::size_t>(SlowStartExit::IncFloor)) == 0);
  CHECK(exits.at(static_cast<std::size_t>(SlowStartExit::SsMax)) == 0);
  view = sw.cc_circuits(8);
  CHECK(view.circuits == 1);
  CHECK(view.in_slow_start == 0);
  REQUIRE(view.largest.size() == 1);
  const RelayCircuitFlowInfo& info = view.largest[0].info;
  CHECK_FALSE(info.slow_start);
  CHECK(info.slow_start_exit == SlowStartExit::Congestion);
  CHECK(info.min_rtt_usec == 50000);
  CHECK(info.ewma_rtt_usec > 50000);
  CHECK(info.bdp > 0);
  CHECK(info.bdp < info.window);  // cwnd * min / EWMA, and cwnd stays above it
  // The limit bounds the per-circuit samples, not the counts.
  view = sw.cc_circuits(0);
  CHECK(view.circuits == 1);
  CHECK(view.largest.empty());
}

TEST_CASE("a clock stall seen on a circuit marks the runtime's one ClockHealth", "[switch][cc]") {
  ClockHealth health;
  CircuitSwitchConfig cfg;
  cfg.clock_health = &health;  // time stands still: the first RTT sample is 0
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  REQUIRE(fill_window(net, edge_circuit(net)) == 124);
  client.drain();
  CHECK_FALSE(health.broken);
  client.send_sendme();
  CHECK(health.broken);
}

TEST_CASE("a circuit blocked on its channel towards the client is a congestion signal at its SENDME",
          "[switch][cc]") {
  // Equal 50 ms round trips: with the channel free slow start goes on (the
  // case above); with the runtime saying the circuit's queue on the client's
  // channel is past cellq_high, the first SENDME ends slow start on
  // congestion, as tor's circuit_blocked_on_p_chan does.
  FakeTime time;
  auto blocked = std::make_shared<bool>(false);
  std::vector<std::pair<ChannelId, CircId>> asked;
  CircuitSwitchConfig cfg;
  cfg.now = time.fn();
  cfg.channel_state = [blocked, &asked](ChannelId chan, CircId circ) {
    asked.emplace_back(chan, circ);
    return CcChannelState{*blocked, *blocked ? 300U : 0U};
  };
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  auto& sw = *net.relays[0]->sw;
  (void)fill_window(net, h);
  client.drain();
  time.advance(std::chrono::milliseconds(50));
  client.send_sendme();
  REQUIRE_FALSE(client.destroyed);
  REQUIRE_FALSE(asked.empty());  // at the SENDME, and at every can_send_data()
  for (const auto& [chan, circ] : asked) {
    CHECK(chan == kClientChan);  // the client's side of the circuit
    CHECK(circ == client.circ);
  }
  CHECK(sw.flow_info(h)->slow_start);

  *blocked = true;
  time.advance(std::chrono::milliseconds(1));
  client.send_sendme();
  REQUIRE_FALSE(client.destroyed);
  CHECK_FALSE(sw.flow_info(h)->slow_start);
  CHECK(sw.flow_info(h)->slow_start_exit == SlowStartExit::Congestion);
  CHECK(sw.stats().cc_slow_start_exits.at(static_cast<std::size_t>(SlowStartExit::Congestion)) == 1);
}

TEST_CASE("an edge blocked on its channel towards the client sends no DATA until the queue drains",
          "[switch][cc]") {
  // tor stops reading an edge's streams while its circuit is blocked on the
  // channel (set_streams_blocked_on_circ), and starts again when the queue
  // drains below cellq_low: the runtime's mux says when, and the exit hears
  // it as on_circuit_writable.
  auto blocked = std::make_shared<bool>(false);
  CircuitSwitchConfig cfg;
  cfg.now = FakeTime{}.fn();
  cfg.channel_state = [blocked](ChannelId, CircId) { return CcChannelState{*blocked, *blocked ? 256U : 0U}; };
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  auto& sw = *net.relays[0]->sw;
  auto& inbox = net.relays[0]->exit_inbox;
  CHECK(sw.can_send_data(h));
  CHECK_FALSE(sw.blocked_on_channel(h));

  *blocked = true;
  CHECK_FALSE(sw.can_send_data(h));
  CHECK(sw.blocked_on_channel(h));
  CHECK(fill_window(net, h) == 0);

  *blocked = false;
  inbox.clear();
  sw.on_circuit_unblocked(kClientChan, client.circ);
  net.pump(0);
  CHECK(of_type<CircuitWritable>(inbox).size() == 1);
  CHECK(sw.can_send_data(h));

  // Another channel's circuit of the same number, or a window that is shut,
  // wakes nobody.
  inbox.clear();
  sw.on_circuit_unblocked(kClientChan + 99, client.circ);
  net.pump(0);
  CHECK(of_type<CircuitWritable>(inbox).empty());
  (void)fill_window(net, h);
  inbox.clear();
  sw.on_circuit_unblocked(kClientChan, client.circ);
  net.pump(0);
  CHECK(of_type<CircuitWritable>(inbox).empty());
}

TEST_CASE("the edge reads the clock for one DATA cell in sendme_inc: the one whose SENDME times a round trip",
          "[switch][cc]") {
  auto reads = std::make_shared<std::size_t>(0);
  CircuitSwitchConfig cfg;
  cfg.now = [reads] {
    ++*reads;
    return CcClock::time_point(std::chrono::seconds(1000));
  };
  Net net(1, cfg);
  CcTestClient client(net);
  REQUIRE(client.create(kAskCc));
  const CircuitHandle h = edge_circuit(net);
  const std::size_t before = *reads;
  CHECK(fill_window(net, h) == 124);
  CHECK(*reads - before == 4);  // cells 31, 62, 93 and 124, as tor timestamps them
}
