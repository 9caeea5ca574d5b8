// Channels over real TLS on loopback: cells framed both ways, the scheduler
// as the only writer, round robin across circuits, TLS facts for the link
// handshake, and a garbage-sending peer closing only its own channel.
#include <catch2/catch.hpp>
#include <map>
#include <memory>

#include "conflux/cell/versions_cell.hpp"
#include "conflux/net/channel.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/tls.hpp"
#include "tls_test_identity.hpp"

using namespace conflux;
using namespace conflux::net;
using conflux::test::test_tls_identity;

namespace {

struct Recorder : Channel::Events {
  bool tls_ready = false;
  std::vector<std::pair<std::uint32_t, cell::CellCommand>> cells;
  std::vector<std::uint8_t> first_payload_bytes;
  std::string closed_reason;
  std::size_t raw_in = 0, raw_out = 0;
  std::function<void(Channel&, const cell::CellView&)> on_cell_hook;

  void on_tls_ready(Channel&) override { tls_ready = true; }
  void on_raw_bytes(Channel&, bytes::ByteSpan b, bool inbound) override { (inbound ? raw_in : raw_out) += b.size(); }
  void on_cell(Channel& ch, const cell::CellView& c) override {
    cells.emplace_back(c.circ_id.value(), c.command);
    first_payload_bytes.push_back(c.payload.empty() ? 0 : c.payload[0]);
    if (on_cell_hook) on_cell_hook(ch, c);
  }
  void on_closed(Channel&, std::string_view reason) override { closed_reason = std::string(reason); }
};

struct Loopback {
  asio::io_context io;
  SystemClock clock;
  Scheduler scheduler{io, clock, nullptr};
  asio::ssl::context server_ctx = make_tls_server_context(test_tls_identity());
  asio::ssl::context client_ctx = make_tls_client_context();
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
  Recorder server_events, client_events;
  std::shared_ptr<Channel> server, client;

  void start() {
    acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket s) {
      REQUIRE_FALSE(ec);
      server = std::make_shared<Channel>(TlsStream(std::move(s), server_ctx), Channel::Role::Responder, scheduler,
                                         server_events, Channel::Limits{});
      asio::co_spawn(io, server->run(), asio::detached);
    });
    tcp::socket sock(io);
    sock.connect(acceptor.local_endpoint());
    client = std::make_shared<Channel>(TlsStream(std::move(sock), client_ctx), Channel::Role::Initiator, scheduler,
                                       client_events, Channel::Limits{});
    asio::co_spawn(io, client->run(), asio::detached);
  }
  void run_for(std::chrono::milliseconds d) {
    io.restart();
    io.run_for(d);
  }
};

proto::WireCell relay_cell(std::uint32_t circ, std::uint8_t tag) {
  std::array<std::uint8_t, 509> payload{};
  payload[0] = tag;
  auto bytes = std::move(cell::encode_cell(5, CircId{circ}, cell::CellCommand::Relay, payload)).value();
  proto::WireCell w{};
  std::copy(bytes.begin(), bytes.end(), w.begin());
  return w;
}

}  // namespace

TEST_CASE("channels exchange cells over TLS, written only by the scheduler", "[net]") {
  Loopback net;
  net.start();
  // The responder answers VERSIONS by switching to link v5 and sending three
  // circuits' cells through its mux.
  net.server_events.on_cell_hook = [](Channel& ch, const cell::CellView& c) {
    if (c.command != cell::CellCommand::Versions) return;
    ch.set_link_version(5);
    for (std::uint8_t i = 0; i < 3; ++i)
      for (std::uint32_t circ = 1; circ <= 3; ++circ)
        REQUIRE(ch.mux().push(CircId{circ}, relay_cell(circ, static_cast<std::uint8_t>(circ * 10 + i))) ==
                proto::MuxPush::Queued);
    ch.cells_queued();
  };
  net.run_for(std::chrono::milliseconds(500));
  REQUIRE(net.client_events.tls_ready);
  REQUIRE(net.server_events.tls_ready);

  auto versions = std::move(cell::encode_versions_cell(cell::VersionsCell{{4, 5}})).value();
  REQUIRE(net.client->send_control(CircId{0}, cell::CellCommand::Versions, versions));
  net.client->set_link_version(5);
  for (int i = 0; i < 50 && net.client_events.cells.size() < 9; ++i) net.run_for(std::chrono::milliseconds(20));

  REQUIRE(net.server_events.cells.size() == 1);
  CHECK(net.server_events.cells[0].second == cell::CellCommand::Versions);
  REQUIRE(net.client_events.cells.size() == 9);
  // Round robin across circuits: 10, 20, 30, 11, 21, 31, 12, 22, 32.
  CHECK(net.client_events.first_payload_bytes ==
        std::vector<std::uint8_t>{10, 20, 30, 11, 21, 31, 12, 22, 32});
  CHECK(net.client_events.raw_in == 9 * 514);
  CHECK(net.server_events.raw_out == 9 * 514);

  // What the link handshake will need from TLS: the same certificate digest
  // and the same exported keying material on both ends.
  auto seen_by_client = peer_certificate_digest(net.client->stream());
  auto presented = own_certificate_digest(net.server->stream());
  REQUIRE(seen_by_client.has_value());
  CHECK(seen_by_client == presented);
  const std::vector<std::uint8_t> ctx{1, 2, 3};
  auto e1 = tls_export_keying_material(net.client->stream(), "EXPORTER FOR TOR TLS CLIENT BINDING AUTH0003", ctx);
  auto e2 = tls_export_keying_material(net.server->stream(), "EXPORTER FOR TOR TLS CLIENT BINDING AUTH0003", ctx);
  REQUIRE(e1.has_value());
  CHECK(e1 == e2);
  CHECK(net.scheduler.bytes_scheduled() == 9 * 514 + versions.size() + 5);
}

TEST_CASE("garbage from a peer closes only that channel", "[net]") {
  Loopback net;
  net.start();
  net.run_for(std::chrono::milliseconds(300));
  REQUIRE(net.client_events.tls_ready);
  net.server->set_link_version(5);
  // Command 13 is not a cell command: the responder must close this channel.
  std::vector<std::uint8_t> junk(514, 0);
  junk[4] = 13;
  REQUIRE(net.client->mux().push_control(junk) == proto::MuxPush::Queued);
  net.client->cells_queued();
  for (int i = 0; i < 50 && net.server_events.closed_reason.empty(); ++i) net.run_for(std::chrono::milliseconds(20));
  CHECK(net.server_events.closed_reason == "unframeable cell");
  for (int i = 0; i < 50 && net.client_events.closed_reason.empty(); ++i) net.run_for(std::chrono::milliseconds(20));
  CHECK(net.client_events.closed_reason == "closed by peer");
  CHECK(net.server->closed());
}
