#pragma once
// A Conflux set's far end in one process, for the proxy's ConfluxTunnel and
// ConfluxPool tests: fake leg circuits (what the tunnel sends on them is
// queued; the test decides when and in which order it arrives), and an exit
// made of the same sans-I/O pieces the real join point uses
// (ExitLinkRegistry, ConfluxSet). Circuit-level SENDMEs are emulated as the
// real circuits send them: one per 100 DATA cells a leg delivered.
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "conflux/client/circuit.hpp"
#include "conflux/client/conflux_tunnel.hpp"
#include "conflux/proto/conflux_linking.hpp"
#include "conflux/proto/conflux_set.hpp"

namespace conflux::test {

using namespace std::chrono_literals;

// Real steady time (timers in the pool's coroutines use it too) plus
// whatever the test skips ahead.
class ManualClock final : public net::Clock {
 public:
  [[nodiscard]] Monotonic::time_point now() const override { return Monotonic::now() + skipped_; }
  [[nodiscard]] std::uint64_t unix_seconds() const override { return 1'800'000'000; }
  void advance(std::chrono::microseconds d) { skipped_ += d; }

 private:
  std::chrono::microseconds skipped_{0};
};

inline client::RelayIdentity relay_id(std::uint8_t n) {
  client::RelayIdentity id{};
  id.fill(n);
  return id;
}

inline client::PathHop hop(std::uint8_t n, std::string policy = {}) {
  client::PathHop h;
  h.target.identity.fill(n);
  h.nickname = "relay" + std::to_string(n);
  h.exit_policy = std::move(policy);
  return h;
}

struct Wire {
  StreamId stream{};
  cell::RelayMsg msg;
};

// One leg circuit: what the tunnel sends is queued for the exit.
class FakeLeg final : public client::LegCircuit {
 public:
  explicit FakeLeg(client::CircuitInfo info) : info_(std::move(info)) {}
  [[nodiscard]] const client::CircuitInfo& info() const override { return info_; }
  bool send(StreamId id, const cell::RelayMsg& msg) override {
    if (closed || refuse_sends) return false;
    to_exit.push_back(Wire{id, msg});
    return true;
  }
  void close(cell::DestroyReason, std::string_view why) override {
    if (closed) return;
    closed = true;
    close_reason = std::string(why);
    if (auto* o = std::exchange(owner, nullptr)) o->on_leg_closed(info_.serial, why);
  }
  void set_leg_owner(client::LegOwner* o) override { owner = o; }
  [[nodiscard]] std::optional<proto::CcAgreement> leg_cc_agreement() const override { return cc; }
  [[nodiscard]] bool blocked_on_channel() const override { return blocked; }

  [[nodiscard]] std::uint64_t serial() const { return info_.serial; }
  // The leg was built (every hop answered).
  void open() {
    if (owner != nullptr) owner->on_leg_open(info_.serial);
  }

  client::CircuitInfo info_;
  client::LegOwner* owner = nullptr;
  std::deque<Wire> to_exit;
  std::deque<Wire> to_client;
  bool closed = false;
  bool refuse_sends = false;
  bool blocked = false;  // its cells wait past cellq_high on its link
  std::optional<proto::CcAgreement> cc;  // what the leg's exit agreed to
  std::string close_reason;
  unsigned data_from_client = 0;  // for the exit's circuit SENDMEs
  unsigned data_to_client = 0;    // for the client's circuit SENDMEs
};

// The client's side of a stream, as ClientStream sees it.
struct FakeStream final : client::StreamEvents {
  std::vector<cell::RelayMsg> msgs;
  std::vector<std::uint8_t> data;
  unsigned writable = 0;
  std::optional<std::string> closed;
  void on_stream_msg(const cell::RelayMsg& msg) override {
    if (const auto* d = std::get_if<cell::DataMsg>(&msg)) data.insert(data.end(), d->data.begin(), d->data.end());
    msgs.push_back(msg);
  }
  void on_circuit_writable() override { ++writable; }
  void on_circuit_closed(std::string_view why) override { closed = std::string(why); }
};

// The exit end: links legs into sets by nonce, delivers the client's
// sequenced cells in order, answers BEGIN with CONNECTED.
struct FakeExit {
  explicit FakeExit(ManualClock& c) : clock(c) {}

  ManualClock& clock;
  proto::ReorderBudget budget;
  proto::ConfluxSetConfig set_config;
  proto::ExitLinkRegistry registry;
  std::map<proto::SetId, std::unique_ptr<proto::ConfluxSet>> sets;
  std::map<std::uint64_t, FakeLeg*> legs;  // by serial
  std::vector<proto::DeliveredMsg> delivered;
  std::vector<std::uint8_t> uploaded;      // DATA bytes, in delivery order
  std::vector<StreamId> stream_sendmes;
  std::vector<std::string> errors;
  unsigned linked_acks = 0;
  unsigned links = 0;
  unsigned relinks = 0;  // LINKs on legs already linked
  bool answer_begin = true;
  // Drop LINKs silently (a leg that never links).
  bool ignore_links = false;

