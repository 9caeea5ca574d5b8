// exit::StreamPump on circuits with congestion control (prop 324 section 4):
// no stream windows, no stream SENDMEs (one from the client kills the
// circuit), XOFF/XON from the client stop and resume the server's reads, and
// the exit's own XOFF/XON when the client's data waits for a slow server;
// then a seeded property simulation of the whole stream life with XOFF/XON
// both ways (test_exit_stream_pump_cc_sim.hpp), hunting lost wake-ups
// (issue 14: one stream of a working circuit stalling for good under load).
#include <catch2/catch.hpp>
#include <chrono>

#include "actions_of_type.hpp"
#include "conflux/exit/stream_pump.hpp"
#include "test_exit_stream_pump_cc_sim.hpp"

using namespace conflux;

namespace {

constexpr proto::CircuitHandle kCirc = 5;
constexpr bool kCc = true;

template <class T>
std::vector<T> of(const std::vector<exit::PumpAction>& actions) {
  return test::of_type<T>(actions);
}

template <class M>
std::size_t sent(const std::vector<exit::PumpAction>& actions) {
  std::size_t n = 0;
  for (const auto& s : of<exit::pump::Send>(actions)) n += std::holds_alternative<M>(s.msg) ? 1U : 0U;
  return n;
}

// The circuit always takes DATA and the server always has bytes: the DATA
// cells the pump sends before it stops asking (or `limit`).
std::size_t drive_down(exit::StreamPump& pump, exit::StreamRef ref, std::size_t limit) {
  std::size_t data = 0;
  for (auto a = pump.take_actions(); !a.empty() && data < limit; a = pump.take_actions()) {
    data += sent<cell::DataMsg>(a);
    for (const auto& r : of<exit::pump::StartRead>(a)) pump.server_read(ref, std::vector<std::uint8_t>(r.max_bytes, 1), {});
    if (!of<exit::pump::CheckWritable>(a).empty()) pump.circuit_writable(kCirc, true);
  }
  return data;
}

exit::StreamRef open_stream(exit::StreamPump& pump, bool cc) {
  const auto ref = pump.add(kCirc, StreamId{1}, proto::StreamKind::Connect, cc);
  pump.opened(ref);
  return ref;
}

}  // namespace

TEST_CASE("with congestion control the stream window does not stop the server's reads", "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, kCc);
  // A fixed-window stream stops at 500 cells until the client's SENDME.
  CHECK(drive_down(pump, ref, 2000) >= 2000);

  exit::StreamPump fixed;
  const auto fixed_ref = open_stream(fixed, !kCc);
  CHECK(drive_down(fixed, fixed_ref, 2000) == 500);
}

TEST_CASE("with congestion control the exit sends no stream SENDMEs for the client's DATA", "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, kCc);
  pump.circuit_writable(kCirc, false);
  (void)pump.take_actions();
  std::size_t sendmes = 0;
  for (int i = 0; i < 200; ++i) {
    pump.client_data(ref, std::vector<std::uint8_t>(exit::kMaxDataLen, 7), {});
    auto a = pump.take_actions();
    sendmes += sent<cell::SendmeMsg>(a);
    for (const auto& w : of<exit::pump::WriteToServer>(a)) {
      std::size_t n = 0;
      for (const auto& c : w.chunks) n += c.size();
      pump.server_written(ref, n, {});
    }
  }
  CHECK(sendmes == 0);  // 4 with fixed windows (every 50 cells)
}

TEST_CASE("with congestion control a stream SENDME from the client kills the circuit", "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, kCc);
  (void)pump.take_actions();
  pump.client_sendme(ref);
  const auto a = pump.take_actions();
  REQUIRE(of<exit::pump::KillCircuit>(a).size() == 1);
  CHECK(of<exit::pump::KillCircuit>(a)[0].circuit == kCirc);
  CHECK_FALSE(pump.knows(ref));
}

