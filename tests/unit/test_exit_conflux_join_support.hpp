#pragma once
// The exit's Conflux join point under test, sans-I/O: a fake runtime (the
// CircuitOutput the join sends through: circuits with a channel and a
// package window, cells kept per circuit, closes reported back at once as
// ChannelManager does), a fake exit module (the inner ExitHandler, which
// records what reaches it), and the client, played either by hand (raw
// cells, for hostile sequences) or by a real proto::ConfluxSet with a
// ClientLinker (for honest traffic both ways).
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "conflux/exit/conflux_join.hpp"
#include "conflux/proto/conflux_linking.hpp"
#include "conflux/proto/conflux_set.hpp"

namespace conflux::test::join {

using namespace std::chrono_literals;
using proto::CircuitHandle;
using proto::ConfluxTime;
using exit::ConfluxJoin;

inline const ConfluxTime kT0{std::chrono::seconds(1000)};
inline constexpr proto::ChannelId kChanA = 100;
inline constexpr proto::ChannelId kChanB = 200;

struct Sent {
  StreamId stream;
  cell::RelayMsg msg;
};

template <class T>
bool is(const cell::RelayMsg& m) {
  return std::holds_alternative<T>(m);
}

inline cell::DataMsg data_of(std::uint32_t n, std::size_t len = 16) {
  cell::DataMsg d;
  d.data.assign(len, static_cast<std::uint8_t>(n));
  for (std::size_t i = 0; i < 4 && i < len; ++i) d.data[i] = static_cast<std::uint8_t>(n >> (8 * i));
  return d;
}
inline std::uint32_t number_of(const cell::RelayMsg& m) {
  const auto& d = std::get<cell::DataMsg>(m).data;
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < 4 && i < d.size(); ++i) n |= std::uint32_t{d[i]} << (8 * i);
  return n;
}

struct FakeRuntime final : proto::CircuitOutput {
  struct Circ {
    proto::ChannelId chan = 0;
    int window = 1000;  // the switch's package window for DATA we originate
    std::optional<int> cwnd;  // congestion control: window = cwnd - inflight
    bool blocked = false;     // its queue on the client's channel is past cellq_high
  };
  ConfluxJoin* join = nullptr;
  // Circuits opened from now on negotiated congestion control (sendme_inc 31, cwnd 124).
  bool cc_circuits = false;
  static constexpr int kCcSendmeInc = 31;
  std::map<CircuitHandle, Circ> circs;
  std::map<CircuitHandle, std::deque<Sent>> outbox;  // kept after a close
  std::map<CircuitHandle, cell::DestroyReason> closed;

  void open(CircuitHandle h, proto::ChannelId chan) {
    circs[h] = cc_circuits ? Circ{chan, 124, 124} : Circ{chan, 1000, std::nullopt};
  }
  [[nodiscard]] bool alive(CircuitHandle h) const { return circs.contains(h); }

  bool send_to_client(CircuitHandle h, StreamId stream, const cell::RelayMsg& msg) override {
    auto it = circs.find(h);
    if (it == circs.end()) return false;
    if (is<cell::DataMsg>(msg)) {
      if (it->second.window <= 0) return false;
      --it->second.window;
    }
    outbox[h].push_back(Sent{stream, msg});
    return true;
  }
  [[nodiscard]] bool can_send_data(CircuitHandle h) const override {
    auto it = circs.find(h);
    return it != circs.end() && it->second.window > 0 && !it->second.blocked;
  }
  [[nodiscard]] bool blocked_on_channel(CircuitHandle h) const override {
    auto it = circs.find(h);
    return it != circs.end() && it->second.blocked;
  }
  // The circuit's queue drained below cellq_low: the runtime says so as it
  // does for a reopened window.
  void unblock(CircuitHandle h) {
    circs.at(h).blocked = false;
    join->on_circuit_writable(h);
  }
  void close_circuit(CircuitHandle h, cell::DestroyReason reason) override {
    if (circs.erase(h) == 0) return;
    closed[h] = reason;
    if (join != nullptr) join->on_circuit_closed(h, reason);
  }
  [[nodiscard]] bool uses_congestion_control(CircuitHandle h) const override {
    auto it = circs.find(h);
    return it != circs.end() && it->second.cwnd.has_value();
  }
  [[nodiscard]] std::optional<proto::RelayCircuitFlowInfo> flow_info(CircuitHandle h) const override {
    auto it = circs.find(h);
    if (it == circs.end()) return std::nullopt;
    const Circ& c = it->second;
    if (!c.cwnd) return proto::RelayCircuitFlowInfo{false, 100, static_cast<std::uint64_t>(c.window), 0, 0};
    return proto::RelayCircuitFlowInfo{true, kCcSendmeInc, static_cast<std::uint64_t>(*c.cwnd),
                                       static_cast<std::uint64_t>(*c.cwnd - c.window), 0};
  }
  [[nodiscard]] std::optional<proto::ChannelId> client_channel(CircuitHandle h) const override {
    auto it = circs.find(h);
    if (it == circs.end()) return std::nullopt;
    return it->second.chan;
  }

