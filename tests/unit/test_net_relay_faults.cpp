// The relay runtime under faults: the wrong relay at the other end (client
// link and EXTEND2), an unreachable next hop, and garbage, truncated and
// over-long cells on the ORPort, each of which closes only its own channel.
#include "conflux/cell/versions_cell.hpp"
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;

namespace {

struct Net {
  boost::asio::io_context io;
  net::SystemClock clock;
  std::vector<std::unique_ptr<TestRelay>> relays;

  explicit Net(std::size_t n, net::ChannelManagerConfig config = {}) {
    for (std::size_t i = 0; i < n; ++i) relays.push_back(std::make_unique<TestRelay>(io, clock, config));
  }
  TestRelay& r(std::size_t i) { return *relays[i]; }
};

// A raw channel to an ORPort, for sending bytes no well-behaved peer would.
struct RawPeer : net::Channel::Events {
  boost::asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler;
  std::shared_ptr<net::Channel> channel;
  bool tls_ready = false;
  std::string closed;

  RawPeer(boost::asio::io_context& io, const net::Clock& clock, const net::tcp::endpoint& to) : scheduler(io, clock, nullptr) {
    net::tcp::socket s(io);
    s.connect(to);
    channel = std::make_shared<net::Channel>(net::TlsStream(std::move(s), tls), net::Channel::Role::Initiator,
                                             scheduler, *this, net::Channel::Limits{});
    boost::asio::co_spawn(io, channel->run(), boost::asio::detached);
  }
  ~RawPeer() override { channel->close("test over"); }
  void on_tls_ready(net::Channel&) override { tls_ready = true; }
  // Frames the relay's answer correctly, so that only the relay decides to close.
  void on_cell(net::Channel& ch, const cell::CellView& c) override {
    if (c.command == cell::CellCommand::Versions) ch.set_link_version(5);
  }
  void on_closed(net::Channel&, std::string_view reason) override { closed = std::string(reason); }
  void send(const std::vector<std::uint8_t>& bytes) {
    REQUIRE(channel->mux().push_control(bytes) == proto::MuxPush::Queued);
    channel->cells_queued();
  }
};

}  // namespace

TEST_CASE("a client link expecting another identity fails with IdentityMismatch", "[net][relay][faults]") {
  Net net(2);
  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(1).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.link->state() == net::ClientLink::State::Closed; }));
  CHECK_FALSE(client.opened);
  REQUIRE(client.link->failure().has_value());
  CHECK(*client.link->failure() == proto::LinkFailure::IdentityMismatch);
  // The relay sees a channel that never finished its handshake, and keeps nothing.
  REQUIRE(run_until(net.io, [&] { return net.r(0).counters().handshake_failures == 1; }));
  CHECK(net.r(0).counters().channels_opening == 0);
  CHECK(net.r(0).counters().channels_inbound == 0);
}

TEST_CASE("an EXTEND2 to the wrong relay answers OR_IDENTITY, to a closed port CONNECTFAILED", "[net][relay][faults]") {
  Net net(3);
  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));

  SECTION("relay 1's address with relay 2's identity") {
    auto circ = build_circuit(net.io, client, {&net.r(0)});
    auto target = net.r(2).target();
    target.link_specs = net.r(1).target().link_specs;
    REQUIRE(circ->extend(target));
    REQUIRE(run_until(net.io, [&] { return circ->destroyed().has_value(); }));
    CHECK(*circ->destroyed() == cell::DestroyReason::OrIdentity);
    auto c0 = net.r(0).counters();
    CHECK(c0.connect_failures == 1);
    CHECK(c0.handshake_failures == 1);
    CHECK(c0.circuits == 0);
    CHECK(c0.channels_outbound == 0);
    CHECK(c0.circuits_destroyed_by_reason[static_cast<std::size_t>(cell::DestroyReason::OrIdentity)] == 1);
  }

  SECTION("the right Ed25519 identity with another relay's RSA fingerprint (legacy link specifier)") {
    auto circ = build_circuit(net.io, client, {&net.r(0)});
    auto target = net.r(1).target();
    target.link_specs.push_back(cell::LinkSpecLegacyId{net.r(2).keys.rsa_fingerprint()});
    REQUIRE(circ->extend(target));
    REQUIRE(run_until(net.io, [&] { return circ->destroyed().has_value(); }));
    CHECK(*circ->destroyed() == cell::DestroyReason::OrIdentity);
  }

  SECTION("both identities right: the link proves both, and a second extend reuses the channel") {
    auto circ = build_circuit(net.io, client, {&net.r(0)});
    auto target = net.r(1).target();
    target.link_specs.push_back(cell::LinkSpecLegacyId{net.r(1).keys.rsa_fingerprint()});
    REQUIRE(circ->extend(target));
    REQUIRE(run_until(net.io, [&] { return circ->hops() == 2; }));
    auto again = build_circuit(net.io, client, {&net.r(0)});
    REQUIRE(again->extend(target));
    REQUIRE(run_until(net.io, [&] { return again->hops() == 2; }));
    CHECK(net.r(0).counters().channels_outbound == 1);
  }

  SECTION("a port nobody listens on") {
    boost::asio::ip::tcp::acceptor spare(net.io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    const auto port = spare.local_endpoint().port();
    spare.close();
    auto circ = build_circuit(net.io, client, {&net.r(0)});
    auto target = net.r(1).target();
    target.link_specs = {cell::LinkSpecIpv4{{127, 0, 0, 1}, port}};
    REQUIRE(circ->extend(target));
    REQUIRE(run_until(net.io, [&] { return circ->destroyed().has_value(); }));
    CHECK(*circ->destroyed() == cell::DestroyReason::ConnectFailed);
    CHECK(net.r(0).counters().connect_failures == 1);
    CHECK(net.r(0).counters().circuits == 0);
  }

  SECTION("two circuits extending to the same relay at once share one connect") {
    auto a = build_circuit(net.io, client, {&net.r(0)});
    auto b = build_circuit(net.io, client, {&net.r(0)});
    REQUIRE(a->extend(net.r(1).target()));
    REQUIRE(b->extend(net.r(1).target()));
    REQUIRE(run_until(net.io, [&] { return a->hops() == 2 && b->hops() == 2; }));
    CHECK(net.r(0).counters().channels_outbound == 1);
    CHECK(net.r(1).counters().channels_inbound == 1);
    CHECK(net.r(1).counters().channels_opened == 1);
  }
}

