#pragma once
// PumpSim's world with congestion control (prop 324), as the runtime runs a
// StreamPump on a CC circuit: no stream SENDMEs; a client that buffers what
// it receives for an application reading random chunks at random times (and
// pausing), sending XOFF/XON with its drain rate as client_stream.cpp does
// (proto::StreamDeliverFlow, StreamEdge::ClientToExit), and obeying the
// exit's XOFF/XON for its uploads (proto::StreamPackageFlow); cells in
// flight both ways (per-stream FIFOs, delivered at random times); a virtual
// clock; ReadLater answered by a timer after its delay rounded up to whole
// milliseconds (exit_stream_io.cpp's read_later); circuits that say no and
// reopen; servers that stop reading and sending for a while; the clock
// marked broken and healthy again now and then. Small, random
// cc_xoff_* and cc_xon_rate make XOFF/XON frequent with small streams.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "conflux/exit/stream_pump.hpp"
#include "conflux/proto/cc_stream_flow.hpp"
#include "test_exit_stream_pump_sim.hpp"

namespace conflux::test {

struct CcSimStream {
  CcSimStream(const proto::CcParams& p, const proto::ClockHealth& clock)
      : deliver(p, proto::StreamEdge::ClientToExit, clock), package(p, proto::StreamEdge::ClientToExit) {}

  proto::CircuitHandle circuit = 0;
  StreamId id{0};
  exit::StreamRef ref = 0;
  bool client_closes = false;
  bool slow_app = false;     // the application reads at app_rate, and pauses
  std::size_t app_rate = 0;  // bytes per second
  bool slow_server = false;  // the server pauses its reads and writes

  // Server -> exit -> client -> application.
  std::size_t server_len = 0, server_pos = 0;
  std::optional<std::size_t> read_max;
  bool read_discards = false;
  std::deque<cell::RelayMsg> to_client;  // sent by the exit, not yet at the client
  std::vector<std::uint8_t> received;    // DATA at the client
  std::size_t app_buf = 0;               // received, not yet read by the application
  std::size_t app_read = 0;
  proto::CcClock::time_point app_paused_until{};
  bool end_received = false;
  proto::StreamDeliverFlow deliver;  // the client's XOFF/XON to the exit

  // Application -> client -> exit -> server.
  std::size_t client_len = 0, client_pos = 0;
  proto::StreamPackageFlow package;      // obeys the exit's XOFF/XON
  std::deque<cell::RelayMsg> to_exit;    // sent by the client, not yet at the exit
  std::vector<std::vector<std::uint8_t>> write;
  std::size_t write_total = 0, write_done = 0;
  std::vector<std::uint8_t> at_server;
  proto::CcClock::time_point server_paused_until{};
  bool shut_down = false;
  bool end_sent = false;       // the client queued END
  bool exit_has_end = false;   // ... and the exit got it
  bool exit_xoffed = false;    // the exit got the client's XOFF, no XON since

  bool opened = false;
  bool detached = false;
  bool finished = false;
};

class CcPumpSim {
 public:
  using Clock = proto::CcClock;
  std::uint64_t seed;
  std::mt19937_64 rng;
  proto::CcParams params;
  proto::ClockHealth clock_health;
  Clock::time_point now = Clock::time_point{} + std::chrono::hours(1);
  std::optional<exit::StreamPump> pump;
  std::map<proto::CircuitHandle, SimCircuit> circuits;
  std::deque<CcSimStream> streams;
  std::multimap<Clock::time_point, exit::StreamRef> timers;  // ReadLater
  // What the run went through.
  std::size_t data_cells = 0, circuit_refusals = 0, read_laters = 0, timer_fires = 0;
  std::size_t xoffs_to_exit = 0, xons_to_exit = 0, xoffs_from_exit = 0, xons_from_exit = 0;
  std::size_t app_pauses = 0, server_pauses = 0, clock_jumps = 0, clock_flips = 0;