TEST_CASE("the client's XOFF stops the server's reads and its XON resumes them", "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, kCc);
  REQUIRE(drive_down(pump, ref, 16) >= 16);
  // Whatever read is in flight completes; nothing is read or sent after it.
  pump.client_xoff(ref);
  if (pump.reading(ref)) pump.server_read(ref, std::vector<std::uint8_t>(exit::kMaxDataLen, 1), {});
  pump.circuit_writable(kCirc, true);
  CHECK(drive_down(pump, ref, 100) == 0);
  CHECK_FALSE(pump.reading(ref));

  pump.client_xon(ref, cell::XonMsg{0}, {});
  CHECK(drive_down(pump, ref, 100) >= 100);
}

// Reads the server as the pump asks, the circuit always open, a ReadLater
// waited out on a simulated clock: the bytes read by `until`.
std::size_t read_until(exit::StreamPump& pump, exit::StreamRef ref, proto::CcClock::time_point& now,
                       proto::CcClock::time_point until) {
  std::size_t bytes = 0;
  while (now < until) {
    auto a = pump.take_actions();
    if (a.empty()) break;
    for (const auto& r : of<exit::pump::StartRead>(a)) {
      bytes += r.max_bytes;
      pump.server_read(ref, std::vector<std::uint8_t>(r.max_bytes, 1), now);
    }
    if (!of<exit::pump::CheckWritable>(a).empty()) pump.circuit_writable(kCirc, true);
    for (const auto& later : of<exit::pump::ReadLater>(a)) {
      CHECK(later.after > proto::CcClock::duration::zero());
      now += later.after;
      pump.read_allowed(ref, now);
    }
  }
  return bytes;
}

