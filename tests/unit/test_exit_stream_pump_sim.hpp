#pragma once
// A simulated world around exit::StreamPump for the property tests: servers
// with deterministic pseudo-random byte streams, a client that acknowledges
// with stream SENDMEs, a circuit whose window opens and closes, and reads and
// writes that complete in random sizes and in random order. Every action the
// pump takes is checked against the rules as it happens (failures carry the
// seed through the caller's INFO).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "conflux/exit/stream_pump.hpp"

// Millions of checks per run: a plain branch, and Catch only on a failure
// (a REQUIRE each costs more than the simulation step it checks).
#define SIM_REQUIRE(cond)                              \
  do {                                                 \
    if (!(cond)) FAIL("rule broken: " #cond);          \
  } while (false)

namespace conflux::test {

// Byte i of stream k's server stream (or of its client stream): the same
// every run, different for every stream, direction and position.
inline std::uint8_t sim_byte(std::uint64_t seed, std::uint64_t stream, std::uint64_t i, bool up) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (stream << 40) ^ i ^ (up ? 0x5555'0000'0000'0000ULL : 0);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<std::uint8_t>(x);
}

struct SimStream {
  proto::CircuitHandle circuit = 0;
  StreamId id{0};
  exit::StreamRef ref = 0;
  bool client_closes = false;  // the client ENDs; otherwise the server's FIN does
  bool lazy_client = false;    // acknowledges only once the exit's window is shut
  bool slow_server = false;    // reads only once the client has to stop sending

  // Server -> client.
  std::size_t server_len = 0;
  std::size_t server_pos = 0;               // bytes handed to completed reads
  std::optional<std::size_t> read_max;      // a read in flight, of at most this much
  bool read_discards = false;
  std::vector<std::uint8_t> received;       // DATA at the client
  std::size_t cells_received = 0;
  std::size_t sendmes_to_exit = 0;          // stream SENDMEs the client sent
  bool end_received = false;

  // Client -> server.
  std::size_t client_len = 0;
  std::size_t client_pos = 0;               // bytes the client sent as DATA
  std::size_t client_cells = 0;
  std::size_t sendmes_from_exit = 0;
  std::vector<std::vector<std::uint8_t>> write;  // the write in flight
  std::size_t write_total = 0, write_done = 0;
  std::vector<std::uint8_t> at_server;      // written to the server
  bool shut_down = false;
  bool end_sent = false;                    // the client sent END

  bool opened = false;
  bool detached = false;
  bool finished = false;

  // Signed: a pump that overran a window shows as a negative window.
  [[nodiscard]] long long exit_window() const {
    return 500 + 50 * static_cast<long long>(sendmes_to_exit) - static_cast<long long>(cells_received);
  }
  [[nodiscard]] long long client_window() const {
    return 500 + 50 * static_cast<long long>(sendmes_from_exit) - static_cast<long long>(client_cells);
  }
};

struct SimCircuit {
  std::size_t credit = 0;     // DATA cells the circuit still takes
  bool told_no = false;       // the pump was told the circuit is shut
  bool yes_pending = false;   // told yes, no DATA since
};

class PumpSim {
 public:
  std::uint64_t seed;
  std::mt19937_64 rng;
  exit::StreamPump pump;
  std::map<proto::CircuitHandle, SimCircuit> circuits;
  std::vector<SimStream> streams;
  // What the run went through, so a test can tell it covered the hard cases.
  std::size_t data_cells = 0;
  std::size_t stream_windows_shut = 0;  // DATA that used a stream's last cell of window
  std::size_t circuit_refusals = 0;     // CheckWritable answered no
  std::size_t partial_writes = 0;       // a write reported in more than one piece
  std::size_t held_sendmes = 0;         // exit SENDMEs sent after the cells that made them due
  std::size_t reentrant_reopens = 0;    // circuit reopened while the pump's actions were carried out

  bool in_client_data = false;

  explicit PumpSim(std::uint64_t s) : seed(s), rng(s) {}

  std::size_t pick(std::size_t lo, std::size_t hi) {  // inclusive
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
  }
  bool chance(unsigned percent) { return pick(1, 100) <= percent; }

  void add_circuit(proto::CircuitHandle c, std::size_t n_streams) {
    circuits[c].credit = pick(0, 60);
    for (std::size_t i = 0; i < n_streams; ++i) {
      SimStream s;
      s.circuit = c;
      s.id = StreamId{static_cast<std::uint16_t>(i + 1)};
      s.client_closes = chance(40);
      s.lazy_client = chance(30);
      s.slow_server = chance(30);
      // Mostly small, a few beyond a whole stream window (500 cells).
      const std::size_t size_class = pick(1, 100);
      s.server_len = size_class <= 65 ? pick(0, 6000) : size_class <= 92 ? pick(20'000, 80'000) : pick(250'000, 320'000);
      s.client_len = chance(60) ? pick(0, 3000) : pick(10'000, 80'000);
      s.ref = pump.add(c, s.id, proto::StreamKind::Connect);
      streams.push_back(std::move(s));
    }
  }

  SimStream& by_ref(exit::StreamRef ref) {
    // The pump hands out 1, 2, 3... in the order the streams were added.
    SIM_REQUIRE(ref >= 1);
    SIM_REQUIRE(ref <= streams.size());
    SimStream& s = streams[ref - 1];
    SIM_REQUIRE(s.ref == ref);
    return s;
  }

  // ---- the pump's actions, checked -------------------------------------------
  void run() {
    for (auto batch = pump.take_actions(); !batch.empty(); batch = pump.take_actions())
      for (auto& a : batch) std::visit([&](auto& x) { on(x); }, a);
  }
  void on(exit::pump::StartRead& a) {
    SimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!(s.finished));
    SIM_REQUIRE(!(s.read_max.has_value()));  // one read at a time
    SIM_REQUIRE(a.max_bytes > 0);
    if (!a.discard) {
      // A read always fits the stream window: its cells can all go out.
      SIM_REQUIRE(static_cast<long long>((a.max_bytes + exit::kMaxDataLen - 1) / exit::kMaxDataLen) <= s.exit_window());
    }
    s.read_max = a.max_bytes;
    s.read_discards = a.discard;
  }
  // Only XON rates wait, and this simulation has no congestion control.
  void on(exit::pump::ReadLater&) { SIM_REQUIRE(false); }
  void on(exit::pump::CheckWritable& a) {
    SimCircuit& c = circuits.at(a.circuit);
    // A Conflux set may say no with its window open; it then calls back.
    const bool yes = c.credit > 0 && !chance(10);
    c.told_no = !yes;
    if (!yes) ++circuit_refusals;
    c.yes_pending = yes;
    pump.circuit_writable(a.circuit, yes);
  }
  void on(exit::pump::Send& a) {
    SimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!(s.finished));
    SIM_REQUIRE(!(s.end_sent));  // nothing after the client's END (tor-spec 6.3)
    SIM_REQUIRE(!(s.end_received));
    SIM_REQUIRE(a.circuit == s.circuit);
    SIM_REQUIRE(a.stream == s.id);
    if (auto* d = std::get_if<cell::DataMsg>(&a.msg)) return on_data(s, *d);
    if (std::holds_alternative<cell::SendmeMsg>(a.msg)) {
      ++s.sendmes_from_exit;
      if (!in_client_data) ++held_sendmes;
      // Only for cells the client sent: 50 each.
      SIM_REQUIRE(50 * s.sendmes_from_exit <= s.client_cells);
      return;
    }
    const auto* end = std::get_if<cell::EndMsg>(&a.msg);
    SIM_REQUIRE(end != nullptr);
    CHECK(end->reason == cell::EndReason::Done);
    // END DONE comes after every byte of the server.
    SIM_REQUIRE(s.received.size() == s.server_len);
    s.end_received = true;
  }
  void on_data(SimStream& s, const cell::DataMsg& d) {
    SimCircuit& c = circuits.at(s.circuit);
    SIM_REQUIRE(s.opened);
    SIM_REQUIRE(c.credit > 0);       // the circuit window
    SIM_REQUIRE(c.yes_pending);      // asked right before
    SIM_REQUIRE(s.exit_window() > 0);  // the stream window
    // Never from a buffer a read is still filling (issue 13).
    SIM_REQUIRE(!(s.read_max.has_value()));
    SIM_REQUIRE(!(d.data.empty()));
    SIM_REQUIRE(d.data.size() <= exit::kMaxDataLen);
    --c.credit;
    c.yes_pending = false;
    ++data_cells;
    if (chance(20)) {
      // A cell sent on a Conflux set may free a leg, and the set says so at
      // once: the pump hears of it while the rest of its batch (more Sends
      // on this circuit, perhaps) is still being carried out.
      auto it = circuits.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(pick(0, circuits.size() - 1)));
      ++reentrant_reopens;
      reopen(it->first, it->second);
    }
    SIM_REQUIRE(s.received.size() + d.data.size() <= s.server_len);
    // Intact and in order: the first wrong byte, if any (one assertion per
    // cell keeps the test fast).
    std::size_t wrong = d.data.size();
    for (std::size_t k = 0; k < d.data.size() && wrong == d.data.size(); ++k)
      if (d.data[k] != sim_byte(seed, s.ref, s.received.size() + k, false)) wrong = k;
    if (wrong != d.data.size())
      FAIL("stream " << s.id.value() << ": byte " << s.received.size() + wrong << " of the server's stream is wrong");
    s.received.insert(s.received.end(), d.data.begin(), d.data.end());
    ++s.cells_received;
    if (s.exit_window() == 0) ++stream_windows_shut;
  }
  void on(exit::pump::WriteToServer& a) {
    SimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!(s.finished));
    SIM_REQUIRE(s.opened);
    SIM_REQUIRE(s.write.empty());  // one write at a time
    SIM_REQUIRE(!(s.shut_down));
    s.write = std::move(a.chunks);
    s.write_total = 0;
    for (const auto& ch : s.write) s.write_total += ch.size();
    s.write_done = 0;
    SIM_REQUIRE(s.write_total > 0);
  }
  void on(exit::pump::Detach& a) {
    SimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!(s.detached));
    s.detached = true;
  }
  void on(exit::pump::ShutdownSend& a) {
    SimStream& s = by_ref(a.ref);
    SIM_REQUIRE(s.write.empty());
    SIM_REQUIRE(s.at_server.size() == s.client_pos);  // everything the client sent, first
    s.shut_down = true;
  }
  void on(exit::pump::Finish& a) {
    SimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!(s.finished));
    s.finished = true;
  }
  void on(exit::pump::KillCircuit&) { FAIL("an honest client's circuit was killed"); }
  void on(exit::pump::Violation& a) { FAIL(std::string("violation: ") + a.what); }

  // ---- the world's events ------------------------------------------------------
  // Each returns false when it cannot happen now.
  bool open(SimStream& s) {
    if (s.opened || s.finished) return false;
    s.opened = true;
    pump.opened(s.ref);
    return true;
  }
  bool complete_read(SimStream& s) {
    if (!s.read_max || s.finished) return false;
    const std::size_t left = s.server_len - s.server_pos;
    if (s.read_discards) {
      // After END: the server still talks a little, then its FIN.
      if (!s.shut_down && !s.end_received) return false;
      s.read_max.reset();
      if (chance(30)) {
        std::vector<std::uint8_t> junk(pick(1, 100), 0xEE);
        pump.server_read(s.ref, junk, {});
      } else {
        pump.server_eof(s.ref);
      }
      return true;
    }
    if (left == 0) {
      // Done: the server closes once it has the client's bytes; a server the
      // client closes waits for our FIN.
      const bool server_done = !s.client_closes && s.at_server.size() == s.client_len;
      if (!server_done && !s.shut_down) return false;
      s.read_max.reset();
      pump.server_eof(s.ref);
      return true;
    }
    const std::size_t n = pick(1, std::min(left, *s.read_max));
    std::vector<std::uint8_t> got(n);
    for (std::size_t i = 0; i < n; ++i) got[i] = sim_byte(seed, s.ref, s.server_pos + i, false);
    s.server_pos += n;
    s.read_max.reset();
    pump.server_read(s.ref, got, {});
    return true;
  }
  bool complete_write(SimStream& s) {
    if (s.write.empty() || s.finished) return false;
    // A slow server lets the exit's queue fill: its SENDMEs are held back,
    // until the client's window shuts.
    if (s.slow_server && s.client_window() > 0 && s.client_pos < s.client_len && !s.end_received) return false;
    // Part of it or the rest.
    const std::size_t n = chance(50) ? s.write_total - s.write_done : pick(1, s.write_total - s.write_done);
    std::size_t skip = s.write_done, take = n;
    for (const auto& ch : s.write) {
      if (skip >= ch.size()) {
        skip -= ch.size();
        continue;
      }
      const std::size_t k = std::min(take, ch.size() - skip);
      s.at_server.insert(s.at_server.end(), ch.begin() + static_cast<std::ptrdiff_t>(skip),
                         ch.begin() + static_cast<std::ptrdiff_t>(skip + k));
      take -= k;
      skip = 0;
      if (take == 0) break;
    }
    if (n < s.write_total - s.write_done) ++partial_writes;
    s.write_done += n;
    if (s.write_done == s.write_total) s.write.clear();
    pump.server_written(s.ref, n, {});
    return true;
  }
  bool client_sendme(SimStream& s) {
    if (s.finished || s.end_received || s.end_sent || s.cells_received < 50 * (s.sendmes_to_exit + 1)) return false;
    if (s.lazy_client && s.exit_window() > 0) return false;
    ++s.sendmes_to_exit;
    pump.client_sendme(s.ref);
    return true;
  }
  bool client_data(SimStream& s) {
    if (s.finished || s.end_received || s.end_sent || s.client_pos == s.client_len || s.client_window() <= 0)
      return false;
    const std::size_t n = pick(1, std::min(exit::kMaxDataLen, s.client_len - s.client_pos));
    std::vector<std::uint8_t> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = sim_byte(seed, s.ref, s.client_pos + i, true);
    s.client_pos += n;
    ++s.client_cells;
    in_client_data = true;
    pump.client_data(s.ref, std::move(d), {});
    run();
    in_client_data = false;
    return true;
  }
  bool client_end(SimStream& s) {
    // A client that closes does so once it has everything and said everything.
    if (!s.client_closes || s.finished || s.end_sent || s.end_received || !s.opened) return false;
    if (s.received.size() != s.server_len || s.client_pos != s.client_len) return false;
    s.end_sent = true;
    pump.client_end(s.ref);
    return true;
  }
  bool circuit_sendme(proto::CircuitHandle id, SimCircuit& c) {
    if (c.credit > 200 || !has_unfinished(id)) return false;
    c.credit += pick(1, 100);
    if (c.told_no) reopen(id, c);
    return true;
  }
  bool conflux_reopen(proto::CircuitHandle id, SimCircuit& c) {
    if (!c.told_no || c.credit == 0) return false;
    reopen(id, c);
    return true;
  }
  bool has_unfinished(proto::CircuitHandle id) const {
    for (const auto& s : streams)
      if (s.circuit == id && !s.finished) return true;
    return false;
  }
  // The runtime's on_circuit_writable: a hint the pump answers with a
  // CheckWritable, never a yes by itself.
  void reopen(proto::CircuitHandle id, SimCircuit& c) {
    c.told_no = false;
    pump.circuit_reopened(id);
  }

  // One random event among those that can happen; false when none can.
  bool step() {
    const std::size_t kinds = 6;
    const std::size_t n = streams.size();
    const std::size_t start = pick(0, n * kinds + circuits.size() * 2 - 1);
    const std::size_t total = n * kinds + circuits.size() * 2;
    for (std::size_t k = 0; k < total; ++k) {
      const std::size_t e = (start + k) % total;
      if (e < n * kinds) {
        SimStream& s = streams[e / kinds];
        bool done = false;
        switch (e % kinds) {
          case 0: done = open(s); break;
          case 1: done = complete_read(s); break;
          case 2: done = complete_write(s); break;
          case 3: done = client_sendme(s); break;
          case 4: done = client_data(s); break;
          default: done = client_end(s); break;
        }
        if (done) return run(), true;
        continue;
      }
      auto it = circuits.begin();
      std::advance(it, static_cast<std::ptrdiff_t>((e - n * kinds) / 2));
      const bool done = (e - n * kinds) % 2 == 0 ? circuit_sendme(it->first, it->second)
                                                 : conflux_reopen(it->first, it->second);
      if (done) return run(), true;
    }
    return false;
  }
};

}  // namespace conflux::test
