// The exit module against real sockets on 127.0.0.1: BEGIN -> CONNECTED,
// DATA both ways with both windows, END both ways, circuits closing.
#include "test_exit_streams_support.hpp"

using namespace conflux;
using namespace conflux::test;
using cell::EndReason;

namespace {
constexpr proto::CircuitHandle kCirc = 7;
constexpr StreamId kS1{1};
constexpr StreamId kS2{2};
}  // namespace

TEST_CASE("BEGIN to 127.0.0.1 gets CONNECTED with the address and TTL", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  // The server's accept and our connect complete as two separate handlers,
  // in either order: wait for both.
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1) && server.accepted == 1; }));
  auto c = h.out.of<cell::ConnectedMsg>(kCirc, kS1);
  REQUIRE(c.size() == 1);
  REQUIRE(c[0].addr.has_value());
  CHECK(c[0].addr->addr == cell::RelayIpAddr{cell::Ipv4Bytes{127, 0, 0, 1}});
  CHECK(c[0].addr->ttl == 3600);  // IP literal: tor's high TTL
  CHECK(server.accepted == 1);
  CHECK(h.exit->stats().streams_open == 1);
  CHECK(h.exit->stats().streams_connected == 1);
  CHECK(h.exit->streams_on(kCirc) == 1);
}

TEST_CASE("BEGIN to [::1] connects over IPv6", "[exit]") {
  Harness h;
  std::unique_ptr<EchoServer> server;
  try {
    server = std::make_unique<EchoServer>(h.io, tcp::endpoint{asio::ip::make_address("::1"), 0});
  } catch (const boost::system::system_error&) {
    WARN("no IPv6 loopback here; skipped");
    return;
  }
  h.begin(kCirc, kS1, "::1", server->port(), cell::kBeginFlagIpv6Ok);
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1) || h.end_of(kCirc, kS1); }));
  auto c = h.out.of<cell::ConnectedMsg>(kCirc, kS1);
  REQUIRE(c.size() == 1);
  cell::Ipv6Bytes loop6{};
  loop6[15] = 1;
  CHECK(c[0].addr->addr == cell::RelayIpAddr{loop6});
}

TEST_CASE("DATA makes an echo round trip, optimistic data waits for the connect", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.data(kCirc, kS1, "early ");  // before CONNECTED: queued (optimistic data)
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  h.data(kCirc, kS1, "ping");
  REQUIRE(h.run_until([&] { return h.out.data_bytes(kCirc, kS1) == "early ping"; }));
  CHECK(server.received == "early ping");
  // CONNECTED precedes every DATA.
  CHECK(std::holds_alternative<cell::ConnectedMsg>(h.out.sent.front().msg));
  CHECK(h.exit->stats().bytes_to_servers == 10);
  CHECK(h.exit->stats().bytes_to_clients == 10);
}

TEST_CASE("the exit acknowledges client DATA with a stream SENDME per 50 cells", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  const std::string cell498(exit::kMaxDataLen, 'x');
  for (int i = 0; i < 120; ++i) h.data(kCirc, kS1, cell498);
  REQUIRE(h.run_until([&] { return server.received.size() == 120 * exit::kMaxDataLen; }));
  // 120 cells: two SENDMEs (at 50 and 100), possibly deferred until the
  // socket drained, never more.
  REQUIRE(h.run_until([&] { return h.out.of<cell::SendmeMsg>(kCirc, kS1).size() == 2; }));
  h.settle();
  CHECK(h.out.of<cell::SendmeMsg>(kCirc, kS1).size() == 2);
  CHECK_FALSE(h.out.of<cell::SendmeMsg>(kCirc, kS1)[0].tag.has_value());  // stream SENDMEs are v0
}

TEST_CASE("a client overrunning its stream window kills the circuit", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  // No io runs between the cells: nothing is flushed, so from the tenth cell
  // on the stream is backlogged and its SENDMEs wait; cell 501 exceeds the
  // deliver window.
  const std::string full(exit::kMaxDataLen, 'z');
  for (int i = 0; i < 500; ++i) h.data(kCirc, kS1, full);
  CHECK(h.out.closes.empty());
  CHECK(h.out.of<cell::SendmeMsg>(kCirc, kS1).empty());
  h.data(kCirc, kS1, full);
  REQUIRE(h.out.closes.size() == 1);
  CHECK(h.out.closes[0] == std::pair{kCirc, cell::DestroyReason::Protocol});
  CHECK(h.exit->streams_on(kCirc) == 0);
  CHECK(h.exit->stats().protocol_violations == 1);
  CHECK(h.exit->stats().circuits_killed == 1);
  CHECK(h.out.of<cell::EndMsg>(kCirc, kS1).empty());  // the circuit goes, no END
}