  // tor_defaults: the consensus defaults (XOFF at 500 cells), for streams of
  // hundreds of KB; else small random thresholds, for XOFF/XON with streams
  // of tens of KB.
  explicit CcPumpSim(std::uint64_t s, bool tor_defaults = false) : seed(s), rng(s) {
    if (!tor_defaults) {
      params.xoff_client_bytes = static_cast<std::uint32_t>(pick(1, 60) * proto::kRelayPayloadSizeMin);
      params.xoff_exit_bytes = static_cast<std::uint32_t>(pick(1, 60) * proto::kRelayPayloadSizeMin);
      params.xon_rate_bytes = static_cast<std::uint32_t>(pick(1, 100) * proto::kRelayPayloadSizeMax);
      params.xon_change_pct = static_cast<std::uint32_t>(pick(1, 99));
      params.xon_ewma_cnt = static_cast<std::uint32_t>(pick(2, 20));
    }
    exit::PumpLimits limits;
    limits.cc = params;
    limits.clock_health = &clock_health;
    pump.emplace(limits);
  }

  std::size_t pick(std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); }
  bool chance(unsigned percent) { return pick(1, 100) <= percent; }
  static Clock::duration ms(std::size_t n) { return std::chrono::milliseconds(n); }

  void add_circuit(proto::CircuitHandle c, std::size_t n_streams) {
    circuits[c].credit = pick(0, 60);
    for (std::size_t i = 0; i < n_streams; ++i) {
      CcSimStream& s = streams.emplace_back(params, clock_health);
      s.circuit = c;
      s.id = StreamId{static_cast<std::uint16_t>(i + 1)};
      s.client_closes = chance(40);
      s.slow_app = chance(40);
      s.app_rate = pick(2'000, 2'000'000);
      s.slow_server = chance(40);
      const std::size_t size_class = pick(1, 100);
      s.server_len = size_class <= 50   ? pick(0, 6000)
                     : size_class <= 90 ? pick(20'000, 60'000)
                                        : pick(100'000, 200'000);
      s.client_len = chance(50) ? pick(0, 3000) : pick(10'000, 80'000);
      s.ref = pump->add(c, s.id, proto::StreamKind::Connect, true);
    }
  }

  // The load test's isolation group (tests/system/load_through_proxy.py):
  // four downloads and one upload (answered once all of it arrived) on one
  // circuit, all with slow applications and servers.
  void add_load_group(proto::CircuitHandle c, std::size_t bytes) {
    circuits[c].credit = pick(0, 60);
    for (std::size_t i = 0; i < 5; ++i) {
      CcSimStream& s = streams.emplace_back(params, clock_health);
      s.circuit = c;
      s.id = StreamId{static_cast<std::uint16_t>(i + 1)};
      s.slow_app = s.slow_server = true;
      s.app_rate = pick(5'000, 500'000);
      s.server_len = i < 4 ? pick(bytes / 2, bytes) : pick(100, 300);
      s.client_len = i < 4 ? pick(50, 200) : pick(bytes / 2, bytes);
      s.ref = pump->add(c, s.id, proto::StreamKind::Connect, true);
    }
  }

  CcSimStream& by_ref(exit::StreamRef ref) {
    SIM_REQUIRE(ref >= 1);
    SIM_REQUIRE(ref <= streams.size());
    CcSimStream& s = streams[ref - 1];
    SIM_REQUIRE(s.ref == ref);
    return s;
  }

  // ---- the pump's actions, checked -------------------------------------------
  void run() {
    for (auto batch = pump->take_actions(); !batch.empty(); batch = pump->take_actions())
      for (auto& a : batch) std::visit([&](auto& x) { on(x); }, a);
  }
  void on(exit::pump::StartRead& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!s.finished);
    SIM_REQUIRE(!s.read_max.has_value());
    SIM_REQUIRE(a.max_bytes > 0);
    if (!a.discard) {
      SIM_REQUIRE(!s.exit_xoffed);  // the client's XOFF stops the reads
      SIM_REQUIRE(!s.exit_has_end);
    }
    s.read_max = a.max_bytes;
    s.read_discards = a.discard;
  }
  void on(exit::pump::ReadLater& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!s.finished);
    SIM_REQUIRE(!s.read_max.has_value());
    SIM_REQUIRE(a.after > Clock::duration::zero());
    for (const auto& [due, ref] : timers) SIM_REQUIRE(ref != a.ref);  // the runtime has one timer per stream
    // exit_stream_io.cpp: whole milliseconds, rounded up, 1 at least.
    const auto wait = std::max(std::chrono::ceil<std::chrono::milliseconds>(a.after), std::chrono::milliseconds(1));
    timers.emplace(now + wait, a.ref);
    ++read_laters;
  }
  void on(exit::pump::CheckWritable& a) {
    SimCircuit& c = circuits.at(a.circuit);
    const bool yes = c.credit > 0 && !chance(10);
    c.told_no = !yes;
    if (!yes) ++circuit_refusals;
    c.yes_pending = yes;
    pump->circuit_writable(a.circuit, yes);
  }
  void on(exit::pump::Send& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!s.finished);
    SIM_REQUIRE(a.circuit == s.circuit);
    SIM_REQUIRE(a.stream == s.id);
    SIM_REQUIRE(!std::holds_alternative<cell::SendmeMsg>(a.msg));  // never with congestion control
    SIM_REQUIRE(!s.exit_has_end);  // nothing after the client's END reached the exit (tor-spec 6.3)
    if (const auto* d = std::get_if<cell::DataMsg>(&a.msg)) {
      SimCircuit& c = circuits.at(s.circuit);
      SIM_REQUIRE(s.opened);
      SIM_REQUIRE(c.credit > 0);
      SIM_REQUIRE(c.yes_pending);
      SIM_REQUIRE(!s.exit_xoffed);
      SIM_REQUIRE(!s.read_max.has_value());
      SIM_REQUIRE(!d->data.empty());
      SIM_REQUIRE(d->data.size() <= exit::kMaxDataLen);
      --c.credit;
      c.yes_pending = false;
      ++data_cells;
      if (chance(20)) reopen_any();
    } else if (std::holds_alternative<cell::XoffMsg>(a.msg)) {
      ++xoffs_from_exit;
    } else if (std::holds_alternative<cell::XonMsg>(a.msg)) {
      ++xons_from_exit;
    } else {
      const auto* end = std::get_if<cell::EndMsg>(&a.msg);
      SIM_REQUIRE(end != nullptr);
      CHECK(end->reason == cell::EndReason::Done);
    }
    s.to_client.push_back(a.msg);
  }
  void on(exit::pump::WriteToServer& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!s.finished);
    SIM_REQUIRE(s.opened);
    SIM_REQUIRE(s.write.empty());
    SIM_REQUIRE(!s.shut_down);
    s.write = std::move(a.chunks);
    s.write_total = 0;
    for (const auto& ch : s.write) s.write_total += ch.size();
    s.write_done = 0;
    SIM_REQUIRE(s.write_total > 0);
  }
  void on(exit::pump::Detach& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!s.detached);
    s.detached = true;
  }
  void on(exit::pump::ShutdownSend& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(s.write.empty());
    SIM_REQUIRE(s.at_server.size() == s.client_len);
    s.shut_down = true;
  }
  void on(exit::pump::Finish& a) {
    CcSimStream& s = by_ref(a.ref);
    SIM_REQUIRE(!s.finished);
    s.finished = true;
  }
  void on(exit::pump::KillCircuit&) { FAIL("an honest client's circuit was killed"); }
  void on(exit::pump::Violation& a) { FAIL(std::string("violation: ") + a.what); }

  void reopen_any() {
    auto it = circuits.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(pick(0, circuits.size() - 1)));
    it->second.told_no = false;
    pump->circuit_reopened(it->first);
  }

  // ---- the world's events (false: cannot happen now) -------------------------
  bool open(CcSimStream& s) {
    if (s.opened || s.finished) return false;
    s.opened = true;
    pump->opened(s.ref);
    return true;
  }
  bool server_paused(const CcSimStream& s) const { return now < s.server_paused_until; }
  void maybe_pause_server(CcSimStream& s) {
    if (!s.slow_server || !chance(5)) return;
    s.server_paused_until = now + ms(pick(1, 300));
    ++server_pauses;
  }
  bool complete_read(CcSimStream& s) {
    if (!s.read_max || s.finished) return false;
    if (s.read_discards) {
      if (!s.shut_down && !s.exit_has_end) return false;
      s.read_max.reset();
      pump->server_eof(s.ref);
      return true;
    }
    const std::size_t left = s.server_len - s.server_pos;
    if (left == 0) {
      const bool server_done = !s.client_closes && s.at_server.size() == s.client_len;
      if (!server_done && !s.shut_down) return false;
      s.read_max.reset();
      pump->server_eof(s.ref);
      return true;
    }
    if (server_paused(s)) return false;
    const std::size_t n = pick(1, std::min(left, *s.read_max));
    std::vector<std::uint8_t> got(n);
    for (std::size_t i = 0; i < n; ++i) got[i] = sim_byte(seed, s.ref, s.server_pos + i, false);
    s.server_pos += n;
    s.read_max.reset();
    maybe_pause_server(s);
    pump->server_read(s.ref, got, now);
    return true;
  }
  bool complete_write(CcSimStream& s) {
    if (s.write.empty() || s.finished || server_paused(s)) return false;
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
    s.write_done += n;
    if (s.write_done == s.write_total) s.write.clear();
    maybe_pause_server(s);
    pump->server_written(s.ref, n, now);
    return true;
  }
  // client_stream.cpp's send_flow: what the client's StreamDeliverFlow says.
  void client_flow(CcSimStream& s, const std::optional<proto::StreamFlowMsg>& m) {
    if (!m || s.end_sent) return;
    if (std::holds_alternative<cell::XoffMsg>(*m)) ++xoffs_to_exit;
    if (std::holds_alternative<cell::XonMsg>(*m)) ++xons_to_exit;
    std::visit([&](const auto& f) { s.to_exit.push_back(cell::RelayMsg{f}); }, *m);
  }
  // One message of the exit's reaches the client (ClientStream::on_stream_msg).
  bool deliver_to_client(CcSimStream& s) {
    if (s.to_client.empty()) return false;
    cell::RelayMsg msg = std::move(s.to_client.front());
    s.to_client.pop_front();
    if (const auto* d = std::get_if<cell::DataMsg>(&msg)) {
      SIM_REQUIRE(!s.end_received);
      SIM_REQUIRE(s.received.size() + d->data.size() <= s.server_len);
      std::size_t wrong = d->data.size();
      for (std::size_t k = 0; k < d->data.size() && wrong == d->data.size(); ++k)
        if (d->data[k] != sim_byte(seed, s.ref, s.received.size() + k, false)) wrong = k;
      if (wrong != d->data.size())
        FAIL("stream " << s.id.value() << ": byte " << s.received.size() + wrong << " of the server's stream is wrong");
      s.received.insert(s.received.end(), d->data.begin(), d->data.end());
      s.app_buf += d->data.size();
      client_flow(s, s.deliver.on_data_buffered(now, s.app_buf));
    } else if (std::holds_alternative<cell::XoffMsg>(msg)) {
      (void)s.package.on_xoff();
    } else if (const auto* x = std::get_if<cell::XonMsg>(&msg)) {
      (void)s.package.on_xon(*x, now);
    } else {
      SIM_REQUIRE(std::holds_alternative<cell::EndMsg>(msg));
      SIM_REQUIRE(s.received.size() == s.server_len);  // END DONE after every byte
      s.end_received = true;
    }
    return true;
  }
  // The application takes some of what the client holds (take_received).
  bool app_reads(CcSimStream& s) {
    if (s.app_buf == 0 || now < s.app_paused_until) return false;
    const std::size_t n = pick(1, s.app_buf);
    s.app_buf -= n;
    s.app_read += n;
    if (!s.end_received) client_flow(s, s.deliver.on_drained(now, n, s.app_buf));
    if (s.slow_app) {
      // Its rate (what the client's XON tells the exit), and now and then a pause.
      s.app_paused_until = now + std::chrono::microseconds(n * 1'000'000 / s.app_rate);
      if (chance(10)) s.app_paused_until += ms(pick(1, 200));
      ++app_pauses;
    }
    return true;
  }
  bool client_data(CcSimStream& s) {
    if (s.end_sent || s.end_received || s.client_pos == s.client_len || !s.package.may_package()) return false;
    const std::size_t n = pick(1, std::min(exit::kMaxDataLen, s.client_len - s.client_pos));
    std::vector<std::uint8_t> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = sim_byte(seed, s.ref, s.client_pos + i, true);
    s.client_pos += n;
    s.package.on_data_packaged(static_cast<std::uint32_t>(n));
    s.to_exit.push_back(cell::DataMsg{std::move(d)});
    return true;
  }
  bool client_end(CcSimStream& s) {
    if (!s.client_closes || s.end_sent || s.end_received || !s.opened) return false;
    if (s.received.size() != s.server_len || s.client_pos != s.client_len) return false;
    s.end_sent = true;
    s.to_exit.push_back(cell::EndMsg{cell::EndReason::Done, std::nullopt});
    return true;
  }
  // One message of the client's reaches the exit.
  bool deliver_to_exit(CcSimStream& s) {
    if (s.to_exit.empty()) return false;
    cell::RelayMsg msg = std::move(s.to_exit.front());
    s.to_exit.pop_front();
    if (auto* d = std::get_if<cell::DataMsg>(&msg)) {
      pump->client_data(s.ref, std::move(d->data), now);
    } else if (std::holds_alternative<cell::XoffMsg>(msg)) {
      if (!s.exit_has_end) s.exit_xoffed = true;
      pump->client_xoff(s.ref);
    } else if (const auto* x = std::get_if<cell::XonMsg>(&msg)) {
      s.exit_xoffed = false;
      pump->client_xon(s.ref, *x, now);
    } else {
      s.exit_has_end = true;
      pump->client_end(s.ref, cell::EndReason::Done);
    }
    return true;
  }
  bool fire_timer() {
    if (timers.empty() || timers.begin()->first > now) return false;
    const exit::StreamRef ref = timers.begin()->second;
    timers.erase(timers.begin());
    ++timer_fires;
    pump->read_allowed(ref, now);
    return true;
  }
  bool circuit_sendme(proto::CircuitHandle id, SimCircuit& c) {
    if (c.credit > 200 || !has_unfinished(id)) return false;
    c.credit += pick(1, 100);
    if (c.told_no) {
      c.told_no = false;
      pump->circuit_reopened(id);
    }
    return true;
  }
  bool conflux_reopen(proto::CircuitHandle id, SimCircuit& c) {
    if (!c.told_no || c.credit == 0) return false;
    c.told_no = false;
    pump->circuit_reopened(id);
    return true;
  }
  bool has_unfinished(proto::CircuitHandle id) const {
    for (const auto& s : streams)
      if (s.circuit == id && !s.finished) return true;
    return false;
  }

  // The earliest time something waits for (a timer, a pause's end).
  std::optional<Clock::time_point> next_deadline() const {
    std::optional<Clock::time_point> t;
    auto consider = [&](Clock::time_point x) {
      if (x > now && (!t || x < *t)) t = x;
    };
    if (!timers.empty()) consider(timers.begin()->first);
    for (const auto& s : streams) {
      if (s.app_buf > 0) consider(s.app_paused_until);
      if (!s.finished) consider(s.server_paused_until);
    }
    return t;
  }

  bool stream_event(CcSimStream& s, std::size_t kind) {
    switch (kind) {
      case 0: return open(s);
      case 1: return complete_read(s);
      case 2: return complete_write(s);
      case 3: return deliver_to_client(s);
      case 4: return app_reads(s);
      case 5: return client_data(s);
      case 6: return client_end(s);
      default: return deliver_to_exit(s);
    }
  }

  // One random event among those that can happen; the clock moves now and
  // then, and jumps to the next deadline when nothing else can happen. False
  // when nothing can happen any more.
  bool step() {
    if (chance(10)) now += std::chrono::microseconds(pick(0, 3000));
    // A clock stall seen and cleared (drain rates are not measured meanwhile).
    if (pick(1, clock_health.broken ? 50 : 5000) == 1) {
      clock_health.broken = !clock_health.broken;
      ++clock_flips;
    }
    constexpr std::size_t kinds = 8;
    const std::size_t n = streams.size();
    const std::size_t total = n * kinds + circuits.size() * 2 + 1;
    const std::size_t start = pick(0, total - 1);
    for (std::size_t k = 0; k < total; ++k) {
      const std::size_t e = (start + k) % total;
      bool done = false;
      if (e < n * kinds) {
        done = stream_event(streams[e / kinds], e % kinds);
      } else if (e == total - 1) {
        done = fire_timer();
      } else {
        auto it = circuits.begin();
        std::advance(it, static_cast<std::ptrdiff_t>((e - n * kinds) / 2));
        done = (e - n * kinds) % 2 == 0 ? circuit_sendme(it->first, it->second) : conflux_reopen(it->first, it->second);
      }
      if (done) return run(), true;
    }
    const auto t = next_deadline();
    if (!t) return false;
    now = *t;
    ++clock_jumps;
    return true;
  }
};

}  // namespace conflux::test