  static proto::LegId leg_of(std::uint64_t serial) { return proto::LegId{static_cast<std::uint32_t>(serial)}; }

  // Plays a stock tor exit: its LINKED offers no resumption.
  void act_as_tor() {
    proto::ExitLinkConfig c;
    c.offer_resumption = false;
    registry = proto::ExitLinkRegistry(c);
    // Nor does it bound how far it sends ahead of a stalled leg.
    set_config.max_unconfirmed_cells = std::numeric_limits<std::uint64_t>::max();
  }

  proto::ConfluxSet* set_of(std::uint64_t serial) {
    auto id = registry.set_of(leg_of(serial));
    if (!id) return nullptr;
    auto it = sets.find(*id);
    return it == sets.end() ? nullptr : it->second.get();
  }

  void to_client(const std::vector<proto::LegCell>& cells) {
    for (const auto& c : cells) {
      auto it = legs.find(c.leg.value());
      if (it == legs.end() || it->second->closed) continue;
      it->second->to_client.push_back(Wire{c.stream, c.msg});
    }
  }

  void send(std::uint64_t serial, StreamId stream, const cell::RelayMsg& msg) {
    auto* set = set_of(serial);
    REQUIRE(set != nullptr);
    auto cells = set->send(stream, msg, clock.now());
    REQUIRE(cells);
    to_client(*cells);
  }

  void handle(FakeLeg& leg, const Wire& w) {
    const auto id = leg_of(leg.serial());
    const auto now = clock.now();
    if (const auto* link = std::get_if<cell::ConfluxLinkMsg>(&w.msg)) {
      ++links;
      if (ignore_links) return;
      auto r = registry.on_link(1, id, *link);
      REQUIRE(r);
      if (r->new_set) {
        sets[r->set] = std::make_unique<proto::ConfluxSet>(r->set, budget, set_config);
        registry.hold(r->set);  // as the join point does: a legless set waits for a replacement
      }
      auto& set = *sets[r->set];
      const auto ours = set.advertise();
      if (r->relink) {
        ++relinks;
        REQUIRE(set.relink_leg(id, ours, r->peer, proto::RttDuration{0}, now));
      } else {
        REQUIRE(set.add_leg(id, ours, r->peer, proto::RttDuration{0}, now));
      }
      auto linked = registry.make_linked(id, ours, now);
      REQUIRE(linked);
      leg.to_client.push_back(Wire{StreamId{0}, *linked});
      to_client(set.flush(now));
      return;
    }
    if (std::holds_alternative<cell::ConfluxLinkedAckMsg>(w.msg)) {
      if (registry.on_linked_ack(id, now)) ++linked_acks;
      return;
    }
    auto* set = set_of(leg.serial());
    if (set == nullptr) return errors.push_back("a cell before LINK");
    if (const auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&w.msg)) {
      if (auto r = set->on_switch(id, *sw); !r) errors.push_back(std::string(proto::to_string(r.error())));
      return;
    }
    if (std::holds_alternative<cell::SendmeMsg>(w.msg) && w.stream == StreamId{0}) {
      (void)set->on_leg_sendme(id, now);  // the client's circuit SENDME
      return;
    }
    if (std::holds_alternative<cell::DataMsg>(w.msg) && ++leg.data_from_client % 100 == 0)
      leg.to_client.push_back(Wire{StreamId{0}, cell::SendmeMsg{}});  // the exit's circuit SENDME
    auto out = set->on_cell(id, w.stream, w.msg, now);
    if (!out) return errors.push_back(std::string(proto::to_string(out.error())));
    for (auto& m : *out) {
      if (const auto* d = std::get_if<cell::DataMsg>(&m.msg)) uploaded.insert(uploaded.end(), d->data.begin(), d->data.end());
      if (std::holds_alternative<cell::SendmeMsg>(m.msg)) stream_sendmes.push_back(m.stream);
      const bool begin = std::holds_alternative<cell::BeginMsg>(m.msg);
      const StreamId stream = m.stream;
      delivered.push_back(std::move(m));
      if (begin && answer_begin) send(leg.serial(), stream, cell::ConnectedMsg{});
    }
  }

  // Everything the client sent, in each leg's order (legs one after another).
  bool pump_exit() {
    bool moved = false;
    for (auto& [serial, leg] : legs) {
      while (!leg->to_exit.empty() && !leg->closed) {
        Wire w = std::move(leg->to_exit.front());
        leg->to_exit.pop_front();
        handle(*leg, w);
        moved = true;
      }
    }
    return moved;
  }