  // DESTROY from the client's side (the client itself or a relay on the way).
  void destroyed(CircuitHandle h, cell::DestroyReason reason) {
    REQUIRE(circs.erase(h) == 1);
    join->on_circuit_closed(h, reason);
  }
  // A circuit SENDME from the client: 100 more DATA cells may go.
  void client_sendme(CircuitHandle h) {
    auto& c = circs.at(h);
    const bool was_empty = c.window == 0;
    c.window += 100;
    join->on_circuit_sendme(h);
    if (was_empty && alive(h)) join->on_circuit_writable(h);
  }
  // A circuit SENDME on a congestion-controlled circuit: 31 cells acknowledged,
  // and Vegas set cwnd to `cwnd`.
  void client_sendme_cc(CircuitHandle h, int cwnd) {
    auto& c = circs.at(h);
    const bool was_empty = c.window <= 0;
    const int inflight = *c.cwnd - c.window - kCcSendmeInc;
    c.cwnd = cwnd;
    c.window = cwnd - inflight;
    join->on_circuit_sendme(h);
    if (was_empty && c.window > 0 && alive(h)) join->on_circuit_writable(h);
  }
  std::deque<Sent> take(CircuitHandle h) { return std::exchange(outbox[h], {}); }
};

struct Got {
  CircuitHandle circuit;
  StreamId stream;
  cell::RelayMsg msg;
};

struct FakeExit final : proto::ExitHandler {
  std::vector<Got> got;
  std::vector<CircuitHandle> writable;
  std::vector<std::pair<CircuitHandle, cell::DestroyReason>> closed;
  void on_stream_message(CircuitHandle c, StreamId s, cell::RelayMsg m) override {
    got.push_back(Got{c, s, std::move(m)});
  }
  void on_circuit_writable(CircuitHandle c) override { writable.push_back(c); }
  void on_circuit_closed(CircuitHandle c, cell::DestroyReason r) override { closed.emplace_back(c, r); }
  [[nodiscard]] bool was_closed(CircuitHandle c) const {
    for (const auto& [h, r] : closed)
      if (h == c) return true;
    return false;
  }
};

inline proto::ConfluxNonce nonce(std::uint8_t fill) {
  proto::ConfluxNonce n;
  n.fill(fill);
  return n;
}

inline cell::ConfluxLinkMsg link_msg(std::uint8_t fill, cell::ConfluxUx ux = cell::ConfluxUx::HighThroughput) {
  cell::ConfluxLinkMsg m;
  m.nonce = nonce(fill);
  m.desired_ux = ux;
  return m;
}

struct Fixture {
  FakeRuntime rt;
  FakeExit inner;
  ConfluxTime now = kT0;
  std::unique_ptr<ConfluxJoin> join;

  explicit Fixture(exit::ConfluxJoinConfig cfg = {}) {
    join = std::make_unique<ConfluxJoin>(rt, [this] { return now; }, std::move(cfg));
    join->set_inner(&inner);
    rt.join = join.get();
  }
  // As the switch does: nothing arrives for a circuit that is gone.
  void deliver(CircuitHandle h, StreamId s, cell::RelayMsg m) {
    if (rt.alive(h)) join->on_stream_message(h, s, std::move(m));
  }
  void deliver(CircuitHandle h, cell::RelayMsg m) { deliver(h, StreamId{0}, std::move(m)); }
  void sw(CircuitHandle h, std::uint32_t rel) { deliver(h, cell::ConfluxSwitchMsg{SeqRel{rel}}); }

  // A leg linked by hand (LINK, LINKED checked, LINKED_ACK after `rtt`).
  proto::SetId link_raw(CircuitHandle h, proto::ChannelId chan, std::uint8_t fill,
                        cell::ConfluxUx ux = cell::ConfluxUx::HighThroughput, bool ack = true,
                        std::chrono::milliseconds rtt = 10ms) {
    rt.open(h, chan);
    deliver(h, link_msg(fill, ux));
    REQUIRE(rt.alive(h));
    auto& out = rt.outbox[h];  // LINKED first, then what the set had waiting
    REQUIRE(!out.empty());
    REQUIRE(is<cell::ConfluxLinkedMsg>(out.front().msg));
    CHECK(std::get<cell::ConfluxLinkedMsg>(out.front().msg).nonce == nonce(fill));
    out.pop_front();
    if (ack) {
      now += rtt;
      deliver(h, cell::ConfluxLinkedAckMsg{});
      REQUIRE(rt.alive(h));
    }
    const auto id = join->set_of(h);
    REQUIRE(id.has_value());
    return *id;
  }
  // What reached the exit module on `handle`.
  [[nodiscard]] std::vector<Got> got_on(CircuitHandle handle) const {
    std::vector<Got> out;
    for (const auto& g : inner.got)
      if (g.circuit == handle) out.push_back(g);
    return out;
  }
};

