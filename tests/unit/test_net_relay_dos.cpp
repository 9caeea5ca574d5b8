// The relay runtime carrying out the DoS guard's answers, in one process:
// a marked client's CREATE_FAST gets DESTROY RESOURCELIMIT and leaves no
// circuit; too many BEGINs on one circuit are answered END RESOURCELIMIT
// (defense 2) or close the circuit (defense 3); a relay (an authenticated
// peer) is never counted as a client.
#include "one_hop_client.hpp"
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;

namespace {

net::ChannelManagerConfig with_dos(const proto::DosParams& p) {
  net::ChannelManagerConfig c;
  c.dos = p;
  return c;
}

// The messages for `stream` that came back, waiting until `n` arrived.
std::vector<cell::RelayMsg> answers(boost::asio::io_context& io, net::ClientCircuit& circ, std::size_t n) {
  std::vector<cell::RelayMsg> got;
  (void)run_until(io, [&] {
    while (!circ.inbox().empty()) {
      got.push_back(std::move(circ.inbox().front().msg));
      circ.inbox().pop_front();
    }
    return got.size() >= n || circ.destroyed();
  }, 5s);
  return got;
}

cell::BeginMsg begin() { return cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}; }

}  // namespace

TEST_CASE("a marked client's CREATE_FAST is answered DESTROY RESOURCELIMIT", "[net][relay][dos]") {
  boost::asio::io_context io;
  net::SystemClock clock;
  proto::DosParams p;
  p.cc_enabled = true;
  p.cc_burst = 4;
  p.cc_rate = 1;
  p.cc_min_connections = 1;
  TestRelay relay(io, clock, with_dos(p));
  OneHopClient client(io, clock, relay.endpoint, relay.keys.identity());  // the first circuit

  for (int i = 0; i < 2; ++i) CHECK(client.fast_circuit().hops() == 1);
  // The 4th takes the last token: the address is marked, the cell refused.
  auto& fourth = client.fast_circuit();
  CHECK(fourth.hops() == 0);
  CHECK(fourth.destroyed() == cell::DestroyReason::ResourceLimit);
  CHECK(relay.counters().circuits == 3);
  CHECK(relay.counters().dos.marked_address == 1);
  CHECK(relay.counters().dos.circuit_rejected == 1);
  // The channel stays: its open circuits still work.
  CHECK(client.link().is_open());
}

TEST_CASE("too many BEGINs on a circuit: END RESOURCELIMIT, or the circuit closes", "[net][relay][dos]") {
  boost::asio::io_context io;
  net::SystemClock clock;
  proto::DosParams p;
  p.stream_enabled = true;
  p.stream_rate = 1;
  p.stream_burst = 2;
  TestRelay relay(io, clock, with_dos(p));
  OneHopClient client(io, clock, relay.endpoint, relay.keys.identity());

  auto& circ = client.circuit();
  for (std::uint16_t s = 1; s <= 3; ++s) REQUIRE(circ.send(HopNum{1}, StreamId{s}, begin()));
  auto got = answers(io, circ, 3);
  REQUIRE(got.size() == 3);
  CHECK(std::holds_alternative<cell::ConnectedMsg>(got[0]));
  CHECK(std::holds_alternative<cell::ConnectedMsg>(got[1]));
  REQUIRE(std::holds_alternative<cell::EndMsg>(got[2]));
  CHECK(std::get<cell::EndMsg>(got[2]).reason == cell::EndReason::ResourceLimit);
  CHECK(relay.exit.begins.size() == 2);  // the third never reached the exit
  CHECK(relay.counters().dos.stream_rejected == 1);

  // Defense 3 (SIGHUP in a real relay): the circuit goes.
  p.stream_defense = proto::DosStreamDefense::CloseCircuit;
  relay.manager->set_dos_params(p);
  auto& second = client.fast_circuit();
  REQUIRE(second.hops() == 1);
  for (std::uint16_t s = 1; s <= 3; ++s) REQUIRE(second.send(HopNum{1}, StreamId{s}, begin()));
  REQUIRE(run_until(io, [&] { return second.destroyed().has_value(); }));
  CHECK(*second.destroyed() == cell::DestroyReason::ResourceLimit);
  CHECK(relay.exit.begins.size() == 4);
}