TEST_CASE("more buffered client bytes than the limit kill the circuit", "[exit]") {
  auto cfg = exit_config();
  cfg.limits.max_upstream_bytes = 1000;
  Harness h(cfg);
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  const std::string full(exit::kMaxDataLen, 'q');
  h.data(kCirc, kS1, full);
  h.data(kCirc, kS1, full);
  CHECK(h.out.closes.empty());
  h.data(kCirc, kS1, full);  // still connecting: 1494 bytes waiting
  REQUIRE(h.out.closes.size() == 1);
  CHECK(h.out.closes[0].second == cell::DestroyReason::Protocol);
  CHECK(h.exit->stream_count() == 0);
}

TEST_CASE("1 MiB downstream: in order, <= 498-byte cells, both windows respected, END DONE last", "[exit]") {
  Harness h;
  const std::string payload = pattern_bytes(1 << 20);
  PayloadServer server(h.io, payload);
  auto data_cells = [&] { return h.out.of<cell::DataMsg>(kCirc, kS1).size(); };

  // The circuit window lets 100 cells out, then shuts: the exit stops.
  h.out.data_credit = 100;
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  REQUIRE(h.run_until([&] { return data_cells() == 100; }));
  h.settle();
  CHECK(data_cells() == 100);
  CHECK_FALSE(h.end_of(kCirc, kS1));

  // Reopened: it resumes, up to the stream window of 500 cells.
  h.out.data_credit.reset();
  h.exit->on_circuit_writable(kCirc);
  REQUIRE(h.run_until([&] { return data_cells() == 500; }));
  h.settle();
  CHECK(data_cells() == 500);

  // Now act as a client: a stream SENDME per 50 cells received.
  std::size_t acked = 0;
  std::size_t max_unacked = 0;
  REQUIRE(h.run_until(
      [&] {
        const std::size_t got = data_cells();
        max_unacked = std::max(max_unacked, got - acked);
        while (got - acked >= 50) {
          acked += 50;
          h.exit->on_stream_message(kCirc, kS1, cell::SendmeMsg{});
        }
        return h.end_of(kCirc, kS1).has_value();
      },
      30s));
  CHECK(max_unacked <= 500);
  for (const auto& d : h.out.of<cell::DataMsg>(kCirc, kS1)) {
    REQUIRE(!d.data.empty());
    REQUIRE(d.data.size() <= 498);
  }
  CHECK(h.out.data_bytes(kCirc, kS1) == payload);
  // END DONE comes after the last DATA and nothing follows it.
  const Sent& last = h.out.sent.back();
  REQUIRE(std::holds_alternative<cell::EndMsg>(last.msg));
  CHECK(std::get<cell::EndMsg>(last.msg).reason == EndReason::Done);
  CHECK(h.out.of<cell::EndMsg>(kCirc, kS1).size() == 1);
  REQUIRE(h.run_until([&] { return h.exit->stream_count() == 0; }));
  CHECK(h.exit->stats().ends_sent_for(EndReason::Done) == 1);
  CHECK(h.exit->stats().bytes_to_clients == payload.size());
}

TEST_CASE("END from the client: data flushed, server sees FIN, nothing more sent", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  const std::size_t before = h.out.count_for(kCirc, kS1);
  h.data(kCirc, kS1, "last words");
  h.end(kCirc, kS1);
  CHECK(h.exit->streams_on(kCirc) == 0);  // the ID is free at once
  // The server gets the bytes, then EOF (our shutdown), not a reset.
  REQUIRE(h.run_until([&] { return server.eofs == 1; }));
  CHECK(server.received == "last words");
  REQUIRE(h.run_until([&] { return h.exit->stream_count() == 0; }));
  h.settle();
  // Its echo is not relayed, and no END answers the client's END.
  CHECK(h.out.count_for(kCirc, kS1) == before);
  CHECK(h.exit->stats().ends_received == 1);
  CHECK(h.exit->stats().streams_open == 0);
  CHECK(h.exit->stats().streams_closing == 0);
}

TEST_CASE("END before the connect finishes abandons the stream", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.end(kCirc, kS1);
  CHECK(h.exit->stream_count() == 0);
  h.settle();
  CHECK(h.out.count_for(kCirc, kS1) == 0);
}

