// ClientStream's flow control against a carrier made here: stream windows
// with a carrier that sometimes refuses a cell (issue 13: window accounting
// with many streams on one circuit or set), and XON/XOFF on a carrier whose
// exit agreed to congestion control (prop 324).
#include <catch2/catch.hpp>

#include <map>

#include "conflux/client/client_stream.hpp"
#include "conflux/net/asio.hpp"

using namespace conflux;

namespace {

// A carrier that refuses every `refuse_every`-th cell and records the rest.
struct FlakyCarrier final : client::StreamCarrier {
  client::StreamEvents* stream = nullptr;
  std::size_t refuse_every = 0;
  bool refuse_all = false;  // a Conflux set whose held queue is full
  std::size_t offered = 0;
  std::size_t data_cells = 0;
  std::size_t sendmes = 0;
  std::size_t xoffs = 0;
  std::vector<cell::XonMsg> xons;
  bool cc = false;
  proto::CcParams params{};

  std::optional<StreamId> attach(client::StreamEvents& events) override {
    stream = &events;
    return StreamId{1};
  }
  void detach(StreamId) override { stream = nullptr; }
  bool send(StreamId, const cell::RelayMsg& msg) override {
    ++offered;
    if (refuse_all || (refuse_every != 0 && offered % refuse_every == 0)) return false;
    if (std::holds_alternative<cell::DataMsg>(msg)) ++data_cells;
    if (std::holds_alternative<cell::SendmeMsg>(msg)) ++sendmes;
    if (std::holds_alternative<cell::XoffMsg>(msg)) ++xoffs;
    if (const auto* x = std::get_if<cell::XonMsg>(&msg)) xons.push_back(*x);
    return true;
  }
  [[nodiscard]] bool can_send_data() const override { return true; }
  [[nodiscard]] const proto::CcParams* congestion_control() const override { return cc ? &params : nullptr; }
  void close(cell::DestroyReason, std::string_view) override {}
  [[nodiscard]] std::uint64_t serial() const override { return 1; }
  [[nodiscard]] std::string name() const override { return "flaky"; }
  [[nodiscard]] client::RelayIdentity exit_identity() const override { return {}; }
};

struct ManualClock final : net::Clock {
  Monotonic::time_point t{std::chrono::seconds(100)};
  [[nodiscard]] Monotonic::time_point now() const override { return t; }
  [[nodiscard]] std::uint64_t unix_seconds() const override { return 1'700'000'000; }
};

// A connected stream on a carrier whose exit agreed to congestion control.
struct CcStream {
  net::asio::io_context io;
  ManualClock clock;
  FlakyCarrier carrier;
  client::ClientStream stream{io.get_executor(), proto::StreamKind::Connect, clock};

