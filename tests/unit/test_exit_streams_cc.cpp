// ExitStreams with real sockets on a circuit that negotiated congestion
// control (prop 324): no stream windows or SENDMEs, and the client's XOFF and
// XON pause and resume a download.
#include "test_exit_streams_support.hpp"

using namespace conflux;
using namespace conflux::test;

namespace {
constexpr proto::CircuitHandle kCirc = 7;
constexpr StreamId kS1{1};
}  // namespace

TEST_CASE("on a CC circuit a 1 MiB download passes the stream window without any stream SENDME", "[exit][cc]") {
  Harness h;
  h.out.congestion_controlled.insert(kCirc);
  const std::string payload = pattern_bytes(1 << 20);
  PayloadServer server(h.io, payload);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.out.data_bytes(kCirc, kS1) == payload);
  CHECK(h.end_of(kCirc, kS1)->reason == cell::EndReason::Done);
}

TEST_CASE("on a CC circuit the exit sends no stream SENDME for the client's DATA", "[exit][cc]") {
  Harness h;
  h.out.congestion_controlled.insert(kCirc);
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
  const std::string full(exit::kMaxDataLen, 'q');
  for (int i = 0; i < 120; ++i) h.data(kCirc, kS1, full);
  REQUIRE(h.run_until([&] { return h.out.data_bytes(kCirc, kS1).size() == 120 * full.size(); }));
  CHECK(h.out.of<cell::SendmeMsg>(kCirc, kS1).empty());  // 2 with fixed windows
}

TEST_CASE("on a CC circuit the client's XOFF pauses a download and its XON resumes it", "[exit][cc]") {
  Harness h;
  h.out.congestion_controlled.insert(kCirc);
  const std::string payload = pattern_bytes(1 << 20);
  PayloadServer server(h.io, payload);
  auto data_cells = [&] { return h.out.of<cell::DataMsg>(kCirc, kS1).size(); };
  h.out.data_credit = 50;  // the circuit's window stops it while we send XOFF
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return data_cells() == 50; }));
  h.exit->on_stream_message(kCirc, kS1, cell::XoffMsg{});
  h.out.data_credit.reset();
  h.exit->on_circuit_writable(kCirc);
  h.settle();
  // Nothing after the XOFF, not even what a read in flight brought in.
  CHECK(data_cells() == 50);

  h.exit->on_stream_message(kCirc, kS1, cell::XonMsg{0});
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.out.data_bytes(kCirc, kS1) == payload);
}
