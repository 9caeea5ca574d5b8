// Three relays (ChannelManagers with real keys and TLS on loopback) and a
// client in one process: a 3-hop circuit carries a stream, relay-to-relay
// channels are reused in both directions, a dying middle relay destroys the
// circuit at both ends with a reason, idle channels close.
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;

namespace {

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7 + (i >> 8));
  return v;
}

struct ThreeRelays {
  boost::asio::io_context io;
  net::SystemClock clock;
  std::vector<std::unique_ptr<TestRelay>> relays;

  explicit ThreeRelays(net::ChannelManagerConfig config = {}) {
    for (int i = 0; i < 3; ++i) relays.push_back(std::make_unique<TestRelay>(io, clock, config));
  }
  TestRelay& r(std::size_t i) { return *relays[i]; }
  std::vector<TestRelay*> path(std::initializer_list<std::size_t> idx) {
    std::vector<TestRelay*> p;
    for (auto i : idx) p.push_back(relays[i].get());
    return p;
  }
};

}  // namespace

TEST_CASE("a 3-hop circuit through three relays carries a stream both ways, channels are reused",
          "[net][relay]") {
  ThreeRelays net;
  auto reply = pattern(3 * 498 + 100, 3);
  net.r(2).exit.reply = reply;

  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));

  auto circ = build_circuit(net.io, client, net.path({0, 1, 2}));
  for (std::size_t i = 0; i < 3; ++i) CHECK(net.r(i).counters().circuits == 1);

  auto got = open_stream(net.io, *circ, StreamId{1}, reply.size());
  CHECK(got == reply);
  REQUIRE(net.r(2).exit.begins.size() == 1);
  CHECK(net.r(2).exit.begins[0].second == StreamId{1});

  // DATA toward the exit arrives intact.
  auto upload = pattern(900, 91);
  REQUIRE(circ->send(HopNum{3}, StreamId{1}, cell::DataMsg{{upload.begin(), upload.begin() + 498}}));
  REQUIRE(circ->send(HopNum{3}, StreamId{1}, cell::DataMsg{{upload.begin() + 498, upload.end()}}));
  REQUIRE(run_until(net.io, [&] { return net.r(2).exit.received.size() >= upload.size(); }));
  CHECK(net.r(2).exit.received == upload);

  // Channels: client->0, 0->1, 1->2, each seen from both ends.
  auto c0 = net.r(0).counters();
  auto c1 = net.r(1).counters();
  auto c2 = net.r(2).counters();
  CHECK(c0.channels_inbound == 1);
  CHECK(c0.channels_outbound == 1);
  CHECK(c1.channels_inbound == 1);
  CHECK(c1.channels_outbound == 1);
  CHECK(c2.channels_inbound == 1);
  CHECK(c2.channels_outbound == 0);
  CHECK(c0.cells_in > 0);
  CHECK(c0.cells_out > 0);
  CHECK(c0.bytes_in > 0);
  CHECK(c0.handshake_failures == 0);
  const auto chan01 = net.r(0).manager->channel_to(net.r(1).keys.identity());
  REQUIRE(chan01.has_value());
  // The inbound channel from relay 1 proved relay 1's identity, so relay 2
  // can use it for its own extends toward relay 1.
  REQUIRE(net.r(2).manager->channel_to(net.r(1).keys.identity()).has_value());
  CHECK_FALSE(net.r(1).manager->channel_to(net.r(0).keys.identity()) == std::nullopt);

  SECTION("a second circuit on the same path opens no new channel") {
    auto second = build_circuit(net.io, client, net.path({0, 1, 2}));
    auto again = open_stream(net.io, *second, StreamId{5}, reply.size());
    CHECK(again == reply);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(net.r(i).counters().circuits == 2);
      CHECK(net.r(i).counters().channels_opened ==
            (i == 0 ? c0.channels_opened : i == 1 ? c1.channels_opened : c2.channels_opened));
    }
    CHECK(net.r(0).manager->channel_to(net.r(1).keys.identity()) == chan01);
  }

  SECTION("relay 2 extends to relay 1 over the channel relay 1 opened") {
    auto reverse = build_circuit(net.io, client, net.path({0, 2, 1}));
    auto again = open_stream(net.io, *reverse, StreamId{2}, 0);
    CHECK(again.empty());  // relay 1's exit sends no DATA
    CHECK(net.r(1).exit.begins.size() == 1);
    // Relay 0 needed a channel to relay 2; relays 1 and 2 opened none.
    CHECK(net.r(0).counters().channels_outbound == 2);
    CHECK(net.r(1).counters().channels_opened == c1.channels_opened);
    CHECK(net.r(2).counters().channels_opened == c2.channels_opened + 1);  // the inbound one from relay 0
    CHECK(net.r(2).counters().channels_outbound == 0);
  }

  SECTION("a client DESTROY frees the circuit everywhere, then idle channels stay until their timeout") {
    circ->destroy(cell::DestroyReason::Finished);
    REQUIRE(run_until(net.io, [&] {
      return net.r(0).counters().circuits == 0 && net.r(1).counters().circuits == 0 &&
             net.r(2).counters().circuits == 0;
    }));
    CHECK(net.r(2).exit.closed.size() == 1);
    CHECK(net.r(2).exit.closed.begin()->second == cell::DestroyReason::Finished);
    CHECK(net.r(1).counters().circuits_destroyed_by_reason[static_cast<std::size_t>(cell::DestroyReason::Finished)] ==
          1);
    // The default idle timeout is minutes: nothing closed yet.
    CHECK(net.r(1).counters().channels_closed_idle == 0);
  }
}