TEST_CASE("more than MaxConcurrentCount client connections are closed at accept, a relay's are not counted",
          "[net][relay][dos]") {
  boost::asio::io_context io;
  net::SystemClock clock;
  proto::DosParams p;
  p.conn_enabled = true;
  p.conn_max_concurrent = 1;
  TestRelay a(io, clock, with_dos(p));
  TestRelay b(io, clock, {});
  const auto loopback = proto::dos_address_v4({127, 0, 0, 1});
  auto c1 = std::make_unique<TestClient>(io, clock);
  auto c2 = std::make_unique<TestClient>(io, clock);
  TestClient c3(io, clock);
  c1->connect(a, a.keys.identity());
  REQUIRE(run_until(io, [&] { return c1->opened; }));
  c2->connect(a, a.keys.identity());
  // Counted when the relay's side of the handshake finishes (NETINFO read),
  // a moment after the client's.
  REQUIRE(run_until(io, [&] { return c2->opened && a.manager->dos_guard().concurrent(loopback) == 2; }));
  // More than one open (tor compares with '>'): the third is closed at accept.
  c3.connect(a, a.keys.identity());
  REQUIRE(run_until(io, [&] { return c3.link->state() == net::ClientLink::State::Closed; }));
  CHECK_FALSE(c3.opened);
  CHECK(a.counters().dos.concurrent_conn_rejected == 1);
  CHECK(a.counters().dos_connections_refused == 1);

  // The clients leave; relay b then opens an authenticated channel to a for
  // an extend: a does not count it as a client's.
  c1.reset();
  c2.reset();
  REQUIRE(run_until(io, [&] { return a.manager->dos_guard().concurrent(loopback) == 0; }));
  TestClient via_b(io, clock);
  via_b.connect(b, b.keys.identity());
  REQUIRE(run_until(io, [&] { return via_b.opened; }));
  auto circ = build_circuit(io, via_b, {&b, &a});
  CHECK(circ->hops() == 2);
  CHECK(a.counters().channels_inbound == 1);
  CHECK(a.manager->dos_guard().concurrent(loopback) == 0);
}

namespace {

// The test exit, holding made-up bytes for its circuits' servers, as
// ExitStreams reports them (its own accounting: test_exit_stream_pump).
struct HoldingExit : TestExit {
  std::map<proto::CircuitHandle, proto::BufferedCircuit> held;
  [[nodiscard]] std::size_t buffered_bytes() const override {
    std::size_t n = 0;
    for (const auto& [c, b] : held) n += b.bytes;
    return n;
  }
  [[nodiscard]] std::vector<proto::BufferedCircuit> buffered_circuits() const override {
    std::vector<proto::BufferedCircuit> all;
    for (const auto& [c, b] : held) all.push_back(b);
    return all;
  }
  void on_circuit_closed(proto::CircuitHandle circuit, cell::DestroyReason reason) override {
    held.erase(circuit);
    TestExit::on_circuit_closed(circuit, reason);
  }
};

}  // namespace