TEST_CASE("garbage, truncated and over-long cells on the ORPort close only their channel", "[net][relay][faults]") {
  net::ChannelManagerConfig config;
  config.handshake_timeout = 1500ms;  // the truncated cell waits for this
  Net net(2, config);
  net.r(1).exit.reply = std::vector<std::uint8_t>(300, 0x5a);
  TestClient client(net.io, net.clock);
  client.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));
  auto circ = build_circuit(net.io, client, {&net.r(0), &net.r(1)});
  CHECK(open_stream(net.io, *circ, StreamId{1}, 300).size() == 300);
  const auto failures_before = net.r(0).counters().handshake_failures;

  // Not TLS at all.
  {
    net::tcp::socket raw(net.io);
    raw.connect(net.r(0).endpoint);
    const std::string junk = "GET / HTTP/1.0\r\n\r\n" + std::string(600, '\xff');
    boost::asio::write(raw, boost::asio::buffer(junk));
    REQUIRE(run_until(net.io, [&] { return net.r(0).counters().handshake_failures == failures_before + 1; }));
  }
  // TLS, then a VERSIONS cell claiming 65535 bytes: more than the handshake's
  // byte budget allows, refused before it is buffered.
  {
    RawPeer peer(net.io, net.clock, net.r(0).endpoint);
    REQUIRE(run_until(net.io, [&] { return peer.tls_ready; }));
    peer.send({0, 0, 7, 0xff, 0xff, 0, 4, 0, 5});
    REQUIRE(run_until(net.io, [&] { return !peer.closed.empty(); }));
    REQUIRE(run_until(net.io, [&] { return net.r(0).counters().handshake_failures == failures_before + 2; }));
  }
  // TLS, then half a VERSIONS cell and silence: the handshake times out.
  {
    RawPeer peer(net.io, net.clock, net.r(0).endpoint);
    REQUIRE(run_until(net.io, [&] { return peer.tls_ready; }));
    peer.send({0, 0, 7, 0, 4, 0});
    REQUIRE(run_until(net.io, [&] { return !peer.closed.empty(); }));
    REQUIRE(run_until(net.io, [&] { return net.r(0).counters().handshake_failures == failures_before + 3; }));
  }
  // TLS, a valid VERSIONS, then a cell with an unknown command (13).
  {
    RawPeer peer(net.io, net.clock, net.r(0).endpoint);
    REQUIRE(run_until(net.io, [&] { return peer.tls_ready; }));
    auto versions = std::move(cell::encode_versions_cell(cell::VersionsCell{{4, 5}})).value();
    auto bytes = std::move(cell::encode_cell(0, CircId{0}, cell::CellCommand::Versions, versions)).value();
    std::vector<std::uint8_t> bad(514, 0);
    bad[4] = 13;
    bytes.insert(bytes.end(), bad.begin(), bad.end());
    peer.send(bytes);
    REQUIRE(run_until(net.io, [&] { return !peer.closed.empty(); }));
    REQUIRE(run_until(net.io, [&] { return net.r(0).counters().handshake_failures == failures_before + 4; }));
  }

  // The good client's circuit never noticed.
  CHECK(client.link->is_open());
  CHECK(circ->state() == net::ClientCircuit::State::Ready);
  CHECK(net.r(0).counters().channels_inbound == 1);
  CHECK(net.r(0).counters().channels_opening == 0);
  CHECK(open_stream(net.io, *circ, StreamId{2}, 300).size() == 300);
}

TEST_CASE("MaxChannels refuses extra connections, MaxCircuitsPerChannel refuses extra circuits",
          "[net][relay][faults]") {
  net::ChannelManagerConfig config;
  config.max_channels = 1;
  config.max_circuits_per_channel = 2;
  Net net(1, config);
  TestClient first(net.io, net.clock);
  first.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return first.opened; }));

  TestClient second(net.io, net.clock);
  second.connect(net.r(0), net.r(0).keys.identity());
  REQUIRE(run_until(net.io, [&] { return second.link->state() == net::ClientLink::State::Closed; }));
  CHECK_FALSE(second.opened);
  CHECK(net.r(0).counters().channels_rejected == 1);

  auto a = build_circuit(net.io, first, {&net.r(0)});
  auto b = build_circuit(net.io, first, {&net.r(0)});
  auto c = first.new_circuit();
  REQUIRE(c->create(net.r(0).target()));
  REQUIRE(run_until(net.io, [&] { return c->destroyed().has_value(); }));
  CHECK(*c->destroyed() == cell::DestroyReason::ResourceLimit);
  CHECK(net.r(0).counters().circuits == 2);
  CHECK(a->state() == net::ClientCircuit::State::Ready);
  CHECK(b->state() == net::ClientCircuit::State::Ready);
}