TEST_CASE("closing the middle relay's channels destroys the circuit at the client and the exit", "[net][relay]") {
  ThreeRelays net;
  net.r(2).exit.reply = pattern(100, 1);
  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));
  auto circ = build_circuit(net.io, client, net.path({0, 1, 2}));
  (void)open_stream(net.io, *circ, StreamId{1}, 100);

  const bool destroy_manager = GENERATE(false, true);
  const auto start = std::chrono::steady_clock::now();
  if (destroy_manager) {
    net.r(1).manager.reset();
  } else {
    net.r(1).manager->close_all_channels("test: middle relay goes away");
  }
  REQUIRE(run_until(net.io, [&] { return circ->destroyed().has_value(); }));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(*circ->destroyed() == cell::DestroyReason::ChannelClosed);
  CHECK(elapsed < 1s);  // the bound for "within a second"

  REQUIRE(run_until(net.io, [&] { return net.r(2).counters().circuits == 0 && net.r(0).counters().circuits == 0; }));
  REQUIRE(net.r(2).exit.closed.size() == 1);
  CHECK(net.r(2).exit.closed.begin()->second == cell::DestroyReason::ChannelClosed);
  for (std::size_t i : {0U, 2U}) {
    auto c = net.r(i).counters();
    CHECK(c.circuits_created == 1);
    CHECK(c.circuits_closed == 1);
    CHECK(c.circuits_destroyed_by_reason[static_cast<std::size_t>(cell::DestroyReason::ChannelClosed)] == 1);
  }
  // The client's channel to the guard survives; a new circuit avoids relay 1.
  CHECK(client.link->is_open());
  auto detour = build_circuit(net.io, client, net.path({0, 2}));
  CHECK(open_stream(net.io, *detour, StreamId{3}, 100).size() == 100);
}

TEST_CASE("channels without circuits close after the idle timeout", "[net][relay]") {
  net::ChannelManagerConfig config;
  config.idle_timeout = 300ms;
  ThreeRelays net(config);
  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));
  auto circ = build_circuit(net.io, client, net.path({0, 1}));
  // Busy channels stay open past the timeout.
  const auto until = std::chrono::steady_clock::now() + 700ms;
  REQUIRE(run_until(net.io, [&] { return std::chrono::steady_clock::now() > until; }));
  CHECK(net.r(0).counters().channels_outbound == 1);
  CHECK(client.link->is_open());

  circ->destroy(cell::DestroyReason::Finished);
  REQUIRE(run_until(net.io, [&] {
    auto c0 = net.r(0).counters();
    auto c1 = net.r(1).counters();
    return c0.channels_inbound + c0.channels_outbound + c1.channels_inbound + c1.channels_outbound == 0;
  }));
  CHECK(net.r(0).counters().channels_closed_idle + net.r(1).counters().channels_closed_idle >= 2);
  // The guard closed the client's idle channel too.
  CHECK(run_until(net.io, [&] { return client.link->state() == net::ClientLink::State::Closed; }));
}

TEST_CASE("BandwidthRate limits what a relay writes", "[net][relay][bandwidth]") {
  net::ChannelManagerConfig config;
  config.bandwidth_rate = 20'000;  // bytes per second, per relay
  config.bandwidth_burst = 20'000;
  ThreeRelays net(config);
  auto reply = pattern(80 * 498, 17);  // ~41 KB on the wire: a full burst, then about a second of refill
  net.r(1).exit.reply = reply;
  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));
  auto circ = build_circuit(net.io, client, net.path({0, 1}));
  const auto start = std::chrono::steady_clock::now();
  auto got = open_stream(net.io, *circ, StreamId{1}, reply.size());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(got == reply);
  // Unlimited, this takes milliseconds on loopback.
  CHECK(elapsed > 900ms);  // (41 KB - 20 KB burst) at 20 KB/s
  CHECK(net.r(1).manager->scheduler().bytes_scheduled() >= reply.size());
}