TEST_CASE("a server reset gives END CONNRESET", "[exit]") {
  Harness h;
  tcp::acceptor acceptor(h.io, kLoopback4);
  tcp::socket accepted(h.io);
  bool got = false;
  acceptor.async_accept(accepted, [&](const boost::system::error_code& ec) { got = !ec; });
  h.begin(kCirc, kS1, "127.0.0.1", acceptor.local_endpoint().port());
  REQUIRE(h.run_until([&] { return got && h.connected(kCirc, kS1); }));
  accepted.set_option(asio::socket_base::linger(true, 0));  // close() sends RST
  accepted.close();
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ConnReset);
  CHECK(h.exit->stream_count() == 0);
}

TEST_CASE("a live circuit that refuses a cell is closed with its streams, not left with the client waiting",
          "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.begin(kCirc, kS2, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1) && h.connected(kCirc, kS2); }));
  h.out.refuse_cells = true;
  // The echo is the exit's next cell, made only now that the sink refuses
  // (a server that sent on its own could finish before the refusal).
  h.data(kCirc, kS1, pattern_bytes(4096));
  REQUIRE(h.run_until([&] { return !h.out.closes.empty(); }));
  REQUIRE(h.out.closes.size() == 1);
  CHECK(h.out.closes[0] == std::pair{kCirc, cell::DestroyReason::Internal});
  CHECK(h.exit->streams_on(kCirc) == 0);
}

TEST_CASE("connection refused gives END CONNECTREFUSED", "[exit]") {
  Harness h;
  h.begin(kCirc, kS1, "127.0.0.1", closed_port(h.io));
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ConnectRefused);
  CHECK_FALSE(h.end_of(kCirc, kS1)->exit_policy_addr.has_value());
  CHECK(h.exit->stream_count() == 0);
  CHECK(h.exit->stats().streams_pending == 0);
  CHECK(h.exit->stats().ends_sent_for(EndReason::ConnectRefused) == 1);
}

TEST_CASE("a closed circuit drops its streams and sends nothing, others go on", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  constexpr proto::CircuitHandle kOther = 8;
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.begin(kCirc, kS2, "127.0.0.1", server.port());
  h.begin(kOther, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] {
    return h.connected(kCirc, kS1) && h.connected(kCirc, kS2) && h.connected(kOther, kS1);
  }));
  const std::size_t sent_before = h.out.sent.size();
  h.out.gone.insert(kCirc);
  h.exit->on_circuit_closed(kCirc, cell::DestroyReason::Destroyed);
  CHECK(h.exit->streams_on(kCirc) == 0);
  CHECK(h.exit->stream_count() == 1);
  // Both sockets were closed: the server's sessions end.
  REQUIRE(h.run_until([&] { return server.finished == 2; }));
  CHECK(h.out.sent.size() == sent_before);
  // A message for a dropped stream is ignored.
  h.data(kCirc, kS1, "late");
  CHECK(h.exit->stats().cells_dropped == 1);
  // The other circuit's stream still works.
  h.data(kOther, kS1, "still here");
  REQUIRE(h.run_until([&] { return h.out.data_bytes(kOther, kS1) == "still here"; }));
}

TEST_CASE("a BEGIN for a stream ID in use is dropped", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.begin(kCirc, StreamId{0}, "127.0.0.1", server.port());
  h.settle();
  CHECK(h.out.count_for(kCirc, kS1) == 1);  // just the CONNECTED
  CHECK(h.out.count_for(kCirc, StreamId{0}) == 0);
  CHECK(server.accepted == 1);
  CHECK(h.out.closes.empty());
  CHECK(h.exit->stats().protocol_violations == 2);
}

TEST_CASE("CONNECTED from the client ends that stream with TORPROTOCOL", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  h.exit->on_stream_message(kCirc, kS1, cell::ConnectedMsg{});
  REQUIRE(h.end_of(kCirc, kS1).has_value());
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::TorProtocol);
  CHECK(h.exit->stream_count() == 0);
  CHECK(h.out.closes.empty());
}

TEST_CASE("a stream SENDME beyond the window kills the circuit", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  // Nothing was sent downstream, so the package window is full at 500.
  h.exit->on_stream_message(kCirc, kS1, cell::SendmeMsg{});
  REQUIRE(h.out.closes.size() == 1);
  CHECK(h.out.closes[0].second == cell::DestroyReason::Protocol);
}
