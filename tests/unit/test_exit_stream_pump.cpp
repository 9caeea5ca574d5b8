// exit::StreamPump, the exit's stream data path without sockets: a seeded
// property test with many streams per circuit whose windows open and close
// in random order (test_exit_stream_pump_sim.hpp checks every action as it
// happens), and the rules one scenario at a time.
#include <catch2/catch.hpp>

#include "actions_of_type.hpp"
#include "test_exit_stream_pump_sim.hpp"

using namespace conflux;
using conflux::test::PumpSim;
using conflux::test::SimStream;

namespace {

void run_to_the_end(PumpSim& sim) {
  constexpr std::size_t kMaxSteps = 20'000'000;
  std::size_t steps = 0;
  while (sim.step()) REQUIRE(++steps < kMaxSteps);
  for (const SimStream& s : sim.streams) {
    INFO("stream " << s.id.value() << " on circuit " << s.circuit << ": " << s.received.size() << " of "
                   << s.server_len << " bytes down, " << s.at_server.size() << " of " << s.client_len << " up");
    // Every stream finishes: none starved, no window left shut.
    REQUIRE(s.finished);
    REQUIRE(s.received.size() == s.server_len);  // each byte checked as it arrived
    REQUIRE(s.at_server.size() == s.client_len);
    std::size_t wrong = s.client_len;
    for (std::size_t i = 0; i < s.client_len && wrong == s.client_len; ++i)
      if (s.at_server[i] != test::sim_byte(sim.seed, s.ref, i, true)) wrong = i;
    REQUIRE(wrong == s.client_len);  // the client's bytes reached the server intact, in order
  }
  CHECK(sim.pump.stream_count() == 0);
}

}  // namespace

TEST_CASE("many streams per circuit, windows opening in random order: every byte arrives intact, in order",
          "[exit][pump][property]") {
  std::size_t windows_shut = 0, refusals = 0, partial_writes = 0, held_sendmes = 0, reentrant = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    INFO("seed " << seed);
    PumpSim sim(seed);
    sim.add_circuit(7, sim.pick(1, 40));
    if (sim.chance(50)) sim.add_circuit(9, sim.pick(1, 40));
    run_to_the_end(sim);
    windows_shut += sim.stream_windows_shut;
    refusals += sim.circuit_refusals;
    partial_writes += sim.partial_writes;
    held_sendmes += sim.held_sendmes;
    reentrant += sim.reentrant_reopens;
  }
  // The seeds went through what the test is about.
  CHECK(windows_shut > 0);
  CHECK(refusals > 0);
  CHECK(partial_writes > 0);
  CHECK(held_sendmes > 0);
  CHECK(reentrant > 0);
}

TEST_CASE("one stream alone on a circuit with a window of one cell", "[exit][pump][property]") {
  for (std::uint64_t seed = 100; seed < 110; ++seed) {
    INFO("seed " << seed);
    PumpSim sim(seed);
    sim.add_circuit(3, 1);
    sim.circuits.at(3).credit = 1;
    run_to_the_end(sim);
  }
}

// ---- the rules one at a time -------------------------------------------------------

namespace {

constexpr proto::CircuitHandle kCirc = 5;

template <class T>
std::vector<T> of(const std::vector<exit::PumpAction>& actions) {
  return test::of_type<T>(actions);
}

std::vector<cell::DataMsg> data_of(const std::vector<exit::PumpAction>& actions) {
  std::vector<cell::DataMsg> out;
  for (const auto& s : of<exit::pump::Send>(actions))
    if (const auto* d = std::get_if<cell::DataMsg>(&s.msg)) out.push_back(*d);
  return out;
}

std::size_t sendmes_of(const std::vector<exit::PumpAction>& actions) {
  std::size_t n = 0;
  for (const auto& s : of<exit::pump::Send>(actions)) n += std::holds_alternative<cell::SendmeMsg>(s.msg) ? 1U : 0U;
  return n;
}

}  // namespace