TEST_CASE("the rate in the client's XON limits the server's reads, as tor's edge bucket", "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, kCc);
  proto::CcClock::time_point now{std::chrono::seconds(1)};
  // 100 kB/s: one second's worth at once, then 100 kB per second.
  pump.client_xon(ref, cell::XonMsg{100}, now);
  const auto start = now;
  const std::size_t first = read_until(pump, ref, now, start + std::chrono::milliseconds(1));
  CHECK(first >= 99'000);
  CHECK(first <= 100'000 + exit::kMaxDataLen);
  const std::size_t more = read_until(pump, ref, now, start + std::chrono::seconds(3));
  // 3 s at 100 kB/s, less what the first millisecond already took.
  CHECK(more >= 295'000);
  CHECK(more <= 301'000);
  // XON 0: no limit; without a ReadLater the reads go on at once.
  pump.client_xon(ref, cell::XonMsg{0}, now);
  CHECK(drive_down(pump, ref, 2000) >= 2000);
}

TEST_CASE("without congestion control XON and XOFF are ignored", "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, !kCc);
  pump.client_xoff(ref);
  CHECK(drive_down(pump, ref, 100) >= 100);
}

TEST_CASE("the exit sends XOFF when the client's data waits for the server past cc_xoff_exit, XON once it drained",
          "[exit][pump][cc]") {
  exit::StreamPump pump;
  const auto ref = open_stream(pump, kCc);
  pump.circuit_writable(kCirc, false);
  (void)pump.take_actions();
  // The server reads nothing: the first write stays in flight, and one cell
  // arrives every millisecond. cc_xoff_exit is 500 cells of 488 bytes
  // (244000); 490 cells of 498 bytes pass it, and XOFF goes once the
  // buffer has been over it for more than the 5 ms grace period: cell 496.
  proto::CcClock::time_point now{std::chrono::seconds(10)};
  std::size_t xoff_at = 0;
  std::size_t in_flight = 0;
  for (std::size_t i = 1; i <= 600 && xoff_at == 0; ++i) {
    now += std::chrono::milliseconds(1);
    pump.client_data(ref, std::vector<std::uint8_t>(exit::kMaxDataLen, 7), now);
    auto a = pump.take_actions();
    for (const auto& w : of<exit::pump::WriteToServer>(a))
      for (const auto& c : w.chunks) in_flight += c.size();
    if (sent<cell::XoffMsg>(a) == 1) xoff_at = i;
  }
  CHECK(xoff_at == 496);
  CHECK(pump.xoffs_sent(ref) == 1);

  // The server catches up: everything queued is written, and XON follows.
  std::size_t xons = 0;
  for (int round = 0; round < 100 && in_flight > 0; ++round) {
    now += std::chrono::milliseconds(1);
    const std::size_t n = in_flight;
    in_flight = 0;
    pump.server_written(ref, n, now);
    auto a = pump.take_actions();
    xons += sent<cell::XonMsg>(a);
    for (const auto& w : of<exit::pump::WriteToServer>(a))
      for (const auto& c : w.chunks) in_flight += c.size();
  }
  CHECK(in_flight == 0);
  CHECK(xons == 1);
}

// ---- the property simulation with congestion control ---------------------------------

namespace {

void run_cc_to_the_end(test::CcPumpSim& sim) {
  constexpr std::size_t kMaxSteps = 20'000'000;
  std::size_t steps = 0;
  while (sim.step()) REQUIRE(++steps < kMaxSteps);
  for (const test::CcSimStream& s : sim.streams) {
    INFO("stream " << s.id.value() << " on circuit " << s.circuit << ": " << s.received.size() << " of "
                   << s.server_len << " bytes down, " << s.at_server.size() << " of " << s.client_len
                   << " up; exit XOFFed by the client " << s.exit_xoffed << ", client may package "
                   << s.package.may_package() << ", client XOFF sent " << s.deliver.xoff_sent());
    REQUIRE(s.finished);
    REQUIRE(s.received.size() == s.server_len);  // each byte checked as it arrived
    REQUIRE(s.at_server.size() == s.client_len);
    std::size_t wrong = s.client_len;
    for (std::size_t i = 0; i < s.client_len && wrong == s.client_len; ++i)
      if (s.at_server[i] != test::sim_byte(sim.seed, s.ref, i, true)) wrong = i;
    REQUIRE(wrong == s.client_len);
  }
  CHECK(sim.pump->stream_count() == 0);
}

}  // namespace

TEST_CASE("with congestion control, XOFF/XON both ways and slow peers, every byte arrives",
          "[exit][pump][cc][property]") {
  std::size_t xoffs_to_exit = 0, xons_to_exit = 0, xoffs_from_exit = 0, xons_from_exit = 0, read_laters = 0,
              timer_fires = 0, refusals = 0, app_pauses = 0, server_pauses = 0, clock_flips = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    INFO("seed " << seed);
    test::CcPumpSim sim(seed);
    sim.add_circuit(7, sim.pick(1, 30));
    if (sim.chance(50)) sim.add_circuit(9, sim.pick(1, 30));
    run_cc_to_the_end(sim);
    xoffs_to_exit += sim.xoffs_to_exit;
    xons_to_exit += sim.xons_to_exit;
    xoffs_from_exit += sim.xoffs_from_exit;
    xons_from_exit += sim.xons_from_exit;
    read_laters += sim.read_laters;
    timer_fires += sim.timer_fires;
    refusals += sim.circuit_refusals;
    app_pauses += sim.app_pauses;
    server_pauses += sim.server_pauses;
    clock_flips += sim.clock_flips;
  }
  WARN("XOFF client->exit " << xoffs_to_exit << ", XON client->exit " << xons_to_exit << ", XOFF exit->client "
                            << xoffs_from_exit << ", XON exit->client " << xons_from_exit << ", ReadLater "
                            << read_laters << " (fired " << timer_fires << "), circuit refusals " << refusals
                            << ", application pauses " << app_pauses << ", server pauses " << server_pauses
                            << ", clock marked broken or healthy " << clock_flips);
  CHECK(xoffs_to_exit > 0);
  CHECK(xons_to_exit > 0);
  CHECK(xoffs_from_exit > 0);
  CHECK(xons_from_exit > 0);
  CHECK(read_laters > 0);
  CHECK(refusals > 0);
}

TEST_CASE("with congestion control and tor's thresholds, the load test's groups of four downloads and an upload finish",
          "[exit][pump][cc][property]") {
  std::size_t xoffs = 0, xons = 0, read_laters = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    test::CcPumpSim sim(seed, true);
    sim.add_load_group(7, 1'000'000);
    sim.add_load_group(9, 1'000'000);
    run_cc_to_the_end(sim);
    xoffs += sim.xoffs_to_exit + sim.xoffs_from_exit;
    xons += sim.xons_to_exit + sim.xons_from_exit;
    read_laters += sim.read_laters;
  }
  WARN("XOFF " << xoffs << ", XON " << xons << ", ReadLater " << read_laters);
  CHECK(xoffs > 0);
  CHECK(xons > 0);
}
