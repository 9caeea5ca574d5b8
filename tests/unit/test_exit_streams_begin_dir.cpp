// BEGIN_DIR at a relay (tor-spec 6.2): with a DirPort, the stream goes to
// that listener (a local server stands in for it here) on any circuit,
// without the exit policy and whether or not the relay is an exit, and the
// CONNECTED is empty; without one, END NOTDIRECTORY.
#include "test_exit_streams_support.hpp"

using namespace conflux;
using namespace conflux::test;
using cell::EndReason;

namespace {
constexpr proto::CircuitHandle kCirc = 5;
constexpr StreamId kS1{1};
constexpr StreamId kS2{2};

exit::ExitConfig dir_config(std::uint16_t dir_port, exit::ExitMode mode, proto::ExitPolicy policy) {
  auto cfg = exit_config(std::move(policy));
  cfg.mode = mode;
  cfg.dir_port = exit::DirPortTarget{cell::Ipv4Bytes{127, 0, 0, 1}, dir_port};
  return cfg;
}

void begin_dir(Harness& h, proto::CircuitHandle c, StreamId s) { h.exit->on_stream_message(c, s, cell::BeginDirMsg{}); }

}  // namespace

TEST_CASE("BEGIN_DIR on a non-exit that rejects everything reaches the DirPort, CONNECTED is empty",
          "[exit][begin_dir]") {
  Harness h;
  EchoServer dirport(h.io);
  EchoServer* server = &dirport;
  // The listener needs the harness's io_context, so the exit comes second.
  h.exit = std::make_unique<exit::ExitStreams>(
      h.io, h.out, dir_config(dirport.port(), exit::ExitMode::NotExit, policy_of({"reject *:*"})));

  begin_dir(h, kCirc, kS1);
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1) || h.end_of(kCirc, kS1); }));
  REQUIRE(h.connected(kCirc, kS1));
  CHECK_FALSE(h.out.of<cell::ConnectedMsg>(kCirc, kS1).at(0).addr.has_value());
  // The DirPort's accept runs as its own handler, maybe after our connect's.
  CHECK(h.run_until([&] { return server->accepted == 1; }));

  const std::string request = "GET /conflux/v1/descriptor/self HTTP/1.0\r\n\r\n";
  h.data(kCirc, kS1, request);
  REQUIRE(h.run_until([&] { return h.out.data_bytes(kCirc, kS1) == request; }));
  CHECK(server->received == request);

  h.end(kCirc, kS1);
  REQUIRE(h.run_until([&] { return server->eofs == 1; }));
  const auto st = h.exit->stats();
  CHECK(st.begin_dirs == 1);
  CHECK(st.begins == 0);
  CHECK(st.streams_connected == 1);
  CHECK(st.ends_sent_for(EndReason::ExitPolicy) == 0);
}

TEST_CASE("a DirPort reply comes back as DATA, then END DONE", "[exit][begin_dir]") {
  Harness h;
  const std::string reply = "HTTP/1.0 200 OK\r\n\r\n" + pattern_bytes(5000);
  PayloadServer dirport(h.io, reply);
  h.exit = std::make_unique<exit::ExitStreams>(h.io, h.out,
                                               dir_config(dirport.port(), exit::ExitMode::Exit, policy_of({"accept *:*"})));
  begin_dir(h, kCirc, kS1);
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.connected(kCirc, kS1));
  CHECK(h.out.data_bytes(kCirc, kS1) == reply);
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::Done);
  REQUIRE(h.run_until([&] { return h.exit->stream_count() == 0; }));
}

TEST_CASE("without a DirPort BEGIN_DIR gets END NOTDIRECTORY, exit or not", "[exit][begin_dir]") {
  for (auto mode : {exit::ExitMode::Exit, exit::ExitMode::NotExit}) {
    auto cfg = exit_config();
    cfg.mode = mode;
    Harness h(cfg);
    begin_dir(h, kCirc, kS1);
    REQUIRE(h.end_of(kCirc, kS1).has_value());
    CHECK(h.end_of(kCirc, kS1)->reason == EndReason::NotDirectory);
    CHECK(h.exit->stream_count() == 0);
    CHECK(h.exit->stats().begin_dirs == 1);
  }
}

TEST_CASE("a DirPort that refuses gives END CONNECTREFUSED", "[exit][begin_dir]") {
  Harness h;
  h.exit = std::make_unique<exit::ExitStreams>(
      h.io, h.out, dir_config(closed_port(h.io), exit::ExitMode::NotExit, policy_of({"reject *:*"})));
  begin_dir(h, kCirc, kS1);
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ConnectRefused);
  CHECK_FALSE(h.connected(kCirc, kS1));
  CHECK(h.exit->stream_count() == 0);
}

TEST_CASE("BEGIN_DIR on stream 0 or on a stream in use is dropped, limits apply", "[exit][begin_dir]") {
  Harness h;
  EchoServer dirport(h.io);
  auto cfg = dir_config(dirport.port(), exit::ExitMode::NotExit, policy_of({"reject *:*"}));
  cfg.limits.max_streams_per_circuit = 1;
  h.exit = std::make_unique<exit::ExitStreams>(h.io, h.out, cfg);

  begin_dir(h, kCirc, StreamId{0});
  CHECK(h.out.sent.empty());
  begin_dir(h, kCirc, kS1);
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  begin_dir(h, kCirc, kS1);  // in use
  CHECK(h.out.count_for(kCirc, kS1) == 1);
  CHECK(h.exit->stats().cells_dropped == 2);
  begin_dir(h, kCirc, kS2);  // over the per-circuit limit
  REQUIRE(h.end_of(kCirc, kS2).has_value());
  CHECK(h.end_of(kCirc, kS2)->reason == EndReason::ResourceLimit);
  // Another circuit (a one-hop one, as a bridge client uses) is served too.
  begin_dir(h, kCirc + 1, kS1);
  REQUIRE(h.run_until([&] { return h.connected(kCirc + 1, kS1); }));
  CHECK(h.run_until([&] { return dirport.accepted == 2; }));
}

TEST_CASE("set_dir_port turns BEGIN_DIR on and off", "[exit][begin_dir]") {
  Harness h;
  EchoServer dirport(h.io);
  begin_dir(h, kCirc, kS1);
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::NotDirectory);
  h.exit->set_dir_port(exit::DirPortTarget{cell::Ipv4Bytes{127, 0, 0, 1}, dirport.port()});
  begin_dir(h, kCirc, kS2);
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS2); }));
  h.exit->set_dir_port(std::nullopt);
  begin_dir(h, kCirc, StreamId{3});
  CHECK(h.end_of(kCirc, StreamId{3})->reason == EndReason::NotDirectory);
}

TEST_CASE("a circuit closed while BEGIN_DIR connects sends nothing more", "[exit][begin_dir]") {
  Harness h;
  EchoServer dirport(h.io);
  h.exit = std::make_unique<exit::ExitStreams>(h.io, h.out,
                                               dir_config(dirport.port(), exit::ExitMode::Exit, policy_of({"accept *:*"})));
  begin_dir(h, kCirc, kS1);
  h.out.gone.insert(kCirc);
  h.exit->on_circuit_closed(kCirc, cell::DestroyReason::Finished);
  h.settle();
  CHECK(h.out.sent.empty());
  CHECK(h.exit->stream_count() == 0);
}