  CcStream() {
    carrier.cc = true;
    REQUIRE(stream.open_on(carrier, cell::BeginMsg{}));
    stream.on_stream_msg(cell::ConnectedMsg{});
    REQUIRE(stream.connected());
  }
};

}  // namespace

TEST_CASE("a cell the carrier refuses costs no stream window", "[proxy][stream]") {
  net::asio::io_context io;
  ManualClock clock;
  FlakyCarrier carrier;
  client::ClientStream stream(io.get_executor(), proto::StreamKind::Connect, clock);
  REQUIRE(stream.open_on(carrier, cell::BeginMsg{}));
  stream.on_stream_msg(cell::ConnectedMsg{});
  REQUIRE(stream.connected());
  carrier.refuse_every = 3;
  const std::vector<std::uint8_t> bytes(100, 7);
  // Offer until the window shuts: exactly 500 cells get out, whatever was refused.
  for (int i = 0; i < 2000 && stream.can_send_data(); ++i) (void)stream.send_data(bytes);
  CHECK(carrier.data_cells == 500);
  CHECK(stream.bytes_sent() == 500 * bytes.size());
  // Ten SENDMEs from the exit, one per 50 cells it received: 500 more.
  for (int i = 0; i < 10; ++i) stream.on_stream_msg(cell::SendmeMsg{});
  for (int i = 0; i < 2000 && stream.can_send_data(); ++i) (void)stream.send_data(bytes);
  CHECK(carrier.data_cells == 1000);
}

TEST_CASE("every SENDME held back while the application lagged goes when it catches up", "[proxy][stream]") {
  net::asio::io_context io;
  ManualClock clock;
  FlakyCarrier carrier;
  client::ClientStream stream(io.get_executor(), proto::StreamKind::Connect, clock);
  REQUIRE(stream.open_on(carrier, cell::BeginMsg{}));
  stream.on_stream_msg(cell::ConnectedMsg{});
  // 300 full cells the application does not take: past 64 KB waiting, the
  // SENDMEs due at 150, 200, 250 and 300 cells are held back.
  for (int i = 0; i < 300; ++i) stream.on_stream_msg(cell::DataMsg{std::vector<std::uint8_t>(498, 1)});
  const std::size_t before = carrier.sendmes;
  CHECK(before == 2);  // at 50 and 100 cells, before the backlog
  // It takes everything at once: all six are owed, all go.
  (void)stream.take_received(1 << 20);
  CHECK(carrier.sendmes == 6);
}

TEST_CASE("with congestion control: no stream SENDMEs, XOFF while the application lags, XON once it caught up",
          "[proxy][stream][cc]") {
  CcStream s;
  auto& [io, clock, carrier, stream] = s;
  REQUIRE(stream.deliver_flow().has_value());
  // 1200 full cells (600 KB, past cc_xoff_client's 500 cells) arrive over
  // 60 ms and the application takes none: no window stops the exit, so the
  // stream must, with XOFF, once the grace period of 5 ms is over.
  for (int i = 0; i < 1200; ++i) {
    clock.t += std::chrono::microseconds(50);
    stream.on_stream_msg(cell::DataMsg{std::vector<std::uint8_t>(498, 1)});
  }
  CHECK(carrier.sendmes == 0);
  CHECK(carrier.xoffs == 1);
  CHECK(stream.pending_bytes() == 1200 * 498);
  CHECK_FALSE(stream.failed());
  // The application drains it in 10 ms: XON, carrying a drain rate.
  while (stream.pending_bytes() > 0) {
    clock.t += std::chrono::microseconds(100);
    (void)stream.take_received(8192);
  }
  REQUIRE(carrier.xons.size() >= 1);
  CHECK(stream.deliver_flow()->xoffs_sent() == 1);
  CHECK_FALSE(stream.failed());
}

TEST_CASE("with congestion control: the exit's XOFF stops our DATA until its XON, a stream SENDME is a violation",
          "[proxy][stream][cc]") {
  CcStream s;
  auto& [io, clock, carrier, stream] = s;
  const std::vector<std::uint8_t> bytes(498, 7);
  // No 500-cell window: 2000 cells go.
  for (int i = 0; i < 2000; ++i) REQUIRE(stream.send_data(bytes));
  stream.on_stream_msg(cell::XoffMsg{});
  CHECK_FALSE(stream.can_send_data());
  CHECK_FALSE(stream.send_data(bytes));
  stream.on_stream_msg(cell::XonMsg{0});
  CHECK(stream.can_send_data());
  CHECK(stream.send_data(bytes));
  CHECK(carrier.data_cells == 2001);

  stream.on_stream_msg(cell::SendmeMsg{});
  CHECK(stream.failed());
}

namespace {

// 1200 full cells over 60 ms that the application does not take: XOFF.
void fill_past_xoff(CcStream& s) {
  for (int i = 0; i < 1200; ++i) {
    s.clock.t += std::chrono::microseconds(50);
    s.stream.on_stream_msg(cell::DataMsg{std::vector<std::uint8_t>(498, 1)});
  }
  REQUIRE(s.carrier.xoffs == 1);
}

void drain_all(CcStream& s) {
  while (s.stream.pending_bytes() > 0) {
    s.clock.t += std::chrono::microseconds(100);
    (void)s.stream.take_received(8192);
  }
}

}  // namespace

// Issue 14: StreamDeliverFlow clears its XOFF state when it decides the XON,
// so an XON the carrier refused was never decided again and the exit stayed
// stopped for good.
TEST_CASE("with congestion control: an XON the carrier refused goes once the carrier takes cells again",
          "[proxy][stream][cc]") {
  CcStream s;
  fill_past_xoff(s);
  s.carrier.refuse_all = true;
  drain_all(s);
  CHECK(s.carrier.xons.empty());
  CHECK(s.stream.flow_owed());
  // Still refused: still owed.
  s.stream.retry_owed();
  CHECK(s.stream.flow_owed());
  s.carrier.refuse_all = false;
  s.stream.on_circuit_writable();
  CHECK(s.carrier.xons.size() == 1);
  CHECK_FALSE(s.stream.flow_owed());
  // Once, not again.
  s.stream.retry_owed();
  CHECK(s.carrier.xons.size() == 1);
}

TEST_CASE("with congestion control: a refused XON goes with the next cell the stream receives", "[proxy][stream][cc]") {
  CcStream s;
  fill_past_xoff(s);
  s.carrier.refuse_all = true;
  drain_all(s);
  s.carrier.refuse_all = false;
  // The exit's in-flight DATA (it has not seen an XON yet).
  s.stream.on_stream_msg(cell::DataMsg{std::vector<std::uint8_t>(498, 1)});
  CHECK(s.carrier.xons.size() == 1);
  CHECK_FALSE(s.stream.flow_owed());
}

TEST_CASE("with congestion control: an XOFF after a refused XON is not sent, the exit being stopped already",
          "[proxy][stream][cc]") {
  CcStream s;
  fill_past_xoff(s);
  s.carrier.refuse_all = true;
  drain_all(s);
  // The application lags again before the XON could go: XOFF decided.
  for (int i = 0; i < 1200; ++i) {
    s.clock.t += std::chrono::microseconds(50);
    s.stream.on_stream_msg(cell::DataMsg{std::vector<std::uint8_t>(498, 1)});
  }
  CHECK(s.stream.deliver_flow()->xoffs_sent() == 2);
  s.carrier.refuse_all = false;
  s.stream.retry_owed();
  CHECK(s.carrier.xoffs == 1);
  CHECK(s.carrier.xons.empty());
  CHECK_FALSE(s.stream.flow_owed());
  // Drained: the XON goes as usual.
  drain_all(s);
  CHECK(s.carrier.xons.size() == 1);
}

TEST_CASE("stream SENDMEs the carrier refused go once it takes cells again", "[proxy][stream]") {
  net::asio::io_context io;
  ManualClock clock;
  FlakyCarrier carrier;
  client::ClientStream stream(io.get_executor(), proto::StreamKind::Connect, clock);
  REQUIRE(stream.open_on(carrier, cell::BeginMsg{}));
  stream.on_stream_msg(cell::ConnectedMsg{});
  for (int i = 0; i < 300; ++i) stream.on_stream_msg(cell::DataMsg{std::vector<std::uint8_t>(498, 1)});
  REQUIRE(carrier.sendmes == 2);
  carrier.refuse_all = true;
  (void)stream.take_received(1 << 20);
  CHECK(carrier.sendmes == 2);
  carrier.refuse_all = false;
  stream.retry_owed();
  CHECK(carrier.sendmes == 6);
  CHECK_FALSE(stream.flow_owed());
}