TEST_CASE("a stream reads only once the circuit said it takes DATA, and sends only what a read returned",
          "[exit][pump]") {
  exit::StreamPump pump;
  const auto ref = pump.add(kCirc, StreamId{1}, proto::StreamKind::Connect);
  pump.opened(ref);
  auto a = pump.take_actions();
  REQUIRE(a.size() == 1);
  REQUIRE(std::holds_alternative<exit::pump::CheckWritable>(a[0]));

  pump.circuit_writable(kCirc, true);
  a = pump.take_actions();
  const auto reads = of<exit::pump::StartRead>(a);
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].max_bytes == 8 * exit::kMaxDataLen);
  CHECK(data_of(a).empty());
  CHECK(pump.reading(ref));

  // The circuit reopening while the read is in flight sends nothing.
  pump.circuit_reopened(kCirc);
  CHECK(pump.take_actions().empty());

  const std::vector<std::uint8_t> got(600, 0x41);
  pump.server_read(ref, got, {});
  a = pump.take_actions();
  REQUIRE(of<exit::pump::CheckWritable>(a).size() == 1);
  pump.circuit_writable(kCirc, true);
  a = pump.take_actions();
  REQUIRE(data_of(a).size() == 1);
  CHECK(data_of(a)[0].data == std::vector<std::uint8_t>(std::size_t{498}, 0x41));
  pump.circuit_writable(kCirc, true);
  a = pump.take_actions();
  REQUIRE(data_of(a).size() == 1);
  CHECK(data_of(a)[0].data == std::vector<std::uint8_t>(std::size_t{102}, 0x41));
}

TEST_CASE("streams take turns cell by cell, and one cut off by the circuit goes first when it reopens",
          "[exit][pump]") {
  exit::StreamPump pump;
  const auto r1 = pump.add(kCirc, StreamId{1}, proto::StreamKind::Connect);
  const auto r2 = pump.add(kCirc, StreamId{2}, proto::StreamKind::Connect);
  for (auto r : {r1, r2}) pump.opened(r);
  pump.circuit_writable(kCirc, true);
  (void)pump.take_actions();
  pump.server_read(r1, std::vector<std::uint8_t>(3 * exit::kMaxDataLen, 1), {});
  pump.server_read(r2, std::vector<std::uint8_t>(3 * exit::kMaxDataLen, 2), {});
  (void)pump.take_actions();

  std::vector<StreamId> order;
  auto one = [&](bool writable) {
    pump.circuit_writable(kCirc, writable);
    for (const auto& s : of<exit::pump::Send>(pump.take_actions())) order.push_back(s.stream);
  };
  one(true);
  one(true);
  one(true);
  one(false);  // shut: nothing
  one(true);
  one(true);
  one(true);
  CHECK(order == std::vector<StreamId>{StreamId{1}, StreamId{2}, StreamId{1}, StreamId{2}, StreamId{1}, StreamId{2}});
}

TEST_CASE("SENDMEs held back while the server is backlogged all go once its queue drains", "[exit][pump]") {
  exit::StreamPump pump;
  const auto ref = pump.add(kCirc, StreamId{1}, proto::StreamKind::Connect);
  pump.opened(ref);
  pump.circuit_writable(kCirc, false);  // no reads: only the upward direction here
  (void)pump.take_actions();
  // 150 full cells while the first write never completes: the first SENDME
  // is due at cell 50, with ~49 cells waiting; all three are held back.
  std::size_t sendmes = 0;
  std::size_t written = 0;
  for (int i = 0; i < 150; ++i) {
    pump.client_data(ref, std::vector<std::uint8_t>(exit::kMaxDataLen, 7), {});
    auto a = pump.take_actions();
    sendmes += sendmes_of(a);
    for (const auto& w : of<exit::pump::WriteToServer>(a))
      for (const auto& ch : w.chunks) written += ch.size();
  }
  CHECK(sendmes == 0);
  CHECK(written == exit::kMaxDataLen);  // the first cell's write, still in flight
  pump.server_written(ref, written, {});
  auto a = pump.take_actions();
  CHECK(sendmes_of(a) == 0);  // still 149 cells queued
  const auto w = of<exit::pump::WriteToServer>(a);
  REQUIRE(w.size() == 1);
  CHECK(w[0].chunks.size() == 32);  // one write takes at most 32 chunks
  std::size_t queued = 149;
  while (queued > 0) {
    const std::size_t n = std::min<std::size_t>(queued, 32);
    pump.server_written(ref, n * exit::kMaxDataLen, {});
    queued -= n;
    a = pump.take_actions();
    sendmes += sendmes_of(a);
  }
  CHECK(sendmes == 3);
}

