// ClientStream's windows against a carrier that sometimes refuses a cell
// (issue 13: window accounting with many streams on one circuit or set).
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
  std::size_t offered = 0;
  std::size_t data_cells = 0;
  std::size_t sendmes = 0;

  std::optional<StreamId> attach(client::StreamEvents& events) override {
    stream = &events;
    return StreamId{1};
  }
  void detach(StreamId) override { stream = nullptr; }
  bool send(StreamId, const cell::RelayMsg& msg) override {
    ++offered;
    if (refuse_every != 0 && offered % refuse_every == 0) return false;
    if (std::holds_alternative<cell::DataMsg>(msg)) ++data_cells;
    if (std::holds_alternative<cell::SendmeMsg>(msg)) ++sendmes;
    return true;
  }
  [[nodiscard]] bool can_send_data() const override { return true; }
  void close(cell::DestroyReason, std::string_view) override {}
  [[nodiscard]] std::uint64_t serial() const override { return 1; }
  [[nodiscard]] std::string name() const override { return "flaky"; }
  [[nodiscard]] client::RelayIdentity exit_identity() const override { return {}; }
};

}  // namespace

TEST_CASE("a cell the carrier refuses costs no stream window", "[proxy][stream]") {
  net::asio::io_context io;
  FlakyCarrier carrier;
  client::ClientStream stream(io.get_executor(), proto::StreamKind::Connect);
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
  FlakyCarrier carrier;
  client::ClientStream stream(io.get_executor(), proto::StreamKind::Connect);
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