  // Delivers to the tunnel what the exit sent on `serial` (or every leg).
  bool pump_client(std::optional<std::uint64_t> only = std::nullopt) {
    bool moved = false;
    for (auto& [serial, leg] : legs) {
      if (only && *only != serial) continue;
      while (!leg->to_client.empty() && !leg->closed && leg->owner != nullptr) {
        Wire w = std::move(leg->to_client.front());
        leg->to_client.pop_front();
        const bool data = std::holds_alternative<cell::DataMsg>(w.msg);
        leg->owner->on_leg_msg(serial, HopNum{3}, w.stream, w.msg);
        moved = true;
        // The client circuit's own SENDME every 100 DATA cells.
        if (data && ++leg->data_to_client % 100 == 0 && !leg->closed) {
          if (auto* set = set_of(serial)) {
            REQUIRE(set->on_leg_sendme(leg_of(serial), clock.now()));
            to_client(set->flush(clock.now()));
          }
        }
      }
    }
    return moved;
  }

  void run() {
    for (int i = 0; i < 10000; ++i) {
      clock.advance(1ms);
      const bool a = pump_exit();
      const bool b = pump_client();
      if (!a && !b) return;
    }
    FAIL("the fake network did not settle");
  }

  // The leg's middle died: what was in flight on it is lost at both ends.
  void kill(std::uint64_t serial) {
    auto it = legs.find(serial);
    REQUIRE(it != legs.end());
    FakeLeg& leg = *it->second;
    leg.to_exit.clear();
    leg.to_client.clear();
    if (auto* set = set_of(serial)) set->leg_closed(leg_of(serial));
    (void)registry.remove_leg(leg_of(serial));
    leg.close(cell::DestroyReason::None, "channel closed: middle died");
  }
};

// A tunnel whose legs are FakeLegs on paths guard g, middle 100+g, exit 200.
struct TunnelRig {
  explicit TunnelRig(std::size_t num_legs = 2, cell::ConfluxUx ux = cell::ConfluxUx::HighThroughput,
                     proto::ReorderBudgetConfig budget_config = {})
      : config(client::ConfluxTunnelConfig::for_ux(ux, num_legs)), budget(budget_config) {}

  ManualClock clock;
  FakeExit exit{clock};
  client::ConfluxTunnelConfig config;
  std::vector<std::unique_ptr<FakeLeg>> legs;
  std::vector<client::LegRequest> requests;
  std::vector<std::string> log_lines;
  std::optional<std::string> closed;
  std::uint64_t next_serial = 10;
  std::uint8_t next_guard = 1;
  bool launch_fails = false;
  proto::ReorderBudget budget;
  std::unique_ptr<client::ConfluxTunnel> tunnel;

  void make() {
    client::ConfluxTunnel::Hooks h;
    h.launch_leg = [this](client::ConfluxTunnel& t, const client::LegRequest& r) -> client::LegCircuit* {
      requests.push_back(r);
      if (launch_fails) return nullptr;
      std::uint8_t guard = next_guard;
      if (r.first_hop) {
        guard = (*r.first_hop)[0];
      } else {
        while (r.exclude_first_hops.count(relay_id(guard)) != 0 || r.exclude_middles.count(relay_id(guard)) != 0)
          ++guard;
        next_guard = static_cast<std::uint8_t>(guard + 1);
      }
      client::CircuitInfo info;
      info.serial = next_serial++;
      info.path = {hop(guard), hop(static_cast<std::uint8_t>(100 + guard)), hop(200, "accept 80,443")};
      auto leg = std::make_unique<FakeLeg>(std::move(info));
      leg->set_leg_owner(&t);
      exit.legs[leg->serial()] = leg.get();
      legs.push_back(std::move(leg));
      return legs.back().get();
    };
    h.closed = [this](client::ConfluxTunnel&, std::string_view why) { closed = std::string(why); };
    auto log = [this](net::LogLevel, std::string_view line) { log_lines.emplace_back(line); };
    tunnel = std::make_unique<client::ConfluxTunnel>(7, config, budget, std::move(h), clock, log);
  }

  FakeLeg& leg(std::size_t i) { return *legs.at(i); }
  // Builds every leg launched so far and lets the network settle.
  void open_all() {
    for (auto& l : legs)
      if (!l->closed && l->owner != nullptr) l->open();
    exit.run();
  }
  [[nodiscard]] bool logged(std::string_view needle) const {
    for (const auto& l : log_lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
};

inline std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7 + i / 251);
  return v;
}

}  // namespace conflux::test