TEST_CASE("a client sending beyond the buffer limit kills the circuit, and nothing else happens", "[exit][pump]") {
  exit::PumpLimits limits;
  limits.max_upstream_bytes = 1000;
  exit::StreamPump pump(limits);
  const auto ref = pump.add(kCirc, StreamId{1}, proto::StreamKind::Connect);
  pump.client_data(ref, std::vector<std::uint8_t>(std::size_t{498}, 1), {});
  pump.client_data(ref, std::vector<std::uint8_t>(std::size_t{498}, 1), {});
  CHECK(pump.take_actions().empty());  // still connecting: kept
  pump.client_data(ref, std::vector<std::uint8_t>(std::size_t{498}, 1), {});
  const auto a = pump.take_actions();
  REQUIRE(a.size() == 2);
  CHECK(std::holds_alternative<exit::pump::Violation>(a[0]));
  REQUIRE(std::holds_alternative<exit::pump::KillCircuit>(a[1]));
  CHECK(std::get<exit::pump::KillCircuit>(a[1]).circuit == kCirc);
  CHECK_FALSE(pump.knows(ref));
}

TEST_CASE("the bytes held for servers are counted, in all and by circuit with their age", "[exit][pump][oom]") {
  exit::StreamPump pump;
  const auto t0 = proto::CcClock::time_point{} + std::chrono::seconds(100);
  const auto a = pump.add(kCirc, StreamId{1}, proto::StreamKind::Connect);
  const auto b = pump.add(kCirc, StreamId{2}, proto::StreamKind::Connect);
  const auto c = pump.add(9, StreamId{1}, proto::StreamKind::Connect);
  pump.client_data(a, std::vector<std::uint8_t>(std::size_t{100}, 1), t0 + std::chrono::seconds(2));
  pump.client_data(b, std::vector<std::uint8_t>(std::size_t{200}, 1), t0);
  pump.client_data(c, std::vector<std::uint8_t>(std::size_t{50}, 1), t0 + std::chrono::seconds(1));
  (void)pump.take_actions();
  CHECK(pump.buffered_bytes() == 350);
  auto by = pump.buffered_circuits();
  std::sort(by.begin(), by.end(), [](const auto& x, const auto& y) { return x.circuit < y.circuit; });
  REQUIRE(by.size() == 2);
  CHECK(by[0].circuit == kCirc);
  CHECK(by[0].bytes == 300);
  CHECK(by[0].oldest == t0);  // stream 2's bytes waited longest
  CHECK(by[1].circuit == 9);
  CHECK(by[1].oldest == t0 + std::chrono::seconds(1));
  // Written to the server: no longer held.
  pump.opened(c);
  auto w = of<exit::pump::WriteToServer>(pump.take_actions());
  REQUIRE(w.size() == 1);
  pump.server_written(c, 50, t0 + std::chrono::seconds(3));
  CHECK(pump.buffered_bytes() == 300);
  // A closed circuit's streams give theirs back.
  pump.circuit_closed(kCirc);
  CHECK(pump.buffered_bytes() == 0);
  CHECK(pump.buffered_circuits().empty());
}
