// Many streams on one circuit through real sockets (issue 13): the circuit's
// window opens a few cells at a time, stream SENDMEs come back as a client
// sends them, and every stream's bytes must arrive intact and in order.
#include "test_exit_streams_support.hpp"

using namespace conflux;
using namespace conflux::test;
using cell::EndReason;

namespace {

std::string payload_for(std::size_t k, std::size_t n) {
  std::string s(n, '\0');
  std::uint32_t x = 0x9e3779b9u * static_cast<std::uint32_t>(k + 1);
  for (auto& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

constexpr proto::CircuitHandle kCirc = 11;

}  // namespace

TEST_CASE("24 streams on one circuit opening a few cells at a time: each gets its server's bytes", "[exit][many]") {
  Harness h;
  constexpr std::size_t kStreams = 24;
  std::vector<std::unique_ptr<PayloadServer>> servers;
  std::vector<std::string> payloads;
  for (std::size_t k = 0; k < kStreams; ++k) {
    // Some past one stream window (500 cells, 249 KB), most far below.
    payloads.push_back(payload_for(k, k % 6 == 0 ? 300'000 : 2'000 + 3'777 * k));
    servers.push_back(std::make_unique<PayloadServer>(h.io, payloads.back()));
  }
  h.out.data_credit = 0;  // shut until the first circuit SENDME
  for (std::size_t k = 0; k < kStreams; ++k)
    h.begin(kCirc, StreamId{static_cast<std::uint16_t>(k + 1)}, "127.0.0.1", servers[k]->port());

  std::vector<std::size_t> acked(kStreams, 0);
  std::size_t round = 0;
  const bool all_done = h.run_until(
      [&] {
        // The client: a stream SENDME per 50 cells it got on that stream.
        for (std::size_t k = 0; k < kStreams; ++k) {
          const StreamId id{static_cast<std::uint16_t>(k + 1)};
          const std::size_t got = h.out.of<cell::DataMsg>(kCirc, id).size();
          while (got - acked[k] >= 50) {
            acked[k] += 50;
            h.exit->on_stream_message(kCirc, id, cell::SendmeMsg{});
          }
        }
        // The circuit: shut, then a few more cells, reopened.
        // (A Conflux set tells the exit it is writable whenever a leg's
        // window moves, so the exit hears it with its reads in flight too.)
        if (*h.out.data_credit == 0) h.out.data_credit = 7 + (round++ * 13) % 41;
        h.exit->on_circuit_writable(kCirc);
        for (std::size_t k = 0; k < kStreams; ++k)
          if (!h.end_of(kCirc, StreamId{static_cast<std::uint16_t>(k + 1)})) return false;
        return true;
      },
      60s);
  REQUIRE(all_done);
  for (std::size_t k = 0; k < kStreams; ++k) {
    INFO("stream " << k + 1);
    const StreamId id{static_cast<std::uint16_t>(k + 1)};
    const std::string got = h.out.data_bytes(kCirc, id);
    REQUIRE(got.size() == payloads[k].size());
    CHECK(got == payloads[k]);
    CHECK(h.end_of(kCirc, id)->reason == EndReason::Done);
  }
  REQUIRE(h.run_until([&] { return h.exit->stream_count() == 0; }));
}

namespace {

// As net::ChannelManager does when a circuit's queue overflows: the send is
// accepted, then, before send_to_client returns, the circuit is closed and
// the exit told so (on_circuit_closed, re-entrantly).
struct ClosingOnSend final : proto::CircuitOutput {
  FakeCircuit inner;
  exit::ExitStreams* exit = nullptr;
  proto::CircuitHandle victim = 0;
  std::size_t close_at_data = 0;  // the victim's DATA cell that closes it
  std::size_t victim_data = 0;
  std::size_t sent_after_close = 0;

  bool send_to_client(proto::CircuitHandle c, StreamId s, const cell::RelayMsg& msg) override {
    if (inner.gone.count(c) != 0) {
      ++sent_after_close;
      return false;
    }
    const bool ok = inner.send_to_client(c, s, msg);
    if (c == victim && std::holds_alternative<cell::DataMsg>(msg) && ++victim_data == close_at_data) {
      inner.gone.insert(c);
      exit->on_circuit_closed(c, cell::DestroyReason::ResourceLimit);
    }
    return ok;
  }
  [[nodiscard]] bool can_send_data(proto::CircuitHandle c) const override { return inner.can_send_data(c); }
  void close_circuit(proto::CircuitHandle c, cell::DestroyReason r) override { inner.close_circuit(c, r); }
};

}  // namespace

TEST_CASE("a send that closes the circuit mid-turn drops its streams and nothing more is sent on it",
          "[exit][many]") {
  asio::io_context io;
  ClosingOnSend out;
  exit::ExitStreams streams(io, out, exit_config());
  out.exit = &streams;
  out.victim = kCirc;
  out.close_at_data = 40;
  out.inner.data_credit = 0;
  constexpr proto::CircuitHandle kOther = kCirc + 1;
  std::vector<std::unique_ptr<PayloadServer>> servers;
  auto begin = [&](proto::CircuitHandle c, std::uint16_t id) {
    servers.push_back(std::make_unique<PayloadServer>(io, payload_for(id, 20'000)));
    cell::BeginMsg m;
    m.kind = cell::BeginAddrKind::Ipv4;
    m.host = "127.0.0.1";
    m.port = servers.back()->port();
    streams.on_stream_message(c, StreamId{id}, m);
  };
  for (std::uint16_t id = 1; id <= 8; ++id) begin(kCirc, id);
  begin(kOther, 1);
  auto run_until = [&](auto pred) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!pred() && std::chrono::steady_clock::now() < deadline) {
      if (io.stopped()) io.restart();
      io.run_for(2ms);
    }
    return pred();
  };
  // The window opens once all are connected: all eight read, their cells
  // take turns, and the 40th closes the circuit with turns still queued.
  REQUIRE(run_until([&] { return streams.stats().streams_open == 9; }));
  out.inner.data_credit = 1000;
  streams.on_circuit_writable(kCirc);
  streams.on_circuit_writable(kOther);
  REQUIRE(run_until([&] { return out.inner.data_bytes(kOther, StreamId{1}).size() == 20'000; }));
  CHECK(out.victim_data == 40);
  CHECK(out.sent_after_close == 0);
  CHECK(streams.streams_on(kCirc) == 0);
  CHECK(out.inner.data_bytes(kOther, StreamId{1}) == payload_for(1, 20'000));
  REQUIRE(run_until([&] { return streams.stream_count() == 0; }));
}