TEST_CASE("MaxMemInQueues counts the exit's stream buffers and closes the circuit whose bytes waited longest",
          "[net][relay][oom]") {
  boost::asio::io_context io;
  net::SystemClock clock;
  net::ChannelManagerConfig config;
  config.max_mem_in_queues = 1 << 20;
  TestRelay relay(io, clock, config);
  HoldingExit exit;
  exit.out = relay.manager.get();
  relay.manager->set_exit_handler(&exit);
  OneHopClient client(io, clock, relay.endpoint, relay.keys.identity());
  auto& older = client.circuit();
  auto& newer = client.fast_circuit();
  REQUIRE(newer.hops() == 1);
  REQUIRE(older.send(HopNum{1}, StreamId{1}, begin()));
  REQUIRE(newer.send(HopNum{1}, StreamId{1}, begin()));
  REQUIRE(run_until(io, [&] { return exit.begins.size() == 2; }));
  const auto t = clock.now();
  exit.held[exit.begins[0].first] = {exit.begins[0].first, 600 * 1024, t - std::chrono::seconds(5)};
  exit.held[exit.begins[1].first] = {exit.begins[1].first, 500 * 1024, t - std::chrono::seconds(1)};
  // The next cell the relay handles runs the check: 1.1 MB > 1 MB.
  REQUIRE(newer.send(HopNum{1}, StreamId{1}, cell::DataMsg{std::vector<std::uint8_t>(10, 1)}));
  REQUIRE(run_until(io, [&] { return older.destroyed().has_value(); }));
  CHECK(*older.destroyed() == cell::DestroyReason::ResourceLimit);
  CHECK_FALSE(newer.destroyed());
  const auto c = relay.counters();
  CHECK(c.oom_runs == 1);
  CHECK(c.oom_circuits_killed == 1);
  CHECK(c.oom_bytes_removed == 600 * 1024 - proto::kWireCellLen);  // less the DESTROY it queued
  CHECK(c.exit_buffered_bytes == 500 * 1024);
  relay.manager->set_exit_handler(&relay.exit);
}

namespace {
// An exit holding bytes under a handle the switch does not know (a Conflux
// set's, as ConfluxJoin lists its reorder queues): the OOM handler asks the
// exit to close it.
struct VirtualHoldingExit : HoldingExit {
  static constexpr proto::CircuitHandle kSet = proto::CircuitHandle{1} << 63 | 7;
  std::vector<proto::CircuitHandle> closed_for_memory;
  bool close_for_memory(proto::CircuitHandle circuit) override {
    if (circuit != kSet || !held.contains(kSet)) return false;
    held.erase(kSet);
    closed_for_memory.push_back(circuit);
    return true;
  }
};
}  // namespace

TEST_CASE("MaxMemInQueues closes a Conflux set through the exit when its reorder bytes are the oldest",
          "[net][relay][oom]") {
  boost::asio::io_context io;
  net::SystemClock clock;
  net::ChannelManagerConfig config;
  config.max_mem_in_queues = 1 << 20;
  TestRelay relay(io, clock, config);
  VirtualHoldingExit exit;
  exit.out = relay.manager.get();
  relay.manager->set_exit_handler(&exit);
  OneHopClient client(io, clock, relay.endpoint, relay.keys.identity());
  auto& circ = client.circuit();
  REQUIRE(circ.send(HopNum{1}, StreamId{1}, begin()));
  REQUIRE(run_until(io, [&] { return exit.begins.size() == 1; }));
  // Idle, every channel buffer is empty: nothing leaks into the count.
  run_until(io, [] { return false; }, 100ms);
  CHECK(relay.counters().channel_buffered_bytes == 0);
  const auto t = clock.now();
  exit.held[exit.begins[0].first] = {exit.begins[0].first, 300 * 1024, t - std::chrono::seconds(1)};
  exit.held[VirtualHoldingExit::kSet] = {VirtualHoldingExit::kSet, 800 * 1024, t - std::chrono::seconds(5)};
  REQUIRE(circ.send(HopNum{1}, StreamId{1}, cell::DataMsg{std::vector<std::uint8_t>(10, 1)}));
  REQUIRE(run_until(io, [&] { return !exit.closed_for_memory.empty(); }));
  CHECK(exit.closed_for_memory == std::vector<proto::CircuitHandle>{VirtualHoldingExit::kSet});
  // 300 KiB left is under 90% of 1 MiB: the plain circuit stays.
  run_until(io, [] { return false; }, 200ms);
  CHECK_FALSE(circ.destroyed());
  const auto c = relay.counters();
  CHECK(c.oom_runs == 1);
  CHECK(c.oom_circuits_killed == 1);
  CHECK(c.oom_bytes_removed == 800 * 1024);
  CHECK(c.channel_buffered_bytes == 0);
  relay.manager->set_exit_handler(&relay.exit);
}