// The client of one set, with real proto objects: it links legs, sends
// through its ConfluxSet and reorders what the exit sends back.
struct SetClient {
  proto::ReorderBudget budget;
  proto::ConfluxSet set;
  proto::ClientLinker linker;
  std::map<CircuitHandle, std::uint32_t> data_seen;  // per leg, for circuit SENDMEs
  std::vector<proto::DeliveredMsg> delivered;
  std::vector<std::pair<CircuitHandle, Sent>> leg_local;  // stream SENDMEs and the like
  std::optional<proto::ConfluxError> error;

  explicit SetClient(std::uint8_t fill, proto::LegSchedKind kind = proto::LegSchedKind::LowRtt)
      : set(proto::SetId{fill}, budget, config(kind)), linker(nonce(fill)) {}
  static proto::ConfluxSetConfig config(proto::LegSchedKind kind) {
    proto::ConfluxSetConfig c;
    c.scheduler = kind;
    return c;
  }
  static proto::LegId leg(CircuitHandle h) { return proto::LegId{static_cast<std::uint32_t>(h)}; }

  void link(Fixture& f, CircuitHandle h, proto::ChannelId chan, cell::ConfluxUx ux, std::chrono::milliseconds rtt) {
    f.rt.open(h, chan);
    const auto ours = set.advertise();
    auto lk = linker.start_leg(leg(h), ours, ux, f.now);
    REQUIRE(lk);
    f.deliver(h, *lk);
    REQUIRE(f.rt.alive(h));
    auto& box = f.rt.outbox[h];
    REQUIRE(!box.empty());
    REQUIRE(is<cell::ConfluxLinkedMsg>(box.front().msg));
    f.now += rtt;
    auto linked = linker.on_linked(leg(h), std::get<cell::ConfluxLinkedMsg>(box.front().msg), f.now);
    box.pop_front();
    REQUIRE(linked);
    REQUIRE(set.add_leg(leg(h), ours, linked->peer, std::chrono::duration_cast<proto::RttDuration>(linked->rtt), f.now));
    f.deliver(h, linked->ack);
  }

  // Relinks the live leg `h` (a LINK again on it, as the proxy does when
  // another leg died), reads what the exit had sent on it before the
  // LINKED, then takes the LINKED; what follows it stays in the outbox.
  void relink(Fixture& f, CircuitHandle h, cell::ConfluxUx ux, std::chrono::milliseconds rtt) {
    const auto ours = set.advertise();
    REQUIRE(set.begin_relink(leg(h)));
    auto lk = linker.start_relink(leg(h), ours, ux, f.now);
    REQUIRE(lk);
    f.deliver(h, *lk);
    REQUIRE(f.rt.alive(h));
    auto& box = f.rt.outbox[h];
    std::deque<Sent> before;
    while (!box.empty() && !is<cell::ConfluxLinkedMsg>(box.front().msg)) {
      before.push_back(std::move(box.front()));
      box.pop_front();
    }
    REQUIRE(!box.empty());
    const auto linked_msg = std::get<cell::ConfluxLinkedMsg>(box.front().msg);
    box.pop_front();
    auto after = std::exchange(box, std::move(before));
    receive(f, {h});
    box = std::move(after);
    f.now += rtt;
    auto linked = linker.on_linked(leg(h), linked_msg, f.now);
    REQUIRE(linked);
    REQUIRE(set.relink_leg(leg(h), ours, linked->peer, std::chrono::duration_cast<proto::RttDuration>(linked->rtt),
                           f.now));
    f.deliver(h, linked->ack);
    for (auto& c : set.flush(f.now)) f.deliver(c.leg.value(), c.stream, c.msg);
  }
  // Sends through the client's set on the legs it picks.
  void send(Fixture& f, StreamId stream, const cell::RelayMsg& msg) {
    auto cells = set.send(stream, msg, f.now);
    REQUIRE(cells);
    for (auto& c : *cells) f.deliver(c.leg.value(), c.stream, c.msg);
  }

  // Reads what the exit sent on `legs`, one leg after another in this
  // order (so later legs' cells arrive "late"), and answers circuit SENDMEs.
  void receive(Fixture& f, const std::vector<CircuitHandle>& legs) {
    for (const auto h : legs) {
      for (auto& s : f.rt.take(h)) {
        if (const auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&s.msg)) {
          if (auto r = set.on_switch(leg(h), *sw); !r) error = r.error();
          continue;
        }
        if (auto route = proto::route_leg_cell(cell::command_of(s.msg), s.stream);
            !route || *route != proto::LegCellRoute::Sequenced) {
          leg_local.emplace_back(h, s);
          continue;
        }
        const bool data = is<cell::DataMsg>(s.msg);
        auto r = set.on_cell(leg(h), s.stream, s.msg, f.now);
        if (!r) {
          error = r.error();
          continue;
        }
        for (auto& d : *r) delivered.push_back(std::move(d));
        if (data && ++data_seen[h] % 100 == 0 && f.rt.alive(h)) f.rt.client_sendme(h);
      }
    }
  }
};

}  // namespace conflux::test::join
