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
